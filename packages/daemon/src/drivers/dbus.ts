import type { EventEmitter } from "node:events";
import { createRequire } from "node:module";
import { createConnection, type Socket } from "node:net";
import { Duplex } from "node:stream";

// A connection to a D-Bus bus through @homebridge/dbus-native, for the accessibility tree: promise
// calls with a shared deadline, a cap on calls in flight, and a stream its parser cannot trip over.

export const PROPERTIES = "org.freedesktop.DBus.Properties";
/** Calls in flight on one connection; the application answers them one by one anyway. */
const MAX_IN_FLIGHT = 64;

interface DBusNativeClient {
  invoke(msg: Record<string, unknown>, cb: (err: { name?: string; message?: string } | null | undefined, ...body: unknown[]) => void): void;
  connection: EventEmitter & { end(): void };
}
const require = createRequire(import.meta.url);
const dbus = require("@homebridge/dbus-native") as { createClient(opts: { stream?: Duplex; busAddress?: string }): DBusNativeClient };

/** The call's deadline passed. */
export class DeadlineError extends Error {}

/** Unescapes a D-Bus address value (%xx bytes). */
function unescapeValue(v: string): string {
  return v.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
}

/** Opens a socket for a unix: address (path or abstract, which Node connects to natively), or undefined for other kinds. */
function unixSocket(address: string): Socket | undefined {
  for (const entry of address.split(";")) {
    const [family, rest = ""] = entry.split(/:(.*)/s);
    if (family !== "unix") continue;
    const params = new Map(rest.split(",").map((kv) => kv.split("=", 2) as [string, string]));
    const path = params.get("path");
    const abstract = params.get("abstract");
    if (path) return createConnection(unescapeValue(path));
    if (abstract) return createConnection(`\0${unescapeValue(abstract)}`);
  }
  return undefined;
}

/**
 * A bus socket as dbus-native reads it. Its parser asks the stream for a message's length in
 * bytes, and at the end of a stream Node hands over what is left, however short: the parser then
 * reads past the end and throws out of an event handler, which kills the process. That happens
 * whenever the connection closes while a reply is half received (a cancelled walk, a bus that
 * dies). Here the socket's end destroys this stream instead of ending it, so a partial message is
 * dropped, never parsed; 'close' tells the bus's users.
 */
class MessageStream extends Duplex {
  constructor(private readonly socket: Socket) {
    super();
    socket.on("data", (chunk: Buffer) => {
      if (!this.push(chunk)) socket.pause();
    });
    socket.on("end", () => this.destroy());
    socket.on("error", (err) => this.destroy(err));
    socket.on("close", () => this.destroy());
  }

  override _read(): void {
    this.socket.resume();
  }

  // The socket buffers and keeps order; waiting for each flush would send one call per round trip.
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    this.socket.write(chunk);
    done();
  }

  override _final(done: () => void): void {
    this.socket.end();
    done();
  }

  override _destroy(err: Error | null, done: (err: Error | null) => void): void {
    this.socket.destroy();
    done(err);
  }

  /** dbus-native calls it; a unix socket has no Nagle to turn off. */
  setNoDelay(): void {}

  /** Holds this tick's writes for one system call (see Bus.batchWrites). */
  override cork(): void {
    this.socket.cork();
  }

  override uncork(): void {
    this.socket.uncork();
  }
}

/** One connection to a bus: promise calls with a shared deadline and a cap on calls in flight. */
export class Bus {
  private readonly client: DBusNativeClient;
  private readonly pending = new Set<(err: Error) => void>();
  private readonly queue: Array<() => void> = [];
  private inFlight = 0;
  private failure: Error | undefined;
  private readonly stream: MessageStream | undefined;
  private corked = false;

  constructor(
    address: string,
    private readonly deadline: number,
    signal?: AbortSignal,
  ) {
    const socket = unixSocket(address);
    this.stream = socket && new MessageStream(socket);
    this.client = dbus.createClient(this.stream ? { stream: this.stream } : { busAddress: address });
    const fail = (err: Error) => {
      this.failure ??= err;
      for (const reject of this.pending) reject(err);
    };
    this.client.connection.on("error", (err: Error) => fail(err));
    this.client.connection.on("end", () => fail(new Error("the bus closed the connection")));
    this.stream?.on("close", () => fail(new Error("the bus closed the connection")));
    // A walk whose caller went away: every call in flight or to come fails now, so the walk unwinds.
    signal?.addEventListener("abort", () => fail(new Error("the walk was cancelled")), { once: true });
  }

  /** Calls a method; resolves with the reply's values. */
  async call(dest: string, path: string, iface: string, member: string, signature = "", body: unknown[] = []): Promise<unknown[]> {
    if (this.inFlight >= MAX_IN_FLIGHT) await new Promise<void>((go) => this.queue.push(go));
    this.inFlight++;
    try {
      return await new Promise<unknown[]>((resolve, reject) => {
        const remaining = this.deadline - Date.now();
        if (this.failure || remaining <= 0) return reject(this.failure ?? new DeadlineError("deadline passed"));
        const done = (err: Error | undefined, reply: unknown[] = []) => {
          clearTimeout(timer);
          this.pending.delete(done);
          if (err) reject(err);
          else resolve(reply);
        };
        const timer = setTimeout(() => done(new DeadlineError(`${member} got no answer in time`)), remaining);
        this.pending.add(done);
        this.batchWrites();
        const msg = { destination: dest, path, interface: iface, member, ...(signature ? { signature, body } : {}) };
        this.client.invoke(msg, (err, ...reply) => done(err ? new Error(`${err.name ?? "D-Bus error"}: ${err.message ?? ""}`) : undefined, reply));
      });
    } finally {
      this.inFlight--;
      this.queue.shift()?.();
    }
  }

  /** Sends the calls made in this tick in one write: one system call each costs more than the call itself. */
  private batchWrites(): void {
    if (!this.stream || this.corked) return;
    this.corked = true;
    this.stream.cork();
    process.nextTick(() => {
      this.corked = false;
      this.stream?.uncork();
    });
  }

  /** Reads one property, unwrapping the variant. */
  async property(dest: string, path: string, iface: string, name: string): Promise<unknown> {
    const [v] = await this.call(dest, path, PROPERTIES, "Get", "ss", [iface, name]);
    return variantValue(v);
  }

  close(): void {
    this.client.connection.end();
    for (const reject of this.pending) reject(new Error("connection closed"));
  }
}

/** dbus-native decodes a variant as [signature, [value]]. */
export function variantValue(v: unknown): unknown {
  return Array.isArray(v) && v.length === 2 && Array.isArray(v[1]) ? v[1][0] : v;
}
