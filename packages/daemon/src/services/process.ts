import { stat } from "node:fs/promises";
import { isAbsolute } from "node:path";
import type * as grpc from "@grpc/grpc-js";
import {
  echo,
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
  PermissionDeniedError,
  quoted,
  ResourceExhaustedError,
  TimeoutError,
  type RequestOutputOf,
  type ResponseOf,
  sleep,
} from "@pincer/shared";
import type { DriverSet, WindowsDriver } from "../drivers/drivers.js";
import { ALLOWED_SIGNALS, type CommandControl, type CommandSpec, type ExitInfo, type ProcessTable } from "../drivers/processes.js";
import type { WindowInfo } from "../drivers/windows.js";
import { windowToWire } from "./system.js";
import type { Logger } from "../logger.js";
import { outputOverLimit, tooManyProcesses, type ProcessPolicy } from "../security/policy.js";
import { absolutePath } from "./paths.js";
import { defineService, type DefinedService } from "./rpc.js";
import { intInRange } from "./validate.js";

/** Default and largest command timeout, in ms. */
export const DEFAULT_TIMEOUT_MS = 10 * 60_000;
export const MAX_TIMEOUT_MS = 24 * 3600_000;
/** Default and largest bytes kept of each output stream of Run. */
export const DEFAULT_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
export const MAX_OUTPUT_BYTES = 32 * 1024 * 1024;

/** Validates a command; a missing working directory is NOT_FOUND (spawn would blame the program). */
async function validCommand(
  req: { argv: string[]; shell: string; cwd: string; env: Record<string, string>; stdin?: Buffer },
  policy: Partial<ProcessPolicy> = {},
): Promise<CommandSpec> {
  if (req.argv.length > 0 && req.shell) throw InvalidArgumentError.forField(["argv", "shell"], "set exactly one of them, not both");
  if (req.argv.length === 0 && !req.shell)
    throw InvalidArgumentError.forField("argv", 'give a program and its arguments, e.g. ["ls", "-la"], or a shell command line');
  if (req.argv.length > 0 && !req.argv[0]) throw InvalidArgumentError.forField("argv[0]", "the program name is empty");
  if (req.cwd && !isAbsolute(req.cwd)) throw InvalidArgumentError.forField("cwd", `${quoted(req.cwd)} is not absolute`);
  for (const [key, value] of Object.entries(req.env)) {
    if (!key || key.includes("=") || key.includes("\0")) throw InvalidArgumentError.forField("env", `${quoted(key)} is not a valid variable name`);
    if (value.includes("\0")) throw InvalidArgumentError.forField(`env.${echo(key)}`, "a value cannot contain a NUL byte");
  }
  req.argv.forEach((a, i) => {
    if (a.includes("\0")) throw InvalidArgumentError.forField(`argv[${i}]`, `an argument cannot contain a NUL byte`);
  });
  if (req.shell.includes("\0")) throw InvalidArgumentError.forField("shell", "a command line cannot contain a NUL byte");
  if (req.cwd.includes("\0")) throw InvalidArgumentError.forField("cwd", "a path cannot contain a NUL byte");
  if (req.cwd) {
    if (policy.fileRoot) absolutePath(req.cwd, "cwd", policy.fileRoot);
    const st = await stat(req.cwd).catch(() => undefined);
    if (!st?.isDirectory()) throw new NotFoundError(`cwd: ${echo(req.cwd)}: no such directory`);
  }
  const spec = { argv: req.argv, shell: req.shell, cwd: req.cwd || (policy.fileRoot ?? ""), env: req.env, stdin: req.stdin };
  policy.allowlist?.check(spec);
  return spec;
}

/** Turns a failure to spawn (an errno code from execve or fork) into a typed error naming the program. */
function spawnError(err: unknown, spec: CommandSpec): Error {
  const code = (err as NodeJS.ErrnoException).code;
  const what = quoted(spec.shell ? "/bin/sh" : (spec.argv[0] ?? ""));
  switch (code) {
    case "ENOENT":
      return new NotFoundError(`argv[0]: program ${what} not found (is it installed and on PATH?)`);
    case "ENOTDIR":
      return new NotFoundError(`argv[0]: program ${what} not found (a parent of it is not a directory)`);
    case "EACCES":
    case "EPERM":
      return new PermissionDeniedError(`argv[0]: ${what} is not executable`);
    case "ENAMETOOLONG":
      return InvalidArgumentError.forField("argv[0]", `${what}: name too long (Linux allows 255 bytes per name and 4095 per path)`);
    case "E2BIG":
      return InvalidArgumentError.forField(
        spec.shell ? "shell" : "argv",
        "the arguments and environment are too large for one command (Linux allows 128 KiB per string, about 2 MiB in all); pass data through stdin or a file",
      );
    case "ENOEXEC":
      return InvalidArgumentError.forField("argv[0]", `${what} is not a program this system can run (no #! line, or another architecture)`);
    case "ELOOP":
      return InvalidArgumentError.forField("argv[0]", `${what}: too many levels of symbolic links`);
    case "ETXTBSY":
      return new FailedPreconditionError(`argv[0]: ${what} is open for writing (an upload in progress?); retry when it is closed`);
    case "EAGAIN":
    case "ENOMEM":
    case "EMFILE":
    case "ENFILE":
      return new ResourceExhaustedError(`argv[0]: ${what} could not start: the machine is out of processes, memory or file descriptors (${code})`);
    default:
      return err instanceof Error ? err : new Error(String(err));
  }
}

