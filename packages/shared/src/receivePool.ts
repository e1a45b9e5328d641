import { createRequire } from "node:module";

/**
 * Received messages assembled in reused memory. grpc-js's decoder (StreamDecoder in
 * stream-decoder.js, used by servers and clients alike) gathers a message's pieces as they arrive
 * and copies them with `Buffer.concat` into a new buffer of the message's size: for a transfer, a
 * new MiB for every MiB received. New memory costs here far more than the copy itself: on the 2-core
 * VMs Pincer is tested on, concatenating 256 MiB into new 1 MiB buffers took 1060 ms of CPU (every
 * page faulted in and zeroed by the kernel, under the daemon's 256 KiB mmap threshold) and into one
 * reused buffer 6-14 ms; the new buffers also drive V8's full collections by their external memory.
 *
 * {@link decodeIntoPool} makes the decoder copy each piece of a large message, as it arrives, into
 * a buffer of the message's exact size taken from a pool. A buffer goes back to the pool only when
 * nothing in this thread can still see it: the block writer thread (blockWriter.ts) takes a chunk's
 * memory (transferred, so every view of it here is detached) and hands it back once written, and
 * only that memory is recycled. Every other message's buffer is left to the garbage collector, as
 * before. The pool holds at most {@link POOL_MAX_BYTES} and empties itself after
 * {@link POOL_IDLE_MS} without use, so an idle process keeps none of it.
 */

/** Messages (with gRPC's 5-byte prefix) at least this large are assembled in pooled memory. */
export const POOLED_MIN_BYTES = 64 * 1024;
/** The most bytes the pool keeps. */
const POOL_MAX_BYTES = 16 * 1024 * 1024;
/** The pool lets go of everything after this long without a buffer taken or given back. */
const POOL_IDLE_MS = 1000;

/** Free buffers by their size. */
const free = new Map<number, ArrayBuffer[]>();
let freeBytes = 0;
let idleTimer: NodeJS.Timeout | undefined;

function emptyPool(): void {
  free.clear();
  freeBytes = 0;
}

function touched(): void {
  if (idleTimer) idleTimer.refresh();
  else idleTimer = setTimeout(emptyPool, POOL_IDLE_MS).unref();
}

/** A buffer of exactly `bytes` bytes and an ArrayBuffer of its own: from the pool when it has one, else new. */
export function takeMessageBuffer(bytes: number): Buffer {
  const ab = free.get(bytes)?.pop();
  if (!ab) return Buffer.allocUnsafeSlow(bytes);
  freeBytes -= bytes;
  touched();
  return Buffer.from(ab);
}

/**
 * Gives `ab` to the pool. Call only with memory nothing else in this thread can reach (memory
 * another thread handed back, transferred); a buffer the pool does not want is left to the collector.
 */
export function recycleMessageBuffer(ab: ArrayBuffer): void {
  const bytes = ab.byteLength;
  if (bytes < POOLED_MIN_BYTES || freeBytes + bytes > POOL_MAX_BYTES) return;
  const list = free.get(bytes);
  if (list) list.push(ab);
  else free.set(bytes, [ab]);
  freeBytes += bytes;
  touched();
}

/** Bytes the pool holds now (for tests and figures). */
export function pooledBytes(): number {
  return freeBytes;
}

/** The fields of grpc-js 1.14's StreamDecoder this relies on. */
interface Decoder {
  readState: number;
  readCompressFlag: Buffer;
  readPartialSize: Buffer;
  readSizeRemaining: number;
  readMessageSize: number;
  readPartialMessage: Buffer[];
  readMessageRemaining: number;
  maxReadMessageLength: number;
  [ASSEMBLING]?: Buffer;
}

const NO_DATA = 0;
const READING_SIZE = 1;
const READING_MESSAGE = 2;
const ASSEMBLING = Symbol("pincer.assembling");
const PATCHED = Symbol.for("pincer.decodesIntoPool");

let patched: boolean | undefined;

/**
 * Patches grpc-js's StreamDecoder (once per process) to assemble large messages in pooled memory;
 * its output is otherwise byte for byte what grpc-js's own decoder gives. Returns false when
 * grpc-js's internals changed and nothing was patched; test/unit/shared/receivePool.test.ts checks them.
 */
