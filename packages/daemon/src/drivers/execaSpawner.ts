import { execFile } from "node:child_process";
import { EventEmitter } from "node:events";
import { execa, type ResultPromise } from "execa";
import { existsSync } from "node:fs";
import type { CommandSpawner } from "./drivers.js";
import { type SpawnedCommand, type SpawnRequest, signalGroup } from "./spawner.js";

/** What execa cannot do that the native spawner does, for the daemon's start warning. */
export const EXECA_GAP =
  "a process that leaves its command's process group (setsid, a double fork, daemon(3)) outlives the command's timeout, its cancel " +
  "and the daemon's stop; use the native drivers on Linux to follow such processes through a cgroup";

/** `taskkill` on the tree led by `pid` (Windows): /F kills at once, without it the windows are asked to close. */
function taskkill(pid: number, force: boolean): boolean {
  execFile("taskkill", ["/PID", String(pid), "/T", ...(force ? ["/F"] : [])], { windowsHide: true }, () => undefined);
  return true;
}

/**
 * Starts commands with execa (the portable driver set). Each command leads a process group of its
 * own on Linux and macOS (`detached`), so a signal reaches its children and grandchildren; on
 * Windows a tree is killed with `taskkill /T`. Unlike the native spawner, nothing follows a
 * process that leaves its command's group (setsid, a double fork): a stop cannot reach it.
 * Output streams as it comes; a paused command blocks once its pipes fill.
 */
export class ExecaSpawner implements CommandSpawner {
  private nextId = 1;
  private readonly running = new Map<number, ResultPromise>();
  private readonly paused = new Set<number>();

  constructor(private readonly platform: NodeJS.Platform = process.platform) {}

  spawn(req: SpawnRequest, onSpawned?: (pid: number) => void): { command: SpawnedCommand; pid: Promise<number>; id: number } {
    const command = new EventEmitter() as SpawnedCommand;
    const id = this.nextId++;
    const io = req.detachedIo ? "ignore" : "pipe";
    const sub = execa(req.file, req.args, {
      cwd: req.defaultCwd && !existsSync(req.cwd) ? "/" : req.cwd,
      env: req.env,
      extendEnv: false,
      ...(req.stdin ? { input: req.stdin } : { stdin: "ignore" as const }),
      stdout: io,
      stderr: io,
      detached: true,
      buffer: false,
      reject: false,
      // The process table stops commands itself, whole groups at a time.
      cleanup: false,
      windowsHide: true,
    });
    this.running.set(id, sub);
    const pid = new Promise<number>((resolve, reject) => {
      sub.once("spawn", () => {
        // Synchronously, before any output event.
        onSpawned?.(sub.pid!);
        resolve(sub.pid!);
      });
      sub.once("error", (err) => {
        if (sub.pid === undefined) reject(err);
      });
    });
    let exited = false;
    sub.stdout?.on("data", (d: Buffer) => exited || command.emit("stdout", d));
    sub.stderr?.on("data", (d: Buffer) => exited || command.emit("stderr", d));
    // As the native spawner: the exit follows the command's output, once both pipes closed, or
    // 200 ms after the command exited when a process it left running still holds them (xclip
    // serving the clipboard), so that such a process cannot hold the result. Not while paused.
    sub.once("exit", (code, signal) => {
      const done = () => {
        if (exited) return;
        exited = true;
        command.emit("exit", code, signal);
      };
      if (req.detachedIo) return done();
      let timer: NodeJS.Timeout;
      const grace = () => {
        timer = setTimeout(() => (this.paused.has(id) ? grace() : done()), 200);
      };
      grace();
      sub.once("close", () => {
        clearTimeout(timer);
        done();
      });
    });
    // Kept until the pipes close, so that a stop after the exit still reaches what the command left in its group.
    sub.once("close", () => {
      this.running.delete(id);
      this.paused.delete(id);
    });
    // execa's own result (it settles when the pipes close) is not needed: the events above carry it.
    void sub.catch(() => undefined);
    pid.catch(() => this.running.delete(id));
    return { command, pid, id };
  }

  pause(id: number, paused: boolean): void {
    const sub = this.running.get(id);
    if (paused) this.paused.add(id);
    else this.paused.delete(id);
    for (const s of [sub?.stdout, sub?.stderr]) {
      if (!s) continue;
      if (paused) s.pause();
      else s.resume();
    }
  }

  kill(id: number): void {
    const pid = this.running.get(id)?.pid;
    if (pid !== undefined) this.signal(pid, "SIGKILL");
  }

  signal(pid: number, signal: NodeJS.Signals): boolean {
    if (this.platform === "win32") {
      if (signal === "SIGKILL" || signal === "SIGTERM") return taskkill(pid, signal === "SIGKILL");
      try {
        return process.kill(pid, signal);
      } catch {
        return false;
      }
    }
    return signalGroup(pid, signal);
  }

  /** Nothing to start ahead: execa makes each command's process from the daemon's. */
  warmUp(): void {}

  close(): void {
    for (const sub of this.running.values()) if (sub.pid !== undefined) this.signal(sub.pid, "SIGKILL");
    this.running.clear();
  }
}
