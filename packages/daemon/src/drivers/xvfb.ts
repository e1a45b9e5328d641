import { parseScreenSpec, startXvfb, type XvfbServer } from "@pincer/shared";

/** An Xvfb server this daemon started and owns. */
export type OwnXServer = XvfbServer;

/** Starts the daemon's own Xvfb from a `--xvfb` spec such as "1920x1080x24". */
export function startOwnXServer(spec: string, opts: { startTimeoutMs?: number; displayNumber?: number } = {}): Promise<OwnXServer> {
  let size: { width: number; height: number; depth: number };
  try {
    size = parseScreenSpec(spec);
  } catch {
    return Promise.reject(new Error(`--xvfb ${JSON.stringify(spec)}: give WIDTHxHEIGHT[xDEPTH], e.g. 1920x1080x24`));
  }
  // A black root window: what an agent sees of an empty screen is plain, not Xvfb's stipple. No
  // abstract socket: clients use the path socket in /tmp, so daemons in sandboxes with private
  // /tmp directories but one network namespace can all use display :0.
  return startXvfb({ ...size, blackRoot: true, abstractSocket: false, ...opts });
}
