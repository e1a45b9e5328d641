import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { FailedPreconditionError, NODE_FLAGS, startXvfb } from "@pincer/shared";
import { connect, type RemoteEnvironment } from "../env/index.js";

/** A machine on this computer: its own Xvfb display and pincer-daemon, for runs without --env. */
export interface LocalMachine {
  display: string;
  address: string;
  env: RemoteEnvironment;
  close(): Promise<void>;
}

/** Options of {@link startLocalMachine}. */
export interface LocalMachineOptions {
  /** @default 1280 */
  width?: number;
  /** @default 800 */
  height?: number;
  /**
   * Command that starts the daemon (argv), to which `--port 0 --display :N --quiet` is added.
   * @default node --single-threaded-gc <@pincer/daemon>/dist/main.js
   */
  daemonCommand?: string[];
}

/** The installed daemon's entry point: @pincer/daemon's dist/main.js (run `npm run build` if missing). */
export function defaultDaemonCommand(): string[] {
  const pkg = createRequire(import.meta.url).resolve("@pincer/daemon/package.json");
  const main = join(dirname(pkg), "dist", "main.js");
  if (!existsSync(main)) throw new FailedPreconditionError(`pincer-daemon is not built (${main} is missing); run npm run build`);
  return [process.execPath, ...NODE_FLAGS, main];
}

function stop(child: ChildProcess, graceMs = 3_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** Reads the first line a child writes to `stream`, or fails after `timeoutMs` or when it exits. */
function firstLine(child: ChildProcess, stream: NodeJS.ReadableStream, what: string, timeoutMs: number, stderr: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = "";
    const timer = setTimeout(() => reject(new FailedPreconditionError(`${what} did not start within ${timeoutMs} ms: ${stderr()}`)), timeoutMs);
    stream.on("data", (d: Buffer) => {
      buf += d.toString();
      const nl = buf.indexOf("\n");
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(buf.slice(0, nl).trim());
      }
    });
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(new FailedPreconditionError(`cannot start ${what}: ${err.message}`));
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new FailedPreconditionError(`${what} exited with ${code} before it was ready: ${stderr()}`));
    });
  });
}

/** Starts Xvfb on a free display and a daemon on it listening on 127.0.0.1:<free port>. */
export async function startLocalMachine(opts: LocalMachineOptions = {}): Promise<LocalMachine> {
  const xvfb = await startXvfb({ width: opts.width ?? 1280, height: opts.height ?? 800, blackRoot: true, startTimeoutMs: 15_000 }).catch((err: unknown) => {
    throw new FailedPreconditionError((err as Error).message);
  });
  let daemon: ChildProcess | undefined;
  try {
    const [cmd, ...args] = opts.daemonCommand ?? defaultDaemonCommand();
    daemon = spawn(cmd!, [...args, "--host", "127.0.0.1", "--port", "0", "--display", xvfb.display, "--quiet"], { stdio: ["ignore", "pipe", "pipe"] });
    let dErr = "";
    daemon.stderr!.on("data", (d: Buffer) => (dErr = (dErr + d.toString()).slice(-4000)));
    const line = await firstLine(daemon, daemon.stdout!, "pincer-daemon", 30_000, () => dErr);
    const address = /listening on (\S+)/.exec(line)?.[1];
    if (!address) throw new FailedPreconditionError(`pincer-daemon printed ${JSON.stringify(line)} instead of its address`);
    const env = connect(address);
    await env.waitUntilReady({ timeoutMs: 20_000 });
    const d = daemon;
    return {
      display: xvfb.display,
      address,
      env,
      async close() {
        env.close();
        await stop(d);
        await xvfb.stop();
      },
    };
  } catch (err) {
    if (daemon) await stop(daemon);
    await xvfb.stop();
    throw err;
  }
}