export function decodeIntoPool(): boolean {
  patched ??= patch();
  return patched;
}

function patch(): boolean {
  let proto: { write?: unknown; [PATCHED]?: boolean } | undefined;
  try {
    const { StreamDecoder } = createRequire(import.meta.url)("@grpc/grpc-js/build/src/stream-decoder.js") as {
      StreamDecoder?: new (max: number) => Decoder;
    };
    if (typeof StreamDecoder !== "function") return false;
    const probe = new StreamDecoder(-1);
    const known =
      probe.readState === NO_DATA &&
      Buffer.isBuffer(probe.readPartialSize) &&
      probe.readPartialSize.length === 4 &&
      Array.isArray(probe.readPartialMessage) &&
      probe.maxReadMessageLength === -1;
    proto = known ? (StreamDecoder.prototype as typeof proto) : undefined;
  } catch {
    return false;
  }
  if (!proto || typeof proto.write !== "function" || !Object.hasOwn(proto, "write")) return false;
  if (proto[PATCHED]) return true;
  proto.write = pooledWrite;
  proto[PATCHED] = true;
  return true;
}

/** grpc-js 1.14's StreamDecoder.write, with large messages copied into pooled memory as they arrive. */
function pooledWrite(this: Decoder, data: Buffer): Buffer[] {
  let readHead = 0;
  const result: Buffer[] = [];
  while (readHead < data.length) {
    switch (this.readState) {
      case NO_DATA:
        this.readCompressFlag = data.subarray(readHead, readHead + 1);
        readHead += 1;
        this.readState = READING_SIZE;
        this.readPartialSize.fill(0);
        this.readSizeRemaining = 4;
        this.readMessageSize = 0;
        this.readMessageRemaining = 0;
        this.readPartialMessage = [];
        break;
      case READING_SIZE:
        readHead += readSize(this, data, readHead, result);
        break;
      case READING_MESSAGE:
        readHead += readMessage(this, data, readHead, result);
        break;
      default:
        throw new Error("Unexpected read state");
    }
  }
  return result;
}

function readSize(d: Decoder, data: Buffer, readHead: number, result: Buffer[]): number {
  const toRead = Math.min(data.length - readHead, d.readSizeRemaining);
  data.copy(d.readPartialSize, 4 - d.readSizeRemaining, readHead, readHead + toRead);
  d.readSizeRemaining -= toRead;
  if (d.readSizeRemaining > 0) return toRead;
  d.readMessageSize = d.readPartialSize.readUInt32BE(0);
  if (d.maxReadMessageLength !== -1 && d.readMessageSize > d.maxReadMessageLength) {
    throw new Error(`Received message larger than max (${d.readMessageSize} vs ${d.maxReadMessageLength})`);
  }
  d.readMessageRemaining = d.readMessageSize;
  if (d.readMessageRemaining === 0) {
    d.readState = NO_DATA;
    result.push(Buffer.concat([d.readCompressFlag, d.readPartialSize], 5));
    return toRead;
  }
  d.readState = READING_MESSAGE;
  if (d.readMessageSize + 5 >= POOLED_MIN_BYTES) {
    const framed = takeMessageBuffer(d.readMessageSize + 5);
    framed[0] = d.readCompressFlag[0]!;
    d.readPartialSize.copy(framed, 1);
    d[ASSEMBLING] = framed;
  }
  return toRead;
}

function readMessage(d: Decoder, data: Buffer, readHead: number, result: Buffer[]): number {
  const toRead = Math.min(data.length - readHead, d.readMessageRemaining);
  const framed = d[ASSEMBLING];
  if (framed) data.copy(framed, 5 + d.readMessageSize - d.readMessageRemaining, readHead, readHead + toRead);
  else d.readPartialMessage.push(data.subarray(readHead, readHead + toRead));
  d.readMessageRemaining -= toRead;
  if (d.readMessageRemaining > 0) return toRead;
  d.readState = NO_DATA;
  d[ASSEMBLING] = undefined;
  result.push(framed ?? Buffer.concat([d.readCompressFlag, d.readPartialSize, ...d.readPartialMessage], d.readMessageSize + 5));
  return toRead;
}
