import { createConnection, type Socket } from "node:net";
import { CancelledError, FailedPreconditionError, PincerError, sleep, TimeoutError, UnavailableError } from "@pincer/shared";

/** Deadline and cancellation of one QMP or guest-agent command. */
export interface QmpCallOptions {
  /** @default 10_000 (milliseconds) */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** An asynchronous event QEMU sent (`STOP`, `RESUME`, `SHUTDOWN`, …). */
export interface QmpEvent {
  event: string;
  data?: Record<string, unknown>;
  timestamp?: { seconds: number; microseconds: number };
}

/** QEMU (or its guest agent) refused a command: `errorClass` is QMP's error class ("GenericError", "CommandNotFound"). */
export class QmpError extends PincerError {
  constructor(
    readonly command: string,
    readonly errorClass: string,
    desc: string,
  ) {
    super(`QEMU refused ${command}: ${desc} (${errorClass})`);
  }
}

interface Pending {
  command: string;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

/** A connection to a unix socket that carries one JSON object per line, both ways. */
class JsonLineSocket {
  #buf = "";
  #closed: Error | undefined;
  readonly #socket: Socket;
  readonly #onClose: Array<(err: Error) => void> = [];

  constructor(
    socket: Socket,
    readonly path: string,
    private readonly onMessage: (msg: Record<string, unknown>) => void,
  ) {
    this.#socket = socket;
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => this.#read(chunk));
    socket.on("error", (err) => this.#close(new UnavailableError(`QEMU socket ${path}: ${err.message}`)));
    socket.on("close", () => this.#close(new UnavailableError(`QEMU closed its socket ${path}`)));
  }

  /** Opens `path`, retrying while it does not exist yet or refuses, until `timeoutMs`. */
  static async open(path: string, onMessage: (msg: Record<string, unknown>) => void, opts: QmpCallOptions & { alive?: () => boolean }) {
    const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
    for (;;) {
      try {
        const socket = await new Promise<Socket>((resolve, reject) => {
          const s = createConnection(path);
          s.once("connect", () => resolve(s));
          s.once("error", reject);
        });
        return new JsonLineSocket(socket, path, onMessage);
      } catch (err) {
        if (opts.signal?.aborted) throw new CancelledError(`connecting to ${path} was cancelled`);
        if (opts.alive && !opts.alive()) throw new UnavailableError(`QEMU exited before its socket ${path} could be opened`);
        if (Date.now() > deadline) throw new UnavailableError(`cannot connect to QEMU's socket ${path}: ${(err as Error).message}`);
        await sleep(50);
      }
    }
  }

  get closed(): Error | undefined {
    return this.#closed;
  }

  onClose(listener: (err: Error) => void): void {
    if (this.#closed) listener(this.#closed);
    else this.#onClose.push(listener);
  }

  write(data: string): void {
    if (this.#closed) throw this.#closed;
    this.#socket.write(data, "latin1");
  }

  close(): void {
    this.#socket.destroy();
    this.#close(new UnavailableError(`the connection to ${this.path} is closed`));
  }

  #read(chunk: string): void {
    this.#buf += chunk;
    for (let nl = this.#buf.indexOf("\n"); nl >= 0; nl = this.#buf.indexOf("\n")) {
      // The guest agent marks a synchronised reply with a 0xFF byte; whatever precedes it is stale.
      const raw = this.#buf.slice(0, nl);
      const line = raw.slice(raw.lastIndexOf("\xff") + 1).trim();
      this.#buf = this.#buf.slice(nl + 1);
      if (!line.startsWith("{")) continue;
      let msg: unknown;
      try {
        msg = JSON.parse(Buffer.from(line, "latin1").toString("utf8"));
      } catch {
        continue;
      }
      if (msg && typeof msg === "object") this.onMessage(msg as Record<string, unknown>);
    }
  }

  #close(err: Error): void {
    if (this.#closed) return;
    this.#closed = err;
    for (const l of this.#onClose.splice(0)) l(err);
  }
}

/**
 * Commands over one JSON-lines connection, each with an id, a deadline and a signal; replies are
 * matched by id, and a command without a reply in time fails with TimeoutError.
 */
class CommandChannel {
  #nextId = 1;
  readonly #pending = new Map<string, Pending>();
  conn!: JsonLineSocket;

  constructor(private readonly what: string) {}

  attach(conn: JsonLineSocket): void {
    this.conn = conn;
    conn.onClose((err) => {
      for (const p of this.#pending.values()) p.reject(err);
      this.#pending.clear();
    });
  }

  /**
   * Settles the command a reply is for, by its id. A reply without one is the agent's complaint
   * about the 0xFF byte that reset its parser, or a leftover of an earlier client: ignored.
   */
  reply(msg: Record<string, unknown>): void {
    const id = typeof msg.id === "string" ? msg.id : undefined;
    const p = id === undefined ? undefined : this.#pending.get(id);
    if (!p || id === undefined) return;
    this.#pending.delete(id);
    const error = msg.error as { class?: string; desc?: string } | undefined;
    if (error) p.reject(new QmpError(p.command, error.class ?? "GenericError", error.desc ?? JSON.stringify(error)));
    else p.resolve(msg.return);
  }

  execute<T>(command: string, args: Record<string, unknown> | undefined, opts: QmpCallOptions, prefix = ""): Promise<T> {
    const timeoutMs = opts.timeoutMs ?? 10_000;
    const id = `pincer-${this.#nextId++}`;
    return new Promise<T>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        opts.signal?.removeEventListener("abort", onAbort);
        this.#pending.delete(id);
      };
      const timer = setTimeout(() => {
        done();
        reject(new TimeoutError(`${this.what} did not answer ${command} within ${timeoutMs} ms`));
      }, timeoutMs);
      const onAbort = () => {
        done();
        reject(new CancelledError(`${command} was cancelled`));
      };
      if (opts.signal?.aborted) return onAbort();
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(id, {
        command,
        resolve: (v) => {
          done();
          resolve(v as T);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      try {
        this.conn.write(`${prefix}${JSON.stringify({ execute: command, ...(args ? { arguments: args } : {}), id })}\n`);
      } catch (err) {
        done();
        reject(err);
      }
    });
  }
}

/**
 * A QMP client on QEMU's `-qmp unix:PATH,server=on,wait=off` socket: reads the greeting, enters
 * command mode, then runs commands with ids and a deadline each and hands events to listeners.
 */
export class QmpClient {
  readonly #channel = new CommandChannel("QEMU");
  readonly #listeners = new Set<(e: QmpEvent) => void>();
  #greeting: ((v: unknown) => void) | undefined;

  private constructor() {}

  /**
   * Connects to the QMP socket at `path` (retrying while QEMU has not made it yet, until
   * `timeoutMs`, or sooner when `alive` says QEMU exited) and negotiates capabilities.
   */
  static async connect(path: string, opts: QmpCallOptions & { alive?: () => boolean } = {}): Promise<QmpClient> {
    const client = new QmpClient();
    const greeted = new Promise((resolve) => (client.#greeting = resolve));
    const conn = await JsonLineSocket.open(path, (msg) => client.#message(msg), opts);
    client.#channel.attach(conn);
    try {
      const timeoutMs = opts.timeoutMs ?? 10_000;
      const closed = new Promise<never>((_, reject) => conn.onClose(reject));
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new TimeoutError(`QEMU sent no QMP greeting on ${path} within ${timeoutMs} ms`)), timeoutMs);
      });
      await Promise.race([greeted, closed, late]).finally(() => clearTimeout(timer));
      await client.execute("qmp_capabilities", undefined, opts);
      return client;
    } catch (err) {
      conn.close();
      throw err;
    }
  }

  /** Runs a QMP command; resolves to its `return`, rejects with {@link QmpError} when QEMU refuses it. */
  execute<T = unknown>(command: string, args?: Record<string, unknown>, opts: QmpCallOptions = {}): Promise<T> {
    return this.#channel.execute<T>(command, args, opts);
  }

  /**
   * Runs a human-monitor command (`savevm NAME`, `loadvm NAME`) and resolves to what it printed.
   * Those commands print nothing when they succeed: any output is returned for the caller to judge.
   */
  async hmp(commandLine: string, opts: QmpCallOptions = {}): Promise<string> {
    return (await this.execute<string>("human-monitor-command", { "command-line": commandLine }, opts)) ?? "";
  }

  /** Calls `listener` with every event from now on; returns the function that stops it. */
  onEvent(listener: (e: QmpEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** True once the connection is gone (QEMU exited, or {@link close}). */
  get closed(): boolean {
    return this.#channel.conn.closed !== undefined;
  }

  close(): void {
    this.#channel.conn.close();
  }

  #message(msg: Record<string, unknown>): void {
    if ("QMP" in msg) return void this.#greeting?.(msg);
    if (typeof msg.event === "string") {
      for (const l of this.#listeners) l(msg as unknown as QmpEvent);
      return;
    }
    this.#channel.reply(msg);
  }
}

/**
 * A client of qemu-guest-agent on its host socket (`-chardev socket,path=PATH,server=on,wait=off`
 * and a `virtserialport` named org.qemu.guest_agent.0). The agent has no greeting and may hold
 * half a request from an earlier client, or from before a snapshot was restored, so connecting
 * sends a 0xFF byte (which resets its parser) and waits for `guest-sync-delimited` to echo a
 * random number before any command.
 */
export class GuestAgentClient {
  readonly #channel = new CommandChannel("the guest agent");

  private constructor() {}

  /** Connects and synchronises, retrying the sync until `timeoutMs` (the agent may still be starting). */
  static async connect(path: string, opts: QmpCallOptions = {}): Promise<GuestAgentClient> {
    const client = new GuestAgentClient();
    const conn = await JsonLineSocket.open(path, (msg) => client.#message(msg), opts);
    client.#channel.attach(conn);
    const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
    try {
      for (;;) {
        const token = Math.floor(Math.random() * 2 ** 31);
        try {
          const got = await client.#channel.execute<number>("guest-sync-delimited", { id: token }, { ...opts, timeoutMs: 1_000 }, "\xff");
          if (got === token) return client;
          if (Date.now() > deadline) throw new TimeoutError("guest-sync-delimited");
        } catch (err) {
          if (!(err instanceof TimeoutError) || Date.now() > deadline) throw err;
        }
      }
    } catch (err) {
      conn.close();
      if (err instanceof TimeoutError) throw new TimeoutError(`the guest agent on ${path} did not answer within ${opts.timeoutMs ?? 10_000} ms`);
      throw err;
    }
  }

  /** Runs an agent command; resolves to its `return`, rejects with {@link QmpError} when the agent refuses it. */
  execute<T = unknown>(command: string, args?: Record<string, unknown>, opts: QmpCallOptions = {}): Promise<T> {
    return this.#channel.execute<T>(command, args, opts);
  }

  close(): void {
    this.#channel.conn.close();
  }

  #message(msg: Record<string, unknown>): void {
    this.#channel.reply(msg);
  }
}

/** Options of {@link setGuestClock}. */
export interface SetGuestClockOptions extends QmpCallOptions {
  /** A guest clock this close to this computer's is left alone, in milliseconds. @default 250 */
  closeEnoughMs?: number;
  /** Largest difference accepted after setting it, in milliseconds. @default 2_000 */
  toleranceMs?: number;
}

/**
 * Brings the guest's clock to this computer's time through its agent, within `timeoutMs` in all:
 * reads it (`guest-get-time`), and when it is off by more than `closeEnoughMs`, sets it
 * (`guest-set-time` with the time in nanoseconds) and reads it back. `guest-set-time` also runs
 * `hwclock`, which waits for the RTC's next second: a clock that is right is not set. An agent that
 * cannot find `hwclock` reports an error after it has set the clock: that error is ignored, the
 * read-back decides. Resolves to how far the guest's clock is from this computer's, in
 * milliseconds; throws when the agent does not answer or the clock is still off by more than
 * `toleranceMs`.
 */
export async function setGuestClock(agentPath: string, opts: SetGuestClockOptions = {}): Promise<number> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  const call = () => ({ timeoutMs: Math.max(1, deadline - Date.now()), ...(opts.signal ? { signal: opts.signal } : {}) });
  const agent = await GuestAgentClient.connect(agentPath, call());
  try {
    const skew = async () => Math.abs((await agent.execute<number>("guest-get-time", undefined, call())) / 1e6 - Date.now());
    const before = await skew();
    if (before <= (opts.closeEnoughMs ?? 250)) return before;
    try {
      await agent.execute("guest-set-time", { time: Date.now() * 1e6 }, call());
    } catch (err) {
      if (!(err instanceof QmpError) || !/hwclock/i.test(err.message)) throw err;
    }
    const after = await skew();
    if (after > (opts.toleranceMs ?? 2_000)) throw new FailedPreconditionError(`the guest's clock is ${Math.round(after)} ms off after guest-set-time`);
    return after;
  } finally {
    agent.close();
  }
}
