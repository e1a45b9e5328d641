import { CommandExitError, type wire } from "@pincer/shared";
import type { PromiseClient, ServerStreamCall } from "./rpc.js";
import type { CallOptions } from "./types.js";
import { toWindowInfo, type WindowInfo } from "./windows.js";

/** Options of {@link ProcessApi.run}. */
export interface RunOptions extends CallOptions {
  /** Working directory on the machine. @default the daemon's home directory */
  cwd?: string;
  /** Added to the daemon's environment. */
  env?: Record<string, string>;
  /** Bytes written to the command's standard input, which is then closed. */
  stdin?: string | Uint8Array;
  /**
   * How long the command may run before its process group is killed, in ms. Separate from the
   * RPC deadline (`timeoutMs`), which defaults to this plus 30 s. @default 600_000
   */
  commandTimeoutMs?: number;
  /** Bytes kept of each of stdout and stderr. @default 16 MiB */
  maxOutputBytes?: number;
  /** Throw CommandExitError when the command does not exit 0. @default false */
  check?: boolean;
}

/** Options of {@link ProcessApi.start}. */
export type StartOptions = Omit<RunOptions, "check" | "maxOutputBytes">;

/** How a command ended. */
export interface ProcessExit {
  /** null when a signal ended the command. */
  exitCode: number | null;
  /** The signal that ended it ("SIGKILL"), or null. */
  signal: string | null;
  /** True when `commandTimeoutMs` passed and the daemon killed its process group. */
  timedOut: boolean;
  durationMs: number;
}

/** A finished command and its output. */
export interface ExecResult extends ProcessExit {
  stdout: string;
  stderr: string;
  stdoutBytes: Buffer;
  stderrBytes: Buffer;
  /** True when stdout went over `maxOutputBytes` and was cut. */
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  pid: number;
}

/** One event of a started command, in order: started, output, exited. */
export type ProcessEvent =
  | { type: "started"; pid: number }
  | { type: "stdout"; data: Buffer }
  | { type: "stderr"; data: Buffer }
  | ({ type: "exited" } & ProcessExit);

/**
 * A running command. Iterate it (once) for its events; or `await wait()` for how it ended, which
 * reads and drops the output nobody iterates. `kill()` cancels the call, which kills the command's
 * process group.
 */
export interface ProcessHandle extends AsyncIterable<ProcessEvent> {
  /** The command's process id, once the daemon has started it; rejects when it could not start. */
  readonly pid: Promise<number>;
  /** How the command ended; rejects when it could not start, the call failed, or it was killed. */
  wait(): Promise<ProcessExit>;
  /** Stops the command (its whole process group) and ends the events without an error. */
  kill(): void;
}

/** A process the daemon started and still tracks. */
export interface ProcessInfo {
  pid: number;
  argv: string[];
  /** "run", "start" or "launch": the call that started it. */
  kind: string;
  /** When it started, in milliseconds since the epoch. */
  startedMs: number;
}

/** Options of {@link ProcessApi.launch}. */
export interface LaunchOptions extends CallOptions {
  /** Working directory on the machine. @default the daemon's home directory */
  cwd?: string;
  /** Added to the daemon's environment. */
  env?: Record<string, string>;
  /** Wait until a window whose title contains this appears. */
  waitForTitle?: string;
  /** Wait until a window with this WM_CLASS instance or class appears. */
  waitForClass?: string;
  /** How long to wait for the window, in ms. @default 10_000 */
  waitTimeoutMs?: number;
}

/** What {@link ProcessApi.launch} returns. */
export interface LaunchResult {
  pid: number;
  /** The window waited for, or null when none was asked for. */
  window: WindowInfo | null;
}

/** Commands on the machine. Every command leads its own process group. */
export interface ProcessApi {
  /** Runs a command: an argv array (no shell) or a shell command line. A non-zero exit is a result unless `check`. */
  run(command: string[] | string, opts?: RunOptions): Promise<ExecResult>;
  /** Starts a command and yields its events as they happen. */
  start(command: string[] | string, opts?: StartOptions): ProcessHandle;
  /** Signals a process this daemon started (and its group). @default "SIGTERM" */
  signal(pid: number, signal?: string, opts?: CallOptions): Promise<void>;
  /** The processes this daemon started that are still running. */
  list(opts?: CallOptions): Promise<ProcessInfo[]>;
  /** Starts a GUI program detached, optionally waiting for its window. */
  launch(command: string[] | string, opts?: LaunchOptions): Promise<LaunchResult>;
}

/** Default lifetime of a command, in ms. */
const DEFAULT_COMMAND_TIMEOUT_MS = 600_000;
/** How much longer than the command's own timeout the RPC may take by default, in ms. */
const RPC_SLACK_MS = 30_000;

function commandFields(command: string[] | string, opts: StartOptions & { maxOutputBytes?: number }): wire.RunRequest {
  return {
    ...(typeof command === "string" ? { shell: command } : { argv: command }),
    cwd: opts.cwd ?? "",
    env: opts.env ?? {},
    stdin: opts.stdin === undefined ? Buffer.alloc(0) : typeof opts.stdin === "string" ? Buffer.from(opts.stdin) : Buffer.from(opts.stdin),
    timeoutMs: opts.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    maxOutputBytes: opts.maxOutputBytes ?? 0,
  };
}

/** The RPC deadline of a command: the caller's, or the command's lifetime plus slack. */
function rpcTimeoutMs(opts: StartOptions): number {
  return opts.timeoutMs ?? (opts.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS) + RPC_SLACK_MS;
}

function describe(command: string[] | string): string {
  return typeof command === "string" ? command : command.map((a) => (/^[\w./=:-]+$/.test(a) ? a : JSON.stringify(a))).join(" ");
}

