import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { FailedPreconditionError, NODE_FLAGS } from "@pincer/shared";
import { connect, type RemoteEnvironment } from "../env/index.js";
import { overlaySandbox, removeMountDir, reserveDisplay, sandboxSupport, type SandboxMode } from "./sandbox.js";

/** A machine on this computer: a pincer-daemon with an Xvfb display of its own, for runs without --env. */
export interface LocalMachine {
  /** How it is isolated from this computer. */
  sandbox: SandboxMode;
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
  /** How the machine is isolated from this computer. @default the best available ({@link sandboxSupport}) */
  sandbox?: SandboxMode;
  /**
   * Give the machine a D-Bus session bus and the AT-SPI accessibility bus (the daemon's
   * `--accessibility-bus`), so that `env.accessibility.tree()` sees the applications it runs.
   * Needs the dbus and at-spi2-core packages. @default false
   */
  accessibilityBus?: boolean;
}

/** The installed daemon's entry point: @pincer/daemon's dist/main.js (run `npm run build` if missing). */
export function defaultDaemonCommand(): string[] {
  const pkg = createRequire(import.meta.url).resolve("@pincer/daemon/package.json");
  const main = join(dirname(pkg), "dist", "main.js");
  if (!existsSync(main)) throw new FailedPreconditionError(`pincer-daemon is not built (${main} is missing); run npm run build`);
  return [process.execPath, ...NODE_FLAGS, main];
}

/**
 * Stops a local daemon: its stdin closes, so it stops its commands and its Xvfb and exits (in a
 * sandbox, the sandbox ends with it); SIGKILL after 10 s if it has not.
 */
async function endDaemon(daemon: ChildProcess): Promise<void> {
  if (daemon.exitCode !== null || daemon.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => daemon.once("exit", () => resolve()));
  daemon.stdin!.end();
  const timer = setTimeout(() => daemon.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
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

/**
 * Starts a daemon listening on 127.0.0.1:<free port> with an Xvfb of its own (`--xvfb`). The daemon
 * is started with `--exit-with-stdin` and this process holds its stdin: when this process dies, even
 * by SIGKILL, the pipe closes and the daemon stops, taking its Xvfb and its commands with it.
 */
export async function startLocalMachine(opts: LocalMachineOptions = {}): Promise<LocalMachine> {
  const screen = `${opts.width ?? 1280}x${opts.height ?? 800}x24`;
  const daemonArgv = [
    ...(opts.daemonCommand ?? defaultDaemonCommand()),
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--xvfb",
    screen,
    "--exit-with-stdin",
    "--quiet",
    ...(opts.accessibilityBus ? ["--accessibility-bus"] : []),
  ];
  const mode = opts.sandbox ?? sandboxSupport().mode;
  // In a sandbox the display number must be unique on this computer (see reserveDisplay).
  const reserved = mode === "overlay" ? reserveDisplay() : undefined;
  if (reserved) daemonArgv.push("--xvfb-display", String(reserved.display));
  const boxed = mode === "overlay" ? overlaySandbox(daemonArgv) : undefined;
  const [cmd, ...args] = boxed?.argv ?? daemonArgv;
  const daemon = spawn(cmd!, args, { stdio: ["pipe", "pipe", "pipe"] });
  daemon.once("exit", () => {
    if (boxed) removeMountDir(boxed.mountDir);
    reserved?.release();
  });
  // Held open, never written: its end is the signal to stop.
  daemon.stdin!.on("error", () => undefined);
  let dErr = "";
  daemon.stderr!.on("data", (d: Buffer) => (dErr = (dErr + d.toString()).slice(-4000)));
  try {
    const line = await firstLine(daemon, daemon.stdout!, "pincer-daemon", 30_000, () => dErr);
    const address = /listening on (\S+)/.exec(line)?.[1];
    if (!address) throw new FailedPreconditionError(`pincer-daemon printed ${JSON.stringify(line)} instead of its address`);
    const env = connect(address);
    const info = await env.waitUntilReady({ timeoutMs: 20_000 });
    return {
      sandbox: mode,
      display: info.display,
      address,
      env,
      async close() {
        env.close();
        await endDaemon(daemon);
      },
    };
  } catch (err) {
    await endDaemon(daemon);
    throw err;
  }
}
