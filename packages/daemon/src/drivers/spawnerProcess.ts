/**
 * The daemon's Node spawner: a small child process that starts commands on the daemon's behalf.
 * The native pincer-spawner (native/spawner.c) does the same faster and is used when it was
 * built; this one is the fallback where no C compiler was available, used only with
 * --allow-node-spawner (PINCER_SPAWNER=node forces it).
 *
 * Why: fork() time grows with the parent's resident memory. Measured in one Node process, spawning
 * `true` took 1.6 ms with a small heap and 11 ms with 150 MB of buffers resident; the daemon holds
 * 100-230 MB (sharp, nut-js, screenshot buffers). This process stays small, so its forks stay fast.
 *
 * Protocol (IPC, advanced serialization): the daemon sends `spawn` requests; this process answers
 * `spawned` (pid) or `error`, then `stdout`/`stderr` chunks in order, then `exit` once the pipes
 * closed (at most 200 ms after the exit, so a grandchild holding them cannot hold the result, unless
 * the output is paused). `pause` stops and resumes reading a command's output; `kill` sends SIGKILL
 * to its process group. It imports nothing but node:child_process and node:fs. When the daemon goes away (the
 * IPC channel closes), it kills every process group it started and exits. Unlike the native
 * spawner it cannot follow a process that leaves its group (setsid): that needs a child subreaper
 * (prctl, out of Node's reach) or a cgroup entered before exec, so the daemon refuses it by default.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";

interface SpawnRequest {
  op: "spawn";
  id: number;
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  stdin: Uint8Array | null;
  detachedIo: boolean;
  /** `cwd` is the daemon's default: / where it does not exist. */
  defaultCwd?: boolean;
}

const live = new Map<number, ChildProcess>();
/** Commands by the daemon's id, while they run. */
const byId = new Map<number, ChildProcess>();
/** Ids of the commands whose output is paused. */
const paused = new Set<number>();
const send = (msg: Record<string, unknown>) => process.send?.(msg);

function start(req: SpawnRequest): void {
  const hasStdin = req.stdin !== null && req.stdin.length > 0;
  const io = req.detachedIo ? "ignore" : "pipe";
  let child: ChildProcess;
  try {
    child = spawn(req.file, req.args, {
      cwd: req.defaultCwd && !existsSync(req.cwd) ? "/" : req.cwd,
      env: req.env,
      detached: true,
      stdio: [hasStdin ? "pipe" : "ignore", io, io],
    });
  } catch (err) {
    send({ op: "error", id: req.id, code: (err as NodeJS.ErrnoException).code ?? "", message: (err as Error).message });
    return;
  }
  const pid = child.pid;
  if (pid === undefined) {
    child.once("error", (err: NodeJS.ErrnoException) => send({ op: "error", id: req.id, code: err.code ?? "", message: err.message }));
    return;
  }
  live.set(pid, child);
  byId.set(req.id, child);
  send({ op: "spawned", id: req.id, pid });
  if (hasStdin) {
    child.stdin!.on("error", () => undefined); // the command may exit without reading it all
    child.stdin!.end(req.stdin);
  }
  // Output waits in the pipe while the IPC channel has a backlog, as it does while paused.
  for (const [op, stream] of [
    ["stdout", child.stdout],
    ["stderr", child.stderr],
  ] as const) {
    stream?.on("data", (data: Buffer) => {
      const flowing = process.send?.({ op, id: req.id, data }, undefined, {}, () => {
        if (!paused.has(req.id)) stream.resume();
      });
      if (!flowing) stream.pause();
    });
  }
  child.once("exit", (code, signal) => {
    live.delete(pid);
    let sent = false;
    const done = () => {
      if (sent) return;
      sent = true;
      byId.delete(req.id);
      paused.delete(req.id);
      send({ op: "exit", id: req.id, code, signal });
    };
    if (req.detachedIo) return done();
    // Paused output is not given up on: the daemon reads it when its client does.
    let timer: NodeJS.Timeout;
    const grace = () => {
      if (paused.has(req.id)) timer = setTimeout(grace, 200);
      else done();
    };
    timer = setTimeout(grace, 200);
    child.once("close", () => {
      clearTimeout(timer);
      done();
    });
  });
}

/** Stops or resumes reading a command's output (the daemon's backpressure). */
function pause(id: number, on: boolean): void {
  const child = byId.get(id);
  if (!child) return;
  if (on) paused.add(id);
  else paused.delete(id);
  for (const stream of [child.stdout, child.stderr]) {
    if (on) stream?.pause();
    else stream?.resume();
  }
}

/** SIGKILL to a command's process group (this spawner cannot follow a process that left it). */
function kill(id: number): void {
  const pid = byId.get(id)?.pid;
  try {
    if (pid) process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

type Request = SpawnRequest | { op: "pause"; id: number; paused: boolean } | { op: "kill"; id: number };

process.on("message", (msg: Request) => {
  if (msg?.op === "spawn") start(msg);
  else if (msg?.op === "pause") pause(msg.id, msg.paused);
  else if (msg?.op === "kill") kill(msg.id);
});

process.on("disconnect", () => {
  for (const pid of live.keys()) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  process.exit(0);
});