function exitFields(e: ExitInfo) {
  return {
    ...(e.exitCode === null ? {} : { exitCode: e.exitCode }),
    signal: e.signal ?? "",
    timedOut: e.timedOut,
    durationMs: Math.round(e.durationMs),
  };
}

/** Keeps the first `max` bytes of a stream and counts the rest. */
class Capped {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly max: number) {}
  push = (b: Buffer) => {
    const room = this.max - this.size;
    if (room <= 0) {
      this.truncated = true;
      return;
    }
    const part = b.length > room ? b.subarray(0, room) : b;
    if (part.length < b.length) this.truncated = true;
    this.chunks.push(part);
    this.size += part.length;
  };
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

function matches(w: WindowInfo, title: string, klass: string): boolean {
  if (title && !w.title.includes(title)) return false;
  if (klass && w.class !== klass && w.instance !== klass) return false;
  return true;
}

export function processService(
  table: ProcessTable,
  drivers: DriverSet,
  log: Logger,
  policy: ProcessPolicy = { maxProcesses: Infinity, maxOutputBytes: MAX_OUTPUT_BYTES },
): DefinedService<"Process"> {
  const processes: Processes = { table, drivers, policy };
  return defineService("Process", log, {
    Run: (req, ctx) => run(processes, req, ctx.signal),
    Start: (call, ctx) => start(processes, call, ctx.signal),
    Signal: async (req) => sendSignal(table, req),
    List: async () => ({
      processes: table.list().map((p) => ({ pid: p.pid, argv: p.argv, kind: p.kind, startedMs: p.startedMs })),
    }),
    Launch: (req, ctx) => launch(processes, req, ctx.signal),
  });
}

/** What the Process methods share: the table of the commands started, the display, the policy. */
interface Processes {
  table: ProcessTable;
  drivers: DriverSet;
  policy: ProcessPolicy;
}

function timeoutOf(ms: number): number {
  return ms === 0 ? DEFAULT_TIMEOUT_MS : intInRange(ms, "timeout_ms", 1, MAX_TIMEOUT_MS);
}

/** Checked right before each spawn, with no await in between, so concurrent calls cannot overshoot. */
function admit({ table, policy }: Processes): void {
  const running = table.count();
  if (running >= policy.maxProcesses) throw tooManyProcesses(running, policy.maxProcesses);
}

/** Runs a command to its end and answers with its exit and captured output. */
async function run(p: Processes, req: RequestOutputOf<"Process", "Run">, signal: AbortSignal): Promise<ResponseOf<"Process", "Run">> {
  const spec = await validCommand(req, p.policy);
  if (req.maxOutputBytes > p.policy.maxOutputBytes) throw outputOverLimit(req.maxOutputBytes, p.policy.maxOutputBytes);
  const cap =
    req.maxOutputBytes === 0
      ? Math.min(DEFAULT_MAX_OUTPUT_BYTES, p.policy.maxOutputBytes)
      : intInRange(req.maxOutputBytes, "max_output_bytes", 1, MAX_OUTPUT_BYTES);
  const stdout = new Capped(cap);
  const stderr = new Capped(cap);
  admit(p);
  const { pid, exited } = await p.table
    .spawn(spec, "run", { timeoutMs: timeoutOf(req.timeoutMs), signal, onStdout: stdout.push, onStderr: stderr.push })
    .catch((err: unknown) => Promise.reject(spawnError(err, spec)));
  const e = await exited;
  return {
    ...exitFields(e),
    stdout: stdout.bytes(),
    stderr: stderr.bytes(),
    stdoutTruncated: stdout.truncated,
    stderrTruncated: stderr.truncated,
    pid,
  };
}

