import { LiveBoard } from "../runner/liveBoard.js";
import { type LiveServer, startLiveServer } from "../live/server.js";
import type { LivePageMode } from "../live/page.js";
import { type SlotVnc, startSlotVnc } from "../live/slotVnc.js";

/** The help of `--live [address]`. */
export const LIVE_OPTION_HELP =
  "serve a live page of the run's machines (each slot's screens, task, last action; take over and hand back) on ADDRESS " +
  "(default 127.0.0.1:0, a free port); beyond loopback it needs a token (PINCER_LIVE_TOKEN, or one made and printed)";

/** A live page and the board it shows. */
export interface CliLive {
  board: LiveBoard;
  server: LiveServer;
  /** Stops the page and the VNC servers. */
  close(): Promise<void>;
}

/** The help of `--vnc`. */
export const VNC_OPTION_HELP =
  "also serve each slot's machines to VNC viewers (view only, a password each, where --live listens; the page and stderr list them)";

/**
 * Starts the live page for `--live` (true: loopback, a free port) with one slot per `slots`, and
 * prints its address on stderr; undefined without the flag.
 */
export async function startCliLive(
  live: string | boolean | undefined,
  slots: number,
  opts: { title: string; mode?: LivePageMode; startTakenOver?: boolean; onDone?(slot: number): void; vnc?: readonly string[]; token?: string },
): Promise<CliLive | undefined> {
  if ((live === undefined || live === false) && !opts.vnc) return undefined;
  const listen = live === undefined || live === false || live === true ? "127.0.0.1:0" : live;
  const board = new LiveBoard({ slots, ...(opts.startTakenOver ? { startTakenOver: true } : {}) });
  const token = opts.token ?? process.env.PINCER_LIVE_TOKEN;
  const vnc: SlotVnc | undefined = opts.vnc ? await startSlotVnc(board, opts.vnc, listen.replace(/:\d+$/, "").replace(/^\[|\]$/g, "")) : undefined;
  const server = await startLiveServer({
    board,
    listen,
    ...(vnc ? { vnc: vnc.entries } : {}),
    title: opts.title,
    ...(opts.mode ? { mode: opts.mode } : {}),
    ...(token ? { token } : {}),
    ...(opts.onDone ? { onDone: opts.onDone } : {}),
  });
  process.stderr.write(`live: ${server.url}\n`);
  for (const v of vnc?.entries ?? []) process.stderr.write(`vnc: slot ${v.slot} ${v.env} at ${v.host}::${v.port}, password ${v.password}\n`);
  return {
    board,
    server,
    close: async () => {
      await server.close();
      await vnc?.close();
    },
  };
}