function toExecResult(r: wire.RunResponse__Output): ExecResult {
  return {
    exitCode: r.exitCode ?? null,
    signal: r.signal || null,
    stdout: r.stdout.toString("utf8"),
    stderr: r.stderr.toString("utf8"),
    stdoutBytes: r.stdout,
    stderrBytes: r.stderr,
    timedOut: r.timedOut,
    stdoutTruncated: r.stdoutTruncated,
    stderrTruncated: r.stderrTruncated,
    durationMs: r.durationMs,
    pid: r.pid,
  };
}

function checkExit(command: string[] | string, result: ExecResult, opts: RunOptions): void {
  if (result.exitCode === 0) return;
  const how = result.timedOut
    ? `timed out after ${opts.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS} ms`
    : result.exitCode === null
      ? `was killed by ${result.signal}`
      : `exited with code ${result.exitCode}`;
  const tail = result.stderr.trim().split("\n").slice(-5).join("\n");
  throw new CommandExitError(`command ${describe(command)} ${how}${tail ? `:\n${tail}` : ""}`, result);
}

function toProcessEvent(ev: wire.StartResponse__Output): ProcessEvent | undefined {
  if (ev.event === "started" && ev.started) return { type: "started", pid: ev.started.pid };
  if (ev.event === "stdout" && ev.stdout) return { type: "stdout", data: ev.stdout };
  if (ev.event === "stderr" && ev.stderr) return { type: "stderr", data: ev.stderr };
  if (ev.event === "exited" && ev.exited) {
    const e = ev.exited;
    return { type: "exited", exitCode: e.exitCode ?? null, signal: e.signal || null, timedOut: e.timedOut, durationMs: e.durationMs };
  }
  return undefined;
}

/** A deferred value: a promise and the functions that settle it. */
function deferred<T>(): { promise: Promise<T>; resolve(v: T): void; reject(e: unknown): void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Read only by those who ask; an unread failure is not an unhandled rejection.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** A {@link ProcessHandle} over one Start call. */
function processHandle(call: ServerStreamCall<wire.StartResponse__Output>, label: string): ProcessHandle {
  const source = call[Symbol.asyncIterator]();
  const pid = deferred<number>();
  const exit = deferred<ProcessExit>();
  let pulling: Promise<unknown> = Promise.resolve();
  // Events read before anyone iterated (to learn the pid), in order, as promises.
  const early: Array<Promise<ProcessEvent | undefined>> = [];
  let iterating = false;
  let seenStart = false;

  /** The next event, or undefined at the end; reads are serialized, so their order is the stream's. */
  const pull = (): Promise<ProcessEvent | undefined> => {
    const next = pulling.then(async () => {
      for (;;) {
        const r = await source.next();
        if (r.done) return undefined;
        const ev = toProcessEvent(r.value);
        if (ev?.type === "started") {
          seenStart = true;
          pid.resolve(ev.pid);
        }
        if (ev?.type === "exited") exit.resolve({ exitCode: ev.exitCode, signal: ev.signal, timedOut: ev.timedOut, durationMs: ev.durationMs });
        if (ev) return ev;
      }
    });
    next.then(
      (ev) => {
        if (ev) return;
        const ended = new Error(`${label}: the command's events ended before it exited (killed)`);
        pid.reject(ended);
        exit.reject(ended);
      },
      (err: unknown) => {
        pid.reject(err);
        exit.reject(err);
      },
    );
    pulling = next.catch(() => undefined);
    return next;
  };

  async function* events(): AsyncGenerator<ProcessEvent> {
    if (iterating) throw new Error(`${label}: the events of a command can be read once`);
    iterating = true;
    for (;;) {
      const ev = await (early.shift() ?? pull());
      if (!ev) return;
      yield ev;
    }
  }

  return {
    get pid() {
      // Nobody reads the events yet: read up to the first one, kept for whoever iterates later.
      if (!iterating && !seenStart && early.length === 0) early.push(pull());
      return pid.promise;
    },
    [Symbol.asyncIterator]: events,
    kill: () => call.cancel(),
    async wait() {
      if (!iterating) for await (const _ of events());
      return exit.promise;
    },
  };
}

/** `env.process` over the Process service. */
export function createProcessApi(process: PromiseClient<"Process">): ProcessApi {
  return {
    async run(command, opts = {}) {
      const result = toExecResult(await process.Run(commandFields(command, opts), { ...opts, timeoutMs: rpcTimeoutMs(opts) }));
      if (opts.check) checkExit(command, result, opts);
      return result;
    },
    start(command, opts = {}) {
      const call = process.Start(commandFields(command, opts), { ...opts, timeoutMs: rpcTimeoutMs(opts) });
      return processHandle(call, `Process/Start ${describe(command)}`);
    },
    async signal(pid, signal = "SIGTERM", opts = {}) {
      await process.Signal({ pid, signal }, opts);
    },
    async list(opts = {}) {
      const r = await process.List({}, opts);
      return r.processes.map((p) => ({ pid: p.pid, argv: p.argv, kind: p.kind, startedMs: p.startedMs }));
    },
    async launch(command, opts = {}) {
      const waitTimeoutMs = opts.waitTimeoutMs ?? 10_000;
      const r = await process.Launch(
        {
          ...(typeof command === "string" ? { shell: command } : { argv: command }),
          cwd: opts.cwd ?? "",
          env: opts.env ?? {},
          waitForTitle: opts.waitForTitle ?? "",
          waitForClass: opts.waitForClass ?? "",
          waitTimeoutMs,
        },
        { ...opts, timeoutMs: opts.timeoutMs ?? waitTimeoutMs + RPC_SLACK_MS },
      );
      return { pid: r.pid, window: r.window ? toWindowInfo(r.window) : null };
    },
  };
}
