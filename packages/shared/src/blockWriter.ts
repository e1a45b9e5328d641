import { Worker } from "node:worker_threads";
import type { Op, Reply, RequestOf, Requests, Results, WriterConfig } from "./blockWriterMessages.js";
import { DIRECT_IO_BLOCK } from "./directIo.js";
import { recycleMessageBuffer } from "./receivePool.js";

/** The unit of a direct write in the writer thread. */
const BLOCK_BYTES = 4 * 1024 * 1024;
/** Bytes between a job's flushes to the disk along the way (see blockWriterWorker.js's startSync). */
const SYNC_BYTES = 32 * 1024 * 1024;
/** The thread exits this long after its last job, giving back its memory (the chunks it was handed wait for its GC). */
const IDLE_EXIT_MS = 5000;

/**
 * A thread that hashes and writes large incoming files (FileSink's direct mode), so that the
 * thread receiving the stream only hands chunks over. Profiles of a 1 GiB download had the
 * receiving main thread busy 85–90% of the time, a third of it in sha256, and the transfer went as
 * fast as that thread. One thread serves every transfer of the process; it starts on first use,
 * does not keep the process alive while idle and exits 5 s after its last job.
 *
 * Chunks move to the thread without a copy (their memory is transferred, see {@link BlockJob.write}).
 * The thread hashes them in order and gathers them into page-aligned 4 MiB blocks (WebAssembly
 * memories: see directIo.ts); a full block is written with O_DIRECT while the other one fills. The
 * last block is padded to whole 4096-byte blocks and the caller truncates the file to its size.
 * Every 32 MiB the thread also starts flushing what it wrote to the disk, in the background, so that
 * the caller's fsync at the end has little left.
 * Where a write through O_DIRECT fails with EINVAL, the job goes on with buffered writes.
 *
 * The thread's code is blockWriterWorker.js: plain JavaScript type-checked by tsc (checkJs) against
 * the messages of blockWriterMessages.ts, so the same file loads from the TypeScript sources (tests,
 * tsx: their loaders do not reach worker threads, and the thread starts with none) and from the
 * build, and the thread loads nothing but node's own modules.
 */
const WORKER_URL = new URL("./blockWriterWorker.js", import.meta.url);

let nextSeq = 1;
let nextJob = 1;

/** One writer thread and what it owes: its own requests, its own jobs, its own idle timer. */
class WriterThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: (r: Results[Op]) => void; reject: (e: Error) => void }>();
  private jobs = 0;
  private idleTimer?: NodeJS.Timeout;
  /** No new requests: the thread failed or is being retired. */
  exited = false;
  /** Resolves once the thread has stopped, its file operations with it. */
  readonly gone: Promise<void>;

  constructor() {
    const workerData: WriterConfig = { blockBytes: BLOCK_BYTES, alignment: DIRECT_IO_BLOCK, syncBytes: SYNC_BYTES };
    this.worker = new Worker(WORKER_URL, { execArgv: [], name: "pincer-block-writer", workerData });
    this.worker.on("message", (r: Reply) => {
      const entry = this.waiting.get(r.seq);
      this.waiting.delete(r.seq);
      if (this.waiting.size === 0) this.worker.unref();
      if (!entry) return;
      if (r.error) entry.reject(Object.assign(new Error(r.error.message), { code: r.error.code }));
      else entry.resolve(r.result);
    });
    this.worker.on("error", (err) => this.fail(err));
    this.gone = new Promise((resolve) => this.worker.once("exit", () => resolve()));
    this.worker.on("exit", () => this.fail(new Error("the block writer thread exited")));
    this.worker.unref();
  }

  /** Posts request `op`; resolves with its result, rejects with its error (or the thread's failure). */
  request<O extends Op>(op: O, message: Requests[O], transfer?: ArrayBuffer[]): Promise<Results[O]> {
    if (this.exited) return Promise.reject(new Error("the block writer thread exited"));
    const seq = nextSeq++;
    // Referenced while it owes an answer, so a caller awaiting it keeps the process alive.
    if (this.waiting.size === 0) this.worker.ref();
    // The reply to `seq` is the result of this op (blockWriterMessages.ts).
    const reply = new Promise<Results[O]>((resolve, reject) => this.waiting.set(seq, { resolve: resolve as (r: Results[Op]) => void, reject }));
    try {
      const m: RequestOf<O> = { op, seq, ...message };
      this.worker.postMessage(m, transfer);
    } catch (err) {
      this.waiting.delete(seq);
      if (this.waiting.size === 0) this.worker.unref();
      throw err;
    }
    return reply;
  }

  jobStarted(): void {
    clearTimeout(this.idleTimer);
    this.jobs++;
  }

  /** After a job's last answer; the thread exits once it has had no job for IDLE_EXIT_MS. */
  jobEnded(): void {
    if (--this.jobs > 0) return;
    this.idleTimer = setTimeout(() => {
      if (this.jobs > 0) return;
      // Nothing is in flight (every job was dropped), so ending it loses nothing.
      this.exited = true;
      if (current === this) current = undefined;
      void this.worker.terminate();
    }, IDLE_EXIT_MS).unref();
  }

  private fail(err: Error): void {
    this.exited = true;
    if (current === this) current = undefined;
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }
}

