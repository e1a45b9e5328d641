/**
 * The daemon's Node spawner: a small child process that starts commands on the daemon's behalf.
 * The native pincer-spawner (native/spawner.c) does the same faster and is used when it was
 * built; this one is the fallback where no C compiler was available (PINCER_SPAWNER=node forces it).
 *
 * Why: fork() time grows with the parent's resident memory. Measured in one Node process, spawning
 * `true` took 1.6 ms with a small heap and 11 ms with 150 MB of buffers resident; the daemon holds
 * 100-230 MB (sharp, nut-js, screenshot buffers). This process stays small, so its forks stay fast.
 *
 * Protocol (IPC, advanced serialization): the daemon sends `spawn` requests; this process answers
 * `spawned` (pid) or `error`, then `stdout`/`stderr` chunks in order, then `exit` once the pipes
 * closed (at most 200 ms after the exit, so a grandchild holding them cannot hold the result). It
 * imports nothing but node:child_process. When the daemon goes away (the IPC channel closes), it
 * kills every process group it started and exits, so nothing outlives the daemon.
 */
import { spawn, type ChildProcess } from "node:child_process";

interface SpawnRequest {
  op: "spawn";
  id: number;
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  stdin: Uint8Array | null;
  detachedIo: boolean;
}

const live = new Map<number, ChildProcess>();
const send = (msg: Record<string, unknown>) => process.send?.(msg);

function start(req: SpawnRequest): void {
  const hasStdin = req.stdin !== null && req.stdin.length > 0;
  const io = req.detachedIo ? "ignore" : "pipe";
  let child: ChildProcess;
  try {
    child = spawn(req.file, req.args, { cwd: req.cwd, env: req.env, detached: true, stdio: [hasStdin ? "pipe" : "ignore", io, io] });
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
  send({ op: "spawned", id: req.id, pid });
  if (hasStdin) {
    child.stdin!.on("error", () => undefined); // the command may exit without reading it all
    child.stdin!.end(req.stdin);
  }
  child.stdout?.on("data", (data: Buffer) => send({ op: "stdout", id: req.id, data }));
  child.stderr?.on("data", (data: Buffer) => send({ op: "stderr", id: req.id, data }));
  child.once("exit", (code, signal) => {
    live.delete(pid);
    let sent = false;
    const done = () => {
      if (sent) return;
      sent = true;
      send({ op: "exit", id: req.id, code, signal });
    };
    if (req.detachedIo) return done();
    const timer = setTimeout(done, 200);
    child.once("close", () => {
      clearTimeout(timer);
      done();
    });
  });
}

process.on("message", (msg: SpawnRequest) => {
  if (msg?.op === "spawn") start(msg);
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
