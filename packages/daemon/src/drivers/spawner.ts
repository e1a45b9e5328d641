import { fork, spawn, type ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { existsSync } from "node:fs";
import { constants } from "node:os";
import { dirname, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { CommandSpawner, SpawnedCommand, SpawnRequest } from "./drivers.js";

export type { SpawnedCommand, SpawnRequest } from "./drivers.js";

/** A reply from a spawner process, whichever kind. */
export type Reply =
  | { op: "spawned"; id: number; pid: number }
  | { op: "error"; id: number; code: string; message: string }
  | { op: "stdout" | "stderr"; id: number; data: Uint8Array }
  | { op: "exit"; id: number; code: number | null; signal: NodeJS.Signals | null };

/** Sends `signal` to the whole process group led by `pid`; false when it is gone. */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** How commands start: `native` (the pincer-spawner binary, posix_spawn) or `node` (a forked Node process). */
export type SpawnerKind = "native" | "node";

/** Where `npm ci` (or `npm run build:native`) puts the native spawner. */
export const NATIVE_SPAWNER_PATH = resolve(dirname(fileURLToPath(import.meta.url)), "../../native/build/pincer-spawner");

/**
 * The spawner to use: PINCER_SPAWNER=node|native forces one; otherwise the native one when it was
 * built, else the Node one (slower to start each command, same behaviour).
 */
export function chooseSpawner(env: NodeJS.ProcessEnv = process.env): SpawnerKind {
  const asked = env.PINCER_SPAWNER;
  if (asked === "node") return "node";
  if (asked === "native") {
    if (!existsSync(NATIVE_SPAWNER_PATH))
      throw new Error(`PINCER_SPAWNER=native but ${NATIVE_SPAWNER_PATH} was not built; run \`npm run build:native\` (needs a C compiler)`);
    return "native";
  }
  if (asked) throw new Error(`PINCER_SPAWNER=${asked}: use "native" or "node"`);
  return existsSync(NATIVE_SPAWNER_PATH) ? "native" : "node";
}

/** What the Node spawner cannot do, for the refusal and the warning. */
const NODE_SPAWNER_GAP =
  "the Node spawner cannot stop processes that leave their command's process group (setsid, a double fork, daemon(3)): " +
  "they outlive the command's timeout, its cancel and the daemon's stop. Following them needs a child subreaper " +
  "(prctl(PR_SET_CHILD_SUBREAPER), which Node cannot call) or a cgroup entered before exec, which the native pincer-spawner does";

/**
 * The spawner commands will start through, refusing the Node spawner unless `allowNode`
 * (--allow-node-spawner): with it, processes that leave their group escape every stop. The error
 * says why it was chosen and what to do; `warn` is told when the Node spawner is allowed.
 */
export function checkedSpawner(allowNode: boolean, warn: (msg: string) => void, env: NodeJS.ProcessEnv = process.env): SpawnerKind {
  const kind = chooseSpawner(env);
  if (kind === "native") return kind;
  const why =
    env.PINCER_SPAWNER === "node" ? "PINCER_SPAWNER=node asks for the Node spawner" : `${NATIVE_SPAWNER_PATH} was not built (no C compiler at install)`;
  if (!allowNode) {
    throw new Error(
      `${why}, and ${NODE_SPAWNER_GAP}. Install a C compiler (Debian: apt-get install gcc) and run \`npm run build:native\` ` +
        "in the daemon's package; or start with --allow-node-spawner to accept this, or with --no-exec to run no commands",
    );
  }
  warn(`commands start through the Node spawner (${why}; --allow-node-spawner): ${NODE_SPAWNER_GAP}`);
  return kind;
}

/** One running spawner process: sends requests, hands decoded replies to `onReply`. */
interface Transport {
  readonly child: ChildProcess;
  send(id: number, req: SpawnRequest): void;
  /** Stops (true) or resumes (false) reading command `id`'s output. */
  pause(id: number, paused: boolean): void;
  /** SIGKILL to everything command `id` started, including what left its process group. */
  kill(id: number): void;
  alive(): boolean;
  close(): void;
}

const ERRNO_NAMES = new Map(Object.entries(constants.errno).map(([name, n]) => [n, name]));
const SIGNAL_NAMES = new Map(Object.entries(constants.signals).map(([name, n]) => [n, name as NodeJS.Signals]));

/** The Node spawner (spawnerProcess.ts) over an IPC channel with advanced serialization. */
function nodeTransport(onReply: (r: Reply) => void, onExit: (child: ChildProcess) => void): Transport {
  const here = fileURLToPath(import.meta.url);
  // spawnerProcess.ts under a TypeScript loader (tests, tsx), spawnerProcess.js when built.
  const script = join(dirname(here), `spawnerProcess${extname(here)}`);
  const child = fork(script, [], { serialization: "advanced", stdio: ["ignore", "inherit", "inherit", "ipc"] });
  child.on("message", onReply);
  child.once("exit", () => onExit(child));
  // The spawner must not keep the daemon alive on its own.
  child.unref();
  (child.channel as { unref?: () => void } | undefined)?.unref?.();
  return {
    child,
    send: (id, req) => child.send({ op: "spawn", id, ...req, stdin: req.stdin && req.stdin.length > 0 ? req.stdin : null }),
    pause: (id, paused) => child.connected && child.send({ op: "pause", id, paused }),
    kill: (id) => child.connected && child.send({ op: "kill", id }),
    alive: () => child.connected,
    close: () => {
      if (child.connected) child.disconnect();
    },
  };
}

/** The encoded environments of frozen env objects (the daemon's own, sent with nearly every command). */
const encodedEnvs = new WeakMap<object, Buffer>();

/** An environment as the SPAWN frame carries it: u32 count, then "KEY=value" strings. */
function encodeEnv(env: Record<string, string>): Buffer {
  const frozen = Object.isFrozen(env);
  const known = frozen ? encodedEnvs.get(env) : undefined;
  if (known) return known;
  const entries = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  let size = 4;
  for (const s of entries) size += 4 + Buffer.byteLength(s);
  const buf = Buffer.allocUnsafe(size);
  let at = buf.writeUInt32LE(entries.length, 0);
  for (const s of entries) {
    const len = buf.write(s, at + 4, "utf8");
    buf.writeUInt32LE(len, at);
    at += 4 + len;
  }
  if (frozen) encodedEnvs.set(env, buf);
  return buf;
}

/** Encodes one SPAWN request frame for the native spawner (see native/spawner.c), in one buffer. */
export function encodeSpawn(id: number, req: SpawnRequest): Buffer {
  const stdin = req.stdin && req.stdin.length > 0 ? req.stdin : undefined;
  const strings = [req.file, req.cwd, req.file, ...req.args];
  const env = encodeEnv(req.env);
  let size = 4 * 5 + env.length + 4 + (stdin?.length ?? 0);
  for (const s of strings) size += 4 + Buffer.byteLength(s);
  const buf = Buffer.allocUnsafe(size);
  let at = 0;
  const u32 = (n: number) => (at = buf.writeUInt32LE(n, at));
  const str = (s: string) => {
    const len = buf.write(s, at + 4, "utf8");
    u32(len);
    at += len;
  };
  u32(size - 4);
  u32(1);
  u32(id);
  u32((req.detachedIo ? 1 : 0) | (stdin ? 2 : 0) | (req.latePid ? 4 : 0) | (req.defaultCwd ? 8 : 0));
  str(req.file);
  str(req.cwd);
  u32(req.args.length + 1);
  str(req.file);
  for (const a of req.args) str(a);
  at += env.copy(buf, at);
  u32(stdin?.length ?? 0);
  if (stdin) at += stdin.copy(buf, at);
  return buf;
}

/** Encodes a PAUSE (`paused` set) or KILL request frame for the native spawner. */
export function encodeControl(op: "pause" | "kill", id: number, paused = false): Buffer {
  const buf = Buffer.allocUnsafe(op === "pause" ? 16 : 12);
  buf.writeUInt32LE(buf.length - 4, 0);
  buf.writeUInt32LE(op === "pause" ? 2 : 3, 4);
  buf.writeUInt32LE(id, 8);
  if (op === "pause") buf.writeUInt32LE(paused ? 1 : 0, 12);
  return buf;
}

/** Splits the native spawner's reply stream into replies. */
export class ReplyDecoder {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer, onReply: (r: Reply) => void): void {
    let buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    while (buf.length >= 4) {
      const len = buf.readUInt32LE(0);
      if (buf.length < 4 + len) break;
      const type = buf[4]!;
      const id = buf.readUInt32LE(5);
      const body = buf.subarray(9, 4 + len);
      buf = buf.subarray(4 + len);
      switch (type) {
        case 1:
          onReply({ op: "spawned", id, pid: body.readInt32LE(0) });
          break;
        case 2: {
          const errno = body.readInt32LE(0);
          const code = ERRNO_NAMES.get(errno) ?? `errno ${errno}`;
          onReply({ op: "error", id, code, message: `spawn failed: ${code}` });
          break;
        }
        case 3:
        case 4:
          // A copy: the chunk outlives this read buffer.
          onReply({ op: type === 3 ? "stdout" : "stderr", id, data: Buffer.from(body) });
          break;
        case 5: {
          const code = body.readInt32LE(0);
          const sig = body.readInt32LE(4);
          onReply({ op: "exit", id, code: code < 0 ? null : code, signal: sig ? (SIGNAL_NAMES.get(sig) ?? null) : null });
          break;
        }
        default:
          throw new Error(`pincer-spawner sent an unknown reply type ${type}`);
      }
    }
    this.pending = buf.length ? Buffer.from(buf) : Buffer.alloc(0);
  }
}

/** The native spawner (native/spawner.c) over its stdin and stdout. */
function nativeTransport(onReply: (r: Reply) => void, onExit: (child: ChildProcess) => void): Transport {
  const child = spawn(NATIVE_SPAWNER_PATH, [], { stdio: ["pipe", "pipe", "inherit"] });
  const decoder = new ReplyDecoder();
  let open = true;
  child.stdout!.on("data", (chunk: Buffer) => decoder.push(chunk, onReply));
  child.stdin!.on("error", () => undefined); // it exited; the exit handler reports that
  child.once("exit", () => {
    open = false;
    onExit(child);
  });
  child.once("error", () => {
    open = false;
    onExit(child);
  });
  child.unref();
  (child.stdout as unknown as { unref?: () => void }).unref?.();
  (child.stdin as unknown as { unref?: () => void }).unref?.();
  return {
    child,
    send: (id, req) => child.stdin!.write(encodeSpawn(id, req)),
    pause: (id, paused) => open && child.stdin!.write(encodeControl("pause", id, paused)),
    kill: (id) => open && child.stdin!.write(encodeControl("kill", id)),
    alive: () => open,
    close: () => {
      open = false;
      // End of its stdin: it kills what it started and exits.
      child.stdin!.end();
    },
  };
}

/**
 * Starts commands through a small helper process: the native pincer-spawner when built, else a
 * forked Node process (see spawnerProcess.ts for why a helper at all). One helper per daemon,
 * started on first use and again if it dies.
 */
export class Spawner implements CommandSpawner {
  private transport?: Transport;
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (pid: number) => void; reject: (err: Error) => void; command: SpawnedCommand; onSpawned?: (pid: number) => void }
  >();
  private readonly running = new Map<number, SpawnedCommand>();

  constructor(readonly kind: SpawnerKind = chooseSpawner()) {}

  private current(): Transport {
    if (this.transport?.alive()) return this.transport;
    const onExit = (child: ChildProcess) => {
      if (this.transport?.child === child) this.transport = undefined;
      const lost = new Error("the daemon's spawner process exited");
      for (const w of this.waiting.values()) w.reject(lost);
      this.waiting.clear();
      for (const c of this.running.values()) c.emit("exit", null, "SIGKILL");
      this.running.clear();
    };
    const onReply = (m: Reply) => this.onReply(m);
    this.transport = this.kind === "native" ? nativeTransport(onReply, onExit) : nodeTransport(onReply, onExit);
    return this.transport;
  }

  private onReply(m: Reply): void {
    switch (m.op) {
      case "spawned": {
        const w = this.waiting.get(m.id);
        this.waiting.delete(m.id);
        if (!w) return;
        this.running.set(m.id, w.command);
        // Synchronously, before the output messages that may follow in the same batch.
        w.onSpawned?.(m.pid);
        w.resolve(m.pid);
        return;
      }
      case "error": {
        const w = this.waiting.get(m.id);
        this.waiting.delete(m.id);
        w?.reject(Object.assign(new Error(m.message), { code: m.code }));
        return;
      }
      case "stdout":
      case "stderr":
        this.running.get(m.id)?.emit(m.op, Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength));
        return;
      case "exit": {
        const c = this.running.get(m.id);
        this.running.delete(m.id);
        c?.emit("exit", m.code, m.signal);
      }
    }
  }

  /**
   * Starts a command in its own process group; `pid` resolves once it runs. `onSpawned` is called
   * with the pid before any output event of the command. `id` names the command to `pause` and `kill`.
   */
  spawn(req: SpawnRequest, onSpawned?: (pid: number) => void): { command: SpawnedCommand; pid: Promise<number>; id: number } {
    const command = new EventEmitter() as SpawnedCommand;
    const id = this.nextId++;
    const pid = new Promise<number>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, command, ...(onSpawned ? { onSpawned } : {}) });
      this.current().send(id, req);
    });
    return { command, pid, id };
  }

  /**
   * Stops (true) or resumes (false) reading a command's output: once its pipes are full the
   * command blocks on its next write. How a slow reader holds back a fast writer.
   */
  pause(id: number, paused: boolean): void {
    this.transport?.pause(id, paused);
  }

  /**
   * SIGKILL to everything command `id` started. With the native spawner in a cgroup that includes
   * processes that called setsid, forked twice or called daemon(3); otherwise its process group.
   */
  kill(id: number): void {
    this.transport?.kill(id);
  }

  signal(pid: number, signal: NodeJS.Signals): boolean {
    return signalGroup(pid, signal);
  }

  /**
   * Starts the spawner process now rather than with the first command, which otherwise waits for it
   * (15-25 ms on a 2-core machine: a process made from the daemon's, and its cgroup set up). A
   * frozen `env` is encoded for the native spawner now too (the encoding is kept, see encodeEnv).
   */
  warmUp(env?: Readonly<Record<string, string>>): void {
    this.current();
    if (env && this.kind === "native") encodeEnv(env);
  }

  /** Ends the spawner; it kills what it started and exits. */
  close(): void {
    this.transport?.close();
    this.transport = undefined;
  }
}
