import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { startBlockJob, type BlockJob } from "./blockWriter.js";
import { openDirect } from "./directIo.js";

/** Writes that may be in flight at once (buffered), or chunks handed to the writer thread and not yet consumed (direct). */
const MAX_IN_FLIGHT = 8;
/** Buffered mode: start writing dirty pages back after this many bytes, so the final fsync has little left to do. */
const WRITEBACK_EVERY_BYTES = 64 * 1024 * 1024;

export interface FileSinkOptions {
  /** Mode of the new file (before the umask). @default 0o600 */
  mode?: number;
  /**
   * Bytes the caller expects to write. At 64 MiB or more (DIRECT_IO_MIN_BYTES) the sink writes
   * with O_DIRECT where the file system allows it. @default unknown (buffered writes)
   */
  expectedBytes?: number;
}

/**
 * The receiving end of a transfer (the daemon's uploads, the controller's downloads): creates a new
 * file, hashes the bytes in order and writes them.
 *
 * Large files (see {@link FileSinkOptions.expectedBytes}) go to the block writer thread
 * (blockWriter.ts), which hashes them and writes them with O_DIRECT (directIo.ts says why), so the
 * thread receiving the stream only hands chunks over. Where the file system refuses O_DIRECT at
 * open, or no thread can be had, the sink is buffered from the start.
 *
 * Smaller files: hashed here and written with buffered positioned writes, several in flight, with
 * an fdatasync started every 64 MiB so the final fsync has little left to flush.
 */
export class FileSink {
  private size = 0;
  private failed: unknown;
  private readonly hash = createHash("sha256");
  private readonly inFlight = new Set<Promise<unknown>>();
  private writeback?: Promise<void>;
  private lastWriteback = 0;
  private finished?: Promise<{ sha256: string; padded: boolean }>;

  private constructor(
    /** The file, opened for buffered writes: chmod and fsync go through it. */
    readonly handle: FileHandle,
    private readonly direct?: { handle: FileHandle; job: BlockJob },
  ) {}

  /** Creates `path` (which must not exist) and returns a sink writing to it. */
  static async create(path: string, opts: FileSinkOptions = {}): Promise<FileSink> {
    const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, opts.mode ?? 0o600);
    // A second descriptor on the same (new, private) file for the data, where O_DIRECT applies.
    const direct = await openDirect(handle, constants.O_WRONLY, opts.expectedBytes ?? 0);
    const job = direct && (await startBlockJob(handle.fd, direct.fd));
    if (direct && job) return new FileSink(handle, { handle: direct, job });
    await direct?.close();
    return new FileSink(handle);
  }

  get bytes(): number {
    return this.size;
  }

  /** True when the data goes to the block writer thread (O_DIRECT). */
  get isDirect(): boolean {
    return this.direct !== undefined;
  }

  /**
   * Takes `chunk`; resolves when another may come. The sink may take the chunk's memory (large
   * files: it moves to the writer thread without a copy), so the caller must not use `chunk` after.
   */
  async write(chunk: Uint8Array): Promise<void> {
    if (this.failed) throw this.failed;
    const at = this.size;
    this.size += chunk.length;
    if (this.direct) this.track(this.direct.job.write(chunk));
    else this.writeBuffered(chunk, at);
    if (this.inFlight.size >= MAX_IN_FLIGHT) await Promise.race(this.inFlight);
    if (this.failed) throw this.failed;
  }

  /** The sha256 (hex) of everything written; call after the last write. */
  async digest(): Promise<string> {
    if (!this.direct) return this.hash.digest("hex");
    return (await this.drain()).sha256;
  }

  /** Waits for every write, truncates any padding, then fsyncs; throws the first write error. */
  async finish(): Promise<void> {
    if (this.direct) {
      if ((await this.drain()).padded) await this.handle.truncate(this.size);
    } else {
      await this.settle();
      if (this.failed) throw this.failed;
    }
    await this.handle.sync();
  }

  /** Waits for everything in flight, errors or not. */
  private async settle(): Promise<void> {
    await Promise.allSettled([...this.inFlight, this.writeback, this.finished]);
  }

  /** Waits for what is in flight, then closes the file. */
  async close(): Promise<void> {
    await this.settle();
    if (this.direct) {
      await this.direct.job.drop();
      await this.direct.handle.close().catch(() => undefined);
    }
    await this.handle.close();
  }

  /** Direct mode: everything handed over, the last block written; the hash and whether it was padded. */
  private async drain(): Promise<{ sha256: string; padded: boolean }> {
    await this.settle();
    if (this.failed) throw this.failed;
    this.finished ??= this.direct!.job.finish();
    return this.finished;
  }

  private track(w: Promise<unknown>): void {
    const settled = w.then(
      () => undefined,
      (err: unknown) => {
        this.failed ??= err;
      },
    );
    this.inFlight.add(settled);
    void settled.finally(() => this.inFlight.delete(settled));
  }

  private writeBuffered(chunk: Uint8Array, at: number): void {
    this.hash.update(chunk);
    this.track(this.handle.write(chunk, 0, chunk.length, at));
    if (!this.writeback && this.size - this.lastWriteback >= WRITEBACK_EVERY_BYTES) {
      this.lastWriteback = this.size;
      this.writeback = this.handle.datasync().then(
        () => (this.writeback = undefined),
        () => (this.writeback = undefined),
      );
    }
  }
}
