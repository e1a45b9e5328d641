import type { Socket } from "node:net";

/** Raised by {@link VncReader.read} once the socket has closed. */
export class VncConnectionClosed extends Error {
  constructor() {
    super("the VNC viewer's connection closed");
    this.name = "VncConnectionClosed";
  }
}

/**
 * Reads a socket as exact byte counts, for a protocol parsed message by message. At most
 * `highWaterBytes` (or the count a read waits for, if larger) are held: past that the socket is
 * paused, so a viewer that sends faster than its messages are handled is slowed by TCP, not buffered.
 */
export class VncReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private closed = false;
  private waiting: { n: number; resolve: (b: Buffer) => void; reject: (e: Error) => void } | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly highWaterBytes = 256 * 1024,
  ) {
    socket.on("data", (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
      this.settle();
    });
    socket.on("close", () => {
      this.closed = true;
      this.settle();
    });
  }

  /** The next `n` bytes; rejects with {@link VncConnectionClosed} when the socket closes first. */
  read(n: number): Promise<Buffer> {
    if (this.waiting) return Promise.reject(new Error("VncReader: one read at a time"));
    return new Promise((resolve, reject) => {
      this.waiting = { n, resolve, reject };
      this.settle();
    });
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return out;
  }

  private settle(): void {
    const w = this.waiting;
    if (w && this.buffered >= w.n) {
      this.waiting = undefined;
      w.resolve(this.take(w.n));
    } else if (w && this.closed) {
      this.waiting = undefined;
      w.reject(new VncConnectionClosed());
    }
    const limit = Math.max(this.highWaterBytes, this.waiting?.n ?? 0);
    if (this.buffered > limit) this.socket.pause();
    else if (this.socket.isPaused() && !this.closed) this.socket.resume();
  }
}
