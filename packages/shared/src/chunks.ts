import type { FileHandle } from "node:fs/promises";
import protobuf from "protobufjs";
import { DIRECT_IO_BLOCK, returnAligned, takeAligned } from "./directIo.js";

/**
 * Sending a file's bytes without copying them through protobufjs. UploadRequest and
 * DownloadResponse carry data as `bytes chunk = 2`; a {@link ChunkReader} reads the file straight
 * into buffers laid out as that encoded message (tag, length, data), and the methods' serializers
 * pass such messages through unchanged ({@link passEncodedChunks}). Per MiB sent that saves one
 * allocation and one copy (protobufjs's writer: about 0.2 CPU-s per GiB in profiles here).
 *
 * Reusing the buffers is safe only where the write callback means the message's bytes are no longer
 * needed: on the server, where ServerWritableStream calls back once Node's HTTP/2 stream has written
 * the framed message to the socket (grpc-js's own copy of it, or, with the daemon's in-place framing
 * in framing.ts, the pooled buffer itself). On a client, grpc-js's retry layer calls the write
 * callback as soon as it has queued a message it may keep for a retry (up to 256 KiB per call, even
 * with retries off), before writing it; a larger message it calls back only once written. So the
 * controller's uploads reuse only whole 1 MiB chunks (transfers.ts), and in-memory sources none.
 */

/** Field 2, wire type 2 (length-delimited): `chunk` in UploadRequest and DownloadResponse. */
const CHUNK_TAG = 0x12;
/** gRPC's message prefix: a compression flag (0) and the message's length, u32 big-endian. */
const GRPC_PREFIX = 5;
/** Room before the data for gRPC's prefix, the tag and the length varint (5 bytes covers any uint32). */
const HEADROOM = GRPC_PREFIX + 6;

const ENCODED = Symbol("pincer.encodedChunk");

/** A chunk message already encoded; write it to an Upload or Download call like any message. */
export interface EncodedChunk {
  readonly [ENCODED]: Buffer;
}

/**
 * Each chunk message's frame (the same bytes behind gRPC's 5-byte message prefix, in the same
 * memory), by the message's bytes: see {@link framedChunk} and {@link framedBytes}.
 */
const frames = new WeakMap<Uint8Array, Buffer>();

function isEncoded(m: unknown): m is EncodedChunk {
  return typeof m === "object" && m !== null && ENCODED in m;
}

/**
 * The message `m` framed for gRPC's wire (prefix and message) when it is an {@link EncodedChunk},
 * else undefined. The frame shares the chunk's memory: a server that sends it as it is (see the
 * daemon's framing.ts) saves grpc-js's copy of every message into a framed buffer of its own.
 */
export function framedChunk(m: unknown): Buffer | undefined {
  return isEncoded(m) ? frames.get(m[ENCODED]) : undefined;
}

/**
 * `serialized` framed for gRPC's wire in the same memory when it is the bytes of an
 * {@link EncodedChunk} (what {@link passEncodedChunks} gave grpc-js for it), else undefined. A
 * client's grpc-js frames a message after serializing it, where only those bytes are left to go by
 * (see the controller's framing.ts).
 */
export function framedBytes(serialized: Uint8Array): Buffer | undefined {
  return frames.get(serialized);
}

/** Messages from this size on are encoded in place for gRPC's wire by {@link encodeLargeMessagesFramed}. */
export const FRAMED_ENCODING_FROM = 64 * 1024;

/**
 * Makes protobufjs encode every message of {@link FRAMED_ENCODING_FROM} bytes or more behind gRPC's
 * 5-byte message prefix, already written, in the same memory; {@link framedBytes} then gives the
 * frame, and a server that sends it as it is (the daemon's framing.ts) saves grpc-js's copy of the
 * message into a framed buffer of its own. For a 1920x1080 PNG screenshot that copy was 3.3 MiB
 * and, the daemon mapping buffers that large on their own, 800 fresh pages to fault in. Smaller
 * messages are encoded as before, from Node's buffer pool. Once per process, for every protobufjs
 * writer in it; false when protobufjs no longer allocates through BufferWriter.alloc.
 */
export function encodeLargeMessagesFramed(): boolean {
  const writer = (protobuf as unknown as { BufferWriter?: { alloc?: (size: number) => Uint8Array } }).BufferWriter;
  if (typeof writer?.alloc !== "function") return false;
  writer.alloc = allocFramed;
  return true;
}

function allocFramed(size: number): Buffer {
  if (size < FRAMED_ENCODING_FROM) return Buffer.allocUnsafe(size);
  const frame = Buffer.allocUnsafe(GRPC_PREFIX + size);
  frame[0] = 0;
  frame.writeUInt32BE(size, 1);
  const message = frame.subarray(GRPC_PREFIX);
  frames.set(message, frame);
  return message;
}

/** Wraps a method's serializer so {@link EncodedChunk} messages go out as they are. */
export function passEncodedChunks<T>(serialize: (m: T) => Buffer): (m: T | EncodedChunk) => Buffer {
  return (m) => (isEncoded(m) ? m[ENCODED] : serialize(m));
}

