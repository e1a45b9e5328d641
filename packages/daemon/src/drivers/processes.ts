import { existsSync } from "node:fs";
import { Spawner } from "./spawner.js";
import { homedir } from "node:os";

export interface CommandSpec {
  /** Program and arguments; or `shell` for a /bin/sh command line. */
  argv: string[];
  shell: string;
  cwd: string;
  env: Record<string, string>;
  stdin?: Buffer;
}

export interface ExitInfo {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
}

export type ProcessKind = "run" | "start" | "launch";

interface Tracked {
  pid: number;
  argv: string[];
  kind: ProcessKind;
  startedMs: number;
}

/** Time between SIGTERM and SIGKILL when a process group is stopped. */
export const KILL_GRACE_MS = 2_000;

/** Sends `signal` to the whole process group led by `pid`; false when it is gone. */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to the group, SIGKILL after the grace period if anything of it is still there. */
export function stopGroup(pid: number, graceMs = KILL_GRACE_MS): void {
  if (!signalGroup(pid, "SIGTERM")) return;
  setTimeout(() => signalGroup(pid, "SIGKILL"), graceMs).unref();
}

/**
 * Starts and tracks the commands of this daemon. Each command leads its own process group
 * (spawned detached), so stopping it reaches its children and grandchildren.
 *
 * Commands start in a small spawner process: the native pincer-spawner (native/spawner.c,
 * posix_spawn) when it was built, else a forked Node process (spawnerProcess.ts). fork() time grows
 * with the parent's resident memory, and the daemon's is large. execa is not used: it was measured here at
 * about 1.3 ms of option normalisation and stream wiring per call on top of the spawn itself (CPU
 * profile of 400 runs of `true`), on a path whose budget is 1.5 ms above a bare spawn in all; what it
 * adds (buffering, timeouts, cleanup) is replaced by output caps, process-group timeouts and
 * daemon-shutdown cleanup, which execa does not offer for whole groups.
 */
export class ProcessTable {
  private readonly tracked = new Map<number, Tracked>();
  /** Spawns asked for whose pid has not arrived yet. */
  private starting = 0;

  private readonly spawner = new Spawner();

  /** The daemon's environment with `baseEnv` on top, taken once: reading process.env costs on every call. */
  private readonly baseEnv: Record<string, string>;

  constructor(baseEnv: Record<string, string> = {}) {
    this.baseEnv = { ...(process.env as Record<string, string>), ...baseEnv };
  }

  /**
   * Spawns a command (through the spawner process) and resolves once it runs. Output goes to the
   * callbacks in the order it arrives. The command is stopped (its whole group) when `timeoutMs`
   * passes or `signal` aborts. Rejects with the OS error (ENOENT, EACCES) when it cannot start.
   */
  async spawn(
    spec: CommandSpec,
    kind: ProcessKind,
    opts: {
      timeoutMs: number;
      signal?: AbortSignal;
      /** Called with the pid before any output callback. */
      onStarted?: (pid: number) => void;
      onStdout?: (b: Buffer) => void;
      onStderr?: (b: Buffer) => void;
      detachedIo?: boolean;
    },
  ): Promise<{ pid: number; exited: Promise<ExitInfo> }> {
    const [file, args] = spec.shell ? ["/bin/sh", ["-c", spec.shell]] : [spec.argv[0]!, spec.argv.slice(1)];
    const started = performance.now();
    // Counted from the call on, with no await before it, so that calls admitted at once against
    // `count()` cannot overshoot a limit.
    this.starting += 1;
    const { command, pid: running } = this.spawnCounted(
      {
        file,
        args,
        // The home directory may not exist (system users such as nobody): spawn would blame the program.
        cwd: spec.cwd || (existsSync(homedir()) ? homedir() : "/"),
        env: { ...this.baseEnv, ...spec.env },
        ...(spec.stdin ? { stdin: spec.stdin } : {}),
        detachedIo: opts.detachedIo ?? false,
      },
      opts.onStarted,
    );
    // Listen before the pid arrives: output can follow right behind it.
    if (opts.onStdout) command.on("stdout", opts.onStdout);
    if (opts.onStderr) command.on("stderr", opts.onStderr);
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      command.once("exit", (code, signal) => resolve({ code, signal })),
    );
    let pid: number;
    try {
      pid = await running;
    } finally {
      this.starting -= 1;
    }
    this.tracked.set(pid, { pid, argv: spec.shell ? ["/bin/sh", "-c", spec.shell] : spec.argv, kind, startedMs: Date.now() });

    let timedOut = false;
    const timer =
      opts.timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            stopGroup(pid);
          }, opts.timeoutMs)
        : undefined;
    const onAbort = () => stopGroup(pid);
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener("abort", onAbort, { once: true });

    const exited = exit.then(({ code, signal }) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      this.tracked.delete(pid);
      if (timedOut || opts.signal?.aborted) signalGroup(pid, "SIGKILL");
      return { exitCode: code, signal, timedOut, durationMs: performance.now() - started };
    });
    return { pid, exited };
  }

  /** `spawner.spawn`, giving back the count taken in `spawn` should it throw. */
  private spawnCounted(...args: Parameters<Spawner["spawn"]>): ReturnType<Spawner["spawn"]> {
    try {
      return this.spawner.spawn(...args);
    } catch (err) {
      this.starting -= 1;
      throw err;
    }
  }

  /** Commands running or being started: what limits such as --max-processes count. */
  count(): number {
    return this.tracked.size + this.starting;
  }

  list(): Tracked[] {
    return [...this.tracked.values()];
  }

  has(pid: number): boolean {
    return this.tracked.has(pid);
  }

  /** Stops every tracked process group and the spawner (daemon shutdown). */
  stopAll(): void {
    for (const pid of this.tracked.keys()) {
      signalGroup(pid, "SIGTERM");
      signalGroup(pid, "SIGKILL");
    }
    this.tracked.clear();
    this.spawner.close();
  }
}

/** Signal names a client may send. */
export const ALLOWED_SIGNALS = ["SIGTERM", "SIGKILL", "SIGINT", "SIGHUP", "SIGQUIT", "SIGSTOP", "SIGCONT", "SIGUSR1", "SIGUSR2"] as const;
