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
  // A black root window: what an agent sees of an empty screen is plain, not Xvfb's stipple.
  // With a given display number (a sandbox: its own /tmp, this computer's network) no abstract
  // socket, which lives in the network namespace and would be reachable from outside. Without one,
  // keep it: Xvfb's search for a free display (-displayfd) takes the abstract socket as the sign
  // that a display is in use, and would otherwise replace the path socket of a running server.
  return startXvfb({ ...size, blackRoot: true, abstractSocket: opts.displayNumber === undefined, ...opts });
}
