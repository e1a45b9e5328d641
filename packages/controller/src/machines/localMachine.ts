import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { DAEMON_MALLOC_ENV, DAEMON_NODE_FLAGS, FailedPreconditionError } from "@pincer/shared";
import { connect, type RemoteEnv } from "../env/index.js";
import { machineEnvironment, prepareSandbox, sandboxSupport, type SandboxMode } from "./sandbox.js";
import { startUserModeLink, type UserModeLink } from "./userModeLink.js";

/** A machine on this computer: a pincer-daemon with an Xvfb display of its own, for runs without --env. */
export interface LocalMachine {
  /** How it is isolated from this computer. */
  sandbox: SandboxMode;
  display: string;
  /** Where its daemon listens: a unix socket in a private folder (sandbox), or 127.0.0.1:port. */
  address: string;
  /** Connected with the machine's own token: nothing else on this computer can call its daemon. */
  env: RemoteEnv;
  /**
   * When its sandbox was prepared (epoch ms), which hides what was private on this computer then;
   * undefined without a sandbox.
   */
  sandboxPreparedMs?: number;
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
  /**
   * Give a sandboxed machine a network link: a user-mode one (slirp4netns, NAT), with DNS, that
   * reaches what this computer reaches but not this computer's loopback. Without it a sandbox has
   * its loopback only. Machines without a sandbox always share this computer's network. @default false
   */
  network?: boolean;
  /**
   * The screen's background (the daemon's `--wallpaper`): `true` for Pincer's own, a gradient with a
   * bar along the bottom, so that screenshots show a desktop; an image file's path; or `false` for
   * Xvfb's bare black root. It is drawn into the root window: no window, focus or accessibility node
   * is added. @default true
   */
  wallpaper?: boolean | string;
  /**
   * The daemon's drivers (its `--drivers`): `native` (XTEST, X shared memory, the native spawner)
   * or `portable` (nut-js, execa). @default the daemon's default, native on Linux
   */
  drivers?: "native" | "portable";
}

/** The installed daemon's entry point: @pincer/daemon's dist/main.js (run `npm run build` if missing). */
export function defaultDaemonCommand(): string[] {
  const pkg = createRequire(import.meta.url).resolve("@pincer/daemon/package.json");
  const main = join(dirname(pkg), "dist", "main.js");
  if (!existsSync(main)) throw new FailedPreconditionError(`pincer-daemon is not built (${main} is missing); run npm run build`);
  return [process.execPath, ...DAEMON_NODE_FLAGS, main];
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

/** How the daemon of a local machine is started: its command, where it listens, its token file. */
interface Launch {
  argv: string[];
  /** Where to connect; undefined: the address the daemon prints. */
  address?: string;
  tokenFile: string;
  /** When the sandbox was prepared (epoch ms). */
  preparedMs?: number;
  /** Extra descriptors for the spawn (the sandbox's pid pipe). */
  extraFds: number;
  cleanup(): void;
}

/** The daemon in a sandbox: it listens on a unix socket in the sandbox's private folder. */
function sandboxedLaunch(daemonArgv: string[], token: string, network: boolean): Launch {
  const box = prepareSandbox(daemonArgv, token, { network });
  return { argv: box.argv, address: box.address, tokenFile: box.tokenFile, preparedMs: box.preparedMs, extraFds: 1, cleanup: () => box.release() };
}

function wallpaperArgs(w: boolean | string): string[] {
  if (w === false) return [];
  return [w === true ? "--wallpaper" : `--wallpaper=${resolve(w)}`];
}

/** The daemon on this computer, on 127.0.0.1 with a token of its own. */
function plainLaunch(daemonArgv: string[], token: string): Launch {
  const dir = mkdtempSync(join(tmpdir(), "pincer-machine-"));
  const tokenFile = join(dir, "token");
  writeFileSync(tokenFile, token, { mode: 0o600 });
  return {
    argv: [...daemonArgv, "--host", "127.0.0.1", "--port", "0", "--token-file", tokenFile],
    tokenFile,
    extraFds: 0,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Starts a daemon with an Xvfb of its own (`--xvfb`), in a sandbox where available (see
 * sandbox.ts), with a random token and the machine's environment (never the runner's: no keys or
 * tokens of this process reach the commands a task runs). The daemon is started with
 * `--exit-with-stdin` and this process holds its stdin: when this process dies, even by SIGKILL, the
 * pipe closes and the daemon stops, taking its Xvfb and its commands with it.
 */
export async function startLocalMachine(opts: LocalMachineOptions = {}): Promise<LocalMachine> {
  const screen = `${opts.width ?? 1280}x${opts.height ?? 800}x24`;
  const daemonArgv = [
    ...(opts.daemonCommand ?? defaultDaemonCommand()),
    "--xvfb",
    screen,
    "--exit-with-stdin",
    "--quiet",
    ...(opts.accessibilityBus ? ["--accessibility-bus"] : []),
    ...wallpaperArgs(opts.wallpaper ?? true),
    ...(opts.drivers ? ["--drivers", opts.drivers] : []),
  ];
  const mode = opts.sandbox ?? sandboxSupport().mode;
  const token = randomBytes(32).toString("hex");
  const launch = mode === "overlay" ? sandboxedLaunch(daemonArgv, token, !!opts.network) : plainLaunch(daemonArgv, token);
  const [cmd, ...args] = launch.argv;
  const stdio: Array<"pipe"> = ["pipe", "pipe", "pipe", ...Array<"pipe">(launch.extraFds).fill("pipe")];
  // The daemon's malloc settings; it takes them out of what its commands inherit.
  const daemon = spawn(cmd!, args, { stdio, env: { ...machineEnvironment(process.env, mode === "overlay"), ...DAEMON_MALLOC_ENV } });
  daemon.once("exit", () => launch.cleanup());
  // Held open, never written: its end is the signal to stop.
  daemon.stdin!.on("error", () => undefined);
  let dErr = "";
  daemon.stderr!.on("data", (d: Buffer) => (dErr = (dErr + d.toString()).slice(-4000)));
  // The sandbox's first process, in this computer's PID namespace, once it runs (fd 3): the link attaches to it.
  const sandboxPid =
    opts.network && launch.extraFds ? firstLine(daemon, daemon.stdio[3] as NodeJS.ReadableStream, "the sandbox", 30_000, () => dErr) : undefined;
  let link: UserModeLink | undefined;
  try {
    if (opts.network && sandboxPid) link = await startUserModeLink(Number(await sandboxPid));
    const line = await firstLine(daemon, daemon.stdout!, "pincer-daemon", 30_000, () => dErr);
    const printed = /listening on (\S+)/.exec(line)?.[1];
    if (!printed) throw new FailedPreconditionError(`pincer-daemon printed ${JSON.stringify(line)} instead of its address`);
    // Read at start; nothing needs it on disk any more.
    rmSync(launch.tokenFile, { force: true });
    const address = launch.address ?? printed;
    const env = connect(address, { token });
    const info = await env.waitUntilReady({ timeoutMs: 20_000 });
    return {
      sandbox: mode,
      display: info.display,
      address,
      env,
      ...(launch.preparedMs !== undefined ? { sandboxPreparedMs: launch.preparedMs } : {}),
      async close() {
        env.close();
        await endDaemon(daemon);
        link?.stop();
      },
    };
  } catch (err) {
    await endDaemon(daemon);
    link?.stop();
    throw err;
  }
}
