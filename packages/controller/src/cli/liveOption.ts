import { LiveBoard } from "../runner/liveBoard.js";
import { type LiveServer, startLiveServer } from "../live/server.js";
import type { LivePageMode } from "../live/page.js";

/** The help of `--live [address]`. */
export const LIVE_OPTION_HELP =
  "serve a live page of the run's machines (each slot's screens, task, last action; take over and hand back) on ADDRESS " +
  "(default 127.0.0.1:0, a free port); beyond loopback it needs a token (PINCER_LIVE_TOKEN, or one made and printed)";

/** A live page and the board it shows. */
export interface CliLive {
  board: LiveBoard;
  server: LiveServer;
}

/**
 * Starts the live page for `--live` (true: loopback, a free port) with one slot per `slots`, and
 * prints its address on stderr; undefined without the flag.
 */
export async function startCliLive(
  live: string | boolean | undefined,
  slots: number,
  opts: { title: string; mode?: LivePageMode; startTakenOver?: boolean; onDone?(slot: number): void },
): Promise<CliLive | undefined> {
  if (live === undefined || live === false) return undefined;
  const board = new LiveBoard({ slots, ...(opts.startTakenOver ? { startTakenOver: true } : {}) });
  const token = process.env.PINCER_LIVE_TOKEN;
  const server = await startLiveServer({
    board,
    listen: live === true ? "127.0.0.1:0" : live,
    title: opts.title,
    ...(opts.mode ? { mode: opts.mode } : {}),
    ...(token ? { token } : {}),
    ...(opts.onDone ? { onDone: opts.onDone } : {}),
  });
  process.stderr.write(`live: ${server.url}\n`);
  return { board, server };
}
