import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";

/**
 * A real redis-server for queue tests, on a unix socket in `dir` (mode 700: no other user reaches
 * it) with its append-only file there, so that a restart keeps what was written.
 */
export interface TestRedis {
  /** `unix:<dir>/redis.sock`, as `--queue` takes it. */
  url: string;
  socket: string;
  /** Stops it gracefully (SIGTERM: the append-only file is flushed) and starts it again on the same files. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startRedis(dir: string): Promise<TestRedis> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const socket = join(dir, "redis.sock");
  const args = ["--port", "0", "--unixsocket", socket, "--unixsocketperm", "700", "--dir", dir, "--appendonly", "yes", "--appendfsync", "always", "--save", ""];
  let child: ChildProcess;
  const start = async () => {
    child = spawn("redis-server", args, { stdio: ["ignore", "ignore", "inherit"] });
    for (const until = Date.now() + 10_000; !existsSync(socket); await sleep(20)) {
      if (Date.now() > until || child.exitCode !== null) throw new Error(`redis-server did not start on ${socket} (is redis-server installed?)`);
    }
  };
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  };
  await start();
  return { url: `unix:${socket}`, socket, restart: async () => (await stop(), await start()), stop };
}
