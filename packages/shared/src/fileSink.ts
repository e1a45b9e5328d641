import { createHash, type Hash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";

/** Writes that may be in flight at once. */
const MAX_IN_FLIGHT = 8;
/** Start writing dirty pages back after this many bytes, so the final fsync has little left to do. */
const WRITEBACK_EVERY_BYTES = 64 * 1024 * 1024;

/**
 * The receiving end of a transfer (the daemon's uploads, the controller's downloads): hashes the
 * bytes in order and writes them at their offsets with several writes in flight, so the disk works
 * while the next chunks arrive. Every 64 MiB it starts an fdatasync in the background: the kernel
 * would otherwise keep a whole 1 GiB file dirty and flush it all in the final fsync, after the
 * network part is done.
 */
export class FileSink {
  readonly hash: Hash = createHash("sha256");
  private size = 0;
  private readonly inFlight = new Set<Promise<unknown>>();
  private failed: unknown;
  private writeback?: Promise<void>;
  private lastWriteback = 0;

  constructor(private readonly fh: FileHandle) {}

  get bytes(): number {
    return this.size;
  }

  /** Queues `chunk` at the current end; resolves when another write may be queued. */
  async write(chunk: Uint8Array): Promise<void> {
    if (this.failed) throw this.failed;
    this.hash.update(chunk);
    const at = this.size;
    this.size += chunk.length;
    const w = this.fh.write(chunk, 0, chunk.length, at).then(
      () => undefined,
      (err: unknown) => {
        this.failed ??= err;
      },
    );
    this.inFlight.add(w);
    void w.finally(() => this.inFlight.delete(w));
    if (!this.writeback && this.size - this.lastWriteback >= WRITEBACK_EVERY_BYTES) {
      this.lastWriteback = this.size;
      this.writeback = this.fh.datasync().then(
        () => (this.writeback = undefined),
        () => (this.writeback = undefined),
      );
    }
    if (this.inFlight.size >= MAX_IN_FLIGHT) await Promise.race(this.inFlight);
    if (this.failed) throw this.failed;
  }

  /** Waits for every queued write, then fsyncs; throws the first write error. */
  async finish(): Promise<void> {
    await this.settle();
    if (this.failed) throw this.failed;
    await this.fh.sync();
  }

  /** Waits for everything in flight, errors or not (before closing and removing the file). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.inFlight, this.writeback]);
  }
}