/** One chunk read from the file: the message to write, its data (for hashing), and its release. */
export interface ReadChunk {
  message: EncodedChunk;
  data: Buffer;
  /** Call once the message was written (the write callback): the buffer goes back to the pool. */
  release(): void;
}

/** Reads in flight at once: direct reads get no readahead from the kernel, so the reader does its own. */
const READS_AHEAD = 4;

/**
 * Reads a file from `position` to its end as encoded chunk messages of at most `chunkBytes`,
 * several reads ahead, into a small pool of buffers that {@link ReadChunk.release} returns.
 *
 * With `direct`, a second descriptor on the same file opened with O_DIRECT (see directIo.ts), and a
 * pool, chunks are read into page-aligned pooled buffers past the page cache, the message header
 * just before the data; at an unaligned position, when the aligned buffers are all out, or when
 * the file system refuses a direct read, a chunk is read the ordinary way.
 */
export class ChunkReader {
  private readonly free: Buffer[] = [];
  private readonly aligned: Buffer[];
  private readonly alignedOwned: ReadonlySet<Buffer>;
  /** Reads issued and not yet handed out, in file order. */
  private ahead: Promise<(ReadChunk & { position: number }) | undefined>[] = [];
  private closed = false;

  constructor(
    private readonly fh: FileHandle,
    private position: number,
    private readonly chunkBytes = 1024 * 1024,
    /** Released buffers kept for reuse; 0 = a new buffer per chunk (see above for when reuse is safe). */
    private readonly poolSize = 0,
    private direct?: FileHandle,
  ) {
    // The pool, the reads ahead and the chunk being handed out.
    this.aligned = (direct && poolSize > 0 && takeAligned(poolSize + READS_AHEAD + 1, DIRECT_IO_BLOCK + chunkBytes)) || [];
    this.alignedOwned = new Set(this.aligned);
  }

  /** The next chunk, or undefined at the end of the file. */
  async next(): Promise<ReadChunk | undefined> {
    while (this.ahead.length < READS_AHEAD) {
      const read = this.read(this.position);
      // A failed read surfaces when its turn comes, not as an unhandled rejection.
      read.catch(() => undefined);
      this.ahead.push(read);
      this.position += this.chunkBytes;
    }
    const chunk = await this.ahead.shift()!;
    if (!chunk || chunk.data.length < this.chunkBytes) {
      // The end of the file (or a short read): the reads after it started at the wrong places.
      await this.dropAhead();
      if (chunk) this.position = chunk.position + chunk.data.length;
    }
    return chunk;
  }

  /** Waits for the reads ahead and gives the aligned buffers back; call before closing the file. */
  async close(): Promise<void> {
    await this.dropAhead();
    this.closed = true;
    returnAligned(this.aligned.splice(0));
  }

  private async dropAhead(): Promise<void> {
    const ahead = this.ahead.splice(0);
    for (const read of ahead) (await read.catch(() => undefined))?.release();
  }

  private async read(position: number): Promise<(ReadChunk & { position: number }) | undefined> {
    let buf: Buffer | undefined;
    let headroom = DIRECT_IO_BLOCK;
    let bytesRead = 0;
    if (this.direct && position % DIRECT_IO_BLOCK === 0 && this.chunkBytes % DIRECT_IO_BLOCK === 0) buf = this.aligned.pop();
    if (buf) {
      try {
        ({ bytesRead } = await this.direct!.read(buf, headroom, this.chunkBytes, position));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EINVAL") throw err;
        // This file system refuses direct reads: the rest goes the ordinary way.
        this.direct = undefined;
        this.aligned.push(buf);
        buf = undefined;
      }
    }
    if (!buf) {
      headroom = HEADROOM;
      buf = this.free.pop() ?? Buffer.allocUnsafeSlow(HEADROOM + this.chunkBytes);
      ({ bytesRead } = await this.fh.read(buf, HEADROOM, this.chunkBytes, position));
    }
    const block = buf;
    if (bytesRead === 0) {
      this.recycle(block);
      return undefined;
    }
    // Tag and varint length end right where the data starts.
    const len: number[] = [];
    for (let n = bytesRead; ; n >>>= 7) {
      if (n < 0x80) {
        len.push(n);
        break;
      }
      len.push((n & 0x7f) | 0x80);
    }
    const start = headroom - 1 - len.length;
    block[start] = CHUNK_TAG;
    for (let i = 0; i < len.length; i++) block[start + 1 + i] = len[i]!;
    const end = headroom + bytesRead;
    block[start - GRPC_PREFIX] = 0;
    block.writeUInt32BE(end - start, start - GRPC_PREFIX + 1);
    const encoded = block.subarray(start, end);
    frames.set(encoded, block.subarray(start - GRPC_PREFIX, end));
    let released = false;
    return {
      position,
      message: { [ENCODED]: encoded },
      data: block.subarray(headroom, end),
      release: () => {
        if (released) return;
        released = true;
        this.recycle(block);
      },
    };
  }

  private recycle(buf: Buffer): void {
    if (this.alignedOwned.has(buf)) {
      if (this.closed) returnAligned([buf]);
      else this.aligned.push(buf);
    } else if (this.free.length < this.poolSize) this.free.push(buf);
  }
}
