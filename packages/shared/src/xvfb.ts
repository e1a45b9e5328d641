import { existsSync } from "node:fs";
import { spawn, type ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";

/** An Xvfb server started by {@link startXvfb}. */
export interface XvfbServer {
  /** ":N" */
  readonly display: string;
  readonly width: number;
  readonly height: number;
  readonly pid: number;
  /** Resolves when the server exits, for whatever reason. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, SIGKILL after `graceMs`; resolves once the process is gone (and reaped). */
  stop(graceMs?: number): Promise<void>;
}

export interface XvfbOptions {
  /** @default 1280 */
  width?: number;
  /** @default 800 */
  height?: number;
  /** Bits per pixel. @default 24 */
  depth?: number;
  /** Black root window instead of X's grey weave (cleaner screenshots and pixel checks). @default false */
  blackRoot?: boolean;
  /** @default 10_000 */
  startTimeoutMs?: number;
  /**
   * Listen on the abstract Unix socket too (Linux's "local" transport). Abstract sockets belong to
   * the network namespace, not the file system: two Xvfb in two sandboxes that share the network
   * but not /tmp would both take display :0 and collide there. @default true
   */
  abstractSocket?: boolean;
  /** Display number to use; the first free one when not given. */
  displayNumber?: number;
}

/** Parses "1920x1080x24" (depth optional, 24 by default). */
export function parseScreenSpec(spec: string): { width: number; height: number; depth: number } {
  const m = /^(\d{2,5})x(\d{2,5})(?:x(8|15|16|24|32))?$/.exec(spec.trim());
  if (!m) throw new Error(`screen ${JSON.stringify(spec)}: give WIDTHxHEIGHT[xDEPTH], e.g. 1920x1080x24`);
  return { width: Number(m[1]), height: Number(m[2]), depth: Number(m[3] ?? 24) };
}

/**
 * Starts Xvfb on a free display number (it picks one and writes it to -displayfd) and resolves
 * once the server accepts clients. -noreset: Xvfb would otherwise reset (windows and pointer gone)
 * whenever its last client disconnects, and libnut connects afresh for each call.
 * -nolisten tcp: only local clients, over the Unix socket.
 */
export async function startXvfb(opts: XvfbOptions = {}): Promise<XvfbServer> {
  const width = opts.width ?? 1280;
  const height = opts.height ?? 800;
  const depth = opts.depth ?? 24;
  const args = ["-displayfd", "3", "-screen", "0", `${width}x${height}x${depth}`, "-noreset", "-nolisten", "tcp"];
  if (opts.displayNumber !== undefined) args.unshift(`:${opts.displayNumber}`);
  if (opts.blackRoot) args.push("-br");
  if (opts.abstractSocket === false) args.push("-nolisten", "local");
  // The server dies with the process that started it, even one killed with SIGKILL (no handler
  // runs then): setpriv sets the parent-death signal and becomes Xvfb, keeping its pid and fds.
  const [file, argv] = withParentDeathSignal("Xvfb", args);
  const child: ChildProcess = spawn(file, argv, { stdio: ["ignore", "ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const timeoutMs = opts.startTimeoutMs ?? 10_000;
  const displayNumber = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`Xvfb did not start within ${timeoutMs} ms: ${stderr.trim()}`));
    }, timeoutMs);
    (child.stdio[3] as Readable).on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) {
        clearTimeout(timer);
        resolve(out.trim());
      }
    });
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(new Error(`cannot run Xvfb (${err.message}); install it: apt-get install xvfb`));
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb exited (${signal ?? `code ${code}`}) before it was ready: ${stderr.trim()}`));
    });
  });
  return {
    display: `:${displayNumber}`,
    width,
    height,
    pid: child.pid!,
    exited,
    async stop(graceMs = 3_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      child.kill("SIGTERM");
      await exited;
      clearTimeout(timer);
    },
  };
}

/** `file args` run so that it gets SIGKILL when its parent dies (Linux with util-linux's setpriv), else as it is. */
function withParentDeathSignal(file: string, args: string[]): [string, string[]] {
  const setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => process.platform === "linux" && existsSync(p));
  return setpriv ? [setpriv, ["--pdeathsig", "KILL", "--", file, ...args]] : [file, args];
}