let current: WriterThread | undefined;

/**
 * The memory of `chunk` to hand to another thread: its own ArrayBuffer when the chunk is all of
 * it (grpc-js gives every received message of 4 KiB or more a buffer of its own: the chunk plus
 * the message's few framing bytes), else a copy. Never a buffer shared with other data.
 */
function transferable(chunk: Uint8Array): Uint8Array {
  const own = chunk.byteLength >= 64 * 1024 && chunk.buffer instanceof ArrayBuffer && chunk.buffer.byteLength - chunk.byteLength <= 16;
  return own ? chunk : new Uint8Array(chunk);
}

/** One file, hashed and written in order by the writer thread. */
export interface BlockJob {
  /**
   * Hands `chunk` over: it is hashed and written after everything before it. Takes the chunk's
   * memory where it can (the caller must not use `chunk` afterwards). Resolves once the thread
   * has consumed it (and written any block it filled).
   */
  write(chunk: Uint8Array): Promise<void>;
  /** Writes what is left; the sha256 (hex) of everything, and whether the file needs truncating to its size. */
  finish(): Promise<{ sha256: string; padded: boolean }>;
  /**
   * Waits for any write in flight, then forgets the job; once it resolves the descriptors may be
   * closed (the thread answered, or it has stopped and nothing of it runs any more).
   */
  drop(): Promise<void>;
}

/**
 * Starts a job writing through `fd` (and `directFd`, opened with O_DIRECT, while it accepts the
 * writes), or returns undefined where no writer thread can be had (the caller writes buffered).
 */
export async function startBlockJob(fd: number, directFd: number): Promise<BlockJob | undefined> {
  let t: WriterThread;
  try {
    if (!current || current.exited) current = new WriterThread();
    t = current;
  } catch {
    return undefined;
  }
  const job = nextJob++;
  t.jobStarted();
  // Answered once the thread runs and has its blocks: a thread that cannot start costs no data.
  const opened = await t.request("open", { job, fd, direct: directFd }).then(
    () => true,
    () => false,
  );
  if (!opened) {
    t.jobEnded();
    return undefined;
  }
  let ended = false;
  return {
    write: async (chunk) => {
      const data = transferable(chunk);
      let reply: Promise<{ data: Uint8Array }>;
      try {
        reply = t.request("data", { job, data }, [data.buffer as ArrayBuffer]);
      } catch {
        // Memory node will not hand over (marked untransferable): send a copy.
        const copy = new Uint8Array(chunk);
        reply = t.request("data", { job, data: copy }, [copy.buffer]);
      }
      // The thread hands the memory back once written: nothing here can see it any more (see receivePool.ts).
      const back = await reply;
      if (back.data.buffer instanceof ArrayBuffer) recycleMessageBuffer(back.data.buffer);
    },
    finish: async () => {
      const { sha256, padded } = await t.request("finish", { job });
      return { sha256, padded };
    },
    drop: async () => {
      if (ended) return;
      ended = true;
      try {
        await t.request("drop", { job });
      } catch {
        // The thread failed: wait until it has stopped, its writes in flight with it.
        await t.gone;
      } finally {
        t.jobEnded();
      }
    },
  };
}