/** Starts a command and streams its start, output and exit to `call`. */
async function start(
  p: Processes,
  call: grpc.ServerWritableStream<RequestOutputOf<"Process", "Start">, ResponseOf<"Process", "Start">>,
  signal: AbortSignal,
): Promise<void> {
  const spec = await validCommand(call.request, p.policy);
  // Output is forwarded as it comes. When the client reads slower than the command writes, grpc-js
  // buffers, write() returns false, and the command's output stops being read until 'drain': the
  // command then blocks on its full pipes, and the daemon holds a bounded amount of its output.
  let control: CommandControl | undefined;
  let paused = false;
  const forward = (field: "stdout" | "stderr") => (b: Buffer) => {
    // After a cancel nobody reads: the output is dropped so the command can be stopped.
    if (signal.aborted) return;
    if (call.write({ [field]: b }) || paused || !control) return;
    paused = true;
    control.pause(true);
    call.once("drain", () => {
      paused = false;
      control?.pause(false);
    });
  };
  admit(p);
  const { exited } = await p.table
    .spawn(spec, "start", {
      timeoutMs: timeoutOf(call.request.timeoutMs),
      signal,
      // The started event goes out before the first output chunk.
      onStarted: (pid, c) => {
        control = c;
        call.write({ started: { pid } });
      },
      onStdout: forward("stdout"),
      onStderr: forward("stderr"),
    })
    .catch((err: unknown) => Promise.reject(spawnError(err, spec)));
  const e = await exited;
  if (!signal.aborted) call.write({ exited: exitFields(e) });
}

/** Sends a signal to the process group of a command this daemon started. */
function sendSignal(table: ProcessTable, req: RequestOutputOf<"Process", "Signal">): ResponseOf<"Process", "Signal"> {
  const sig = (req.signal || "SIGTERM").toUpperCase();
  if (!(ALLOWED_SIGNALS as readonly string[]).includes(sig)) {
    throw InvalidArgumentError.forField("signal", `${quoted(req.signal)} is not one of ${ALLOWED_SIGNALS.join(", ")}`);
  }
  if (!table.has(req.pid)) throw new NotFoundError(`pid: ${req.pid} is not a running process started by this daemon`);
  table.signal(req.pid, sig as NodeJS.Signals);
  return {};
}

/** Starts a program on the display, detached, and optionally waits for its window. */
async function launch(p: Processes, req: RequestOutputOf<"Process", "Launch">, signal: AbortSignal): Promise<ResponseOf<"Process", "Launch">> {
  const spec = await validCommand(req, p.policy);
  const waitMs = req.waitTimeoutMs === 0 ? 10_000 : intInRange(req.waitTimeoutMs, "wait_timeout_ms", 1, 600_000);
  // The window list needs the display; fail before starting anything when there is none.
  const windows = await p.drivers.windows();
  spec.env = { ...(p.drivers.displayName ? { DISPLAY: p.drivers.displayName } : {}), ...spec.env };
  admit(p);
  const { pid, exited } = await p.table
    .spawn(spec, "launch", { timeoutMs: 0, detachedIo: true })
    .catch((err: unknown) => Promise.reject(spawnError(err, spec)));
  if (!req.waitForTitle && !req.waitForClass) return { pid, window: null };
  return { pid, window: windowToWire(await waitForWindow(p.table, windows, pid, exited, req, waitMs, signal)) };
}

/**
 * Polls the window list until a window of the launched program appears. Fails when the program
 * exits first; stops the program when the wait times out or the call is cancelled.
 */
async function waitForWindow(
  table: ProcessTable,
  windows: WindowsDriver,
  pid: number,
  exited: Promise<ExitInfo>,
  req: { waitForTitle: string; waitForClass: string },
  waitMs: number,
  signal: AbortSignal,
): Promise<WindowInfo> {
  let exit: ExitInfo | undefined;
  void exited.then((e) => (exit = e));
  const deadline = Date.now() + waitMs;
  for (;;) {
    const found = (await windows.list()).find((w) => matches(w, req.waitForTitle, req.waitForClass));
    if (found) return found;
    if (exit) {
      throw new FailedPreconditionError(
        `the program exited (${exit.exitCode === null ? exit.signal : `code ${exit.exitCode}`}) before a window ` +
          `${req.waitForTitle ? `titled ${quoted(req.waitForTitle)}` : `of class ${quoted(req.waitForClass)}`} appeared`,
      );
    }
    if (Date.now() > deadline || signal.aborted) {
      table.stop(pid);
      const window = req.waitForTitle ? `titled ${quoted(req.waitForTitle)}` : `of class ${quoted(req.waitForClass)}`;
      throw new TimeoutError(`no window ${window} appeared within ${waitMs} ms; the program was stopped`);
    }
    await sleep(100);
  }
}
