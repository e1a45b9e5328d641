import { homedir } from "node:os";
import type { CommandSpawner } from "./drivers.js";
import { Spawner } from "./spawner.js";

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
  /** The spawner's name for the command (what `Spawner.kill` takes). */
  id: number;
  argv: string[];
  kind: ProcessKind;
  startedMs: number;
}

/** What a caller can do to a running command's output. */
export interface CommandControl {
  /** Stops (true) or resumes (false) reading its output; the command blocks once its pipes fill. */
  pause(paused: boolean): void;
}

/** The program and arguments that run a shell command line: /bin/sh -c, or cmd.exe /d /s /c on Windows. */
export function shellArgv(command: string, platform: NodeJS.Platform = process.platform): [string, string[]] {
  if (platform === "win32") return [process.env.ComSpec ?? "cmd.exe", ["/d", "/s", "/c", command]];
  return ["/bin/sh", ["-c", command]];
}

/** Time between SIGTERM and SIGKILL when a process group is stopped. */
export const KILL_GRACE_MS = 2_000;

/**
 * Starts and tracks the commands of this daemon. Each command leads its own process group
 * (spawned detached), so a signal reaches its children and grandchildren; stopping a command
 * (timeout, cancel) also kills what left the group, through the spawner's cgroup for the command.
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

  /** The daemon's environment with `baseEnv` on top, taken once: reading process.env costs on every call. */
  private readonly baseEnv: Record<string, string>;

  /** `spawner`: how commands start (the driver set's: the native spawner, or execa). */
  constructor(
    baseEnv: Record<string, string> = {},
    private readonly spawner: CommandSpawner = new Spawner(),
  ) {
    // Frozen: the native spawner's encoder keeps its encoding (see encodeSpawn).
    this.baseEnv = Object.freeze({ ...(process.env as Record<string, string>), ...baseEnv });
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
      onStarted?: (pid: number, control: CommandControl) => void;
      onStdout?: (b: Buffer) => void;
      onStderr?: (b: Buffer) => void;
      detachedIo?: boolean;
    },
  ): Promise<{ pid: number; exited: Promise<ExitInfo> }> {
    const [file, args] = spec.shell ? shellArgv(spec.shell) : [spec.argv[0]!, spec.argv.slice(1)];
    const started = performance.now();
    // Counted from the call on, with no await before it, so that calls admitted at once against
    // `count()` cannot overshoot a limit.
    this.starting += 1;
    const {
      command,
      pid: running,
      id,
    } = this.spawnCounted(
      {
        file,
        args,
        // The home directory may not exist (system users such as nobody): the spawner then uses /.
        cwd: spec.cwd || homedir(),
        defaultCwd: !spec.cwd,
        env: Object.keys(spec.env).length > 0 ? { ...this.baseEnv, ...spec.env } : this.baseEnv,
        ...(spec.stdin ? { stdin: spec.stdin } : {}),
        detachedIo: opts.detachedIo ?? false,
        // A command run to its end: nobody waits for its pid (see SpawnRequest.latePid).
        latePid: kind === "run",
      },
      opts.onStarted && ((pid) => opts.onStarted!(pid, { pause: (paused) => this.spawner.pause(id, paused) })),
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
    this.tracked.set(pid, { pid, id, argv: spec.shell ? shellArgv(spec.shell).flat() : spec.argv, kind, startedMs: Date.now() });

    let timedOut = false;
    const timer =
      opts.timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            this.stop(pid);
          }, opts.timeoutMs)
        : undefined;
    const onAbort = () => this.stop(pid);
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener("abort", onAbort, { once: true });

    const exited = exit.then(({ code, signal }) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      this.tracked.delete(pid);
      // What the command left behind goes with it, wherever it went.
      if (timedOut || opts.signal?.aborted) this.spawner.kill(id);
      return { exitCode: code, signal, timedOut, durationMs: performance.now() - started };
    });
    return { pid, exited };
  }

  /**
   * Stops a command: SIGTERM to its process group, then after the grace period SIGKILL to
   * everything it started (also what left the group). No-op for a pid this table does not know.
   */
  stop(pid: number, graceMs = KILL_GRACE_MS): void {
    const id = this.tracked.get(pid)?.id;
    if (id === undefined) return;
    // Paused output would keep the command's end from being reported: it is read (and dropped) now.
    this.spawner.pause(id, false);
    this.spawner.signal(pid, "SIGTERM");
    setTimeout(() => {
      this.spawner.signal(pid, "SIGKILL");
      this.spawner.kill(id);
    }, graceMs).unref();
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

  /** Sends `signal` to the process tree of a command this table started; false when it is gone. */
  signal(pid: number, signal: NodeJS.Signals): boolean {
    return this.spawner.signal(pid, signal);
  }

  /**
   * Starts the spawner ahead of the first command (which would otherwise wait 15-25 ms for it), with
   * the environment commands get. A spawner that cannot start now goes to `onError`, not to the
   * caller: the first command tries again and answers with the reason.
   */
  warmUp(onError: (err: unknown) => void): void {
    try {
      this.spawner.warmUp(this.baseEnv);
    } catch (err) {
      onError(err);
    }
  }

  /** Stops every tracked process group and the spawner (daemon shutdown). */
  stopAll(): void {
    for (const pid of this.tracked.keys()) {
      this.spawner.signal(pid, "SIGTERM");
      this.spawner.signal(pid, "SIGKILL");
    }
    this.tracked.clear();
    this.spawner.close();
  }
}

/** Signal names a client may send. */
export const ALLOWED_SIGNALS = ["SIGTERM", "SIGKILL", "SIGINT", "SIGHUP", "SIGQUIT", "SIGSTOP", "SIGCONT", "SIGUSR1", "SIGUSR2"] as const;
