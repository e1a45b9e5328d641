import { Worker } from "node:worker_threads";
import { DIRECT_IO_BLOCK } from "./directIo.js";

/** The unit of a direct write in the writer thread. */
const BLOCK_BYTES = 4 * 1024 * 1024;
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
 * Where a write through O_DIRECT fails with EINVAL, the job goes on with buffered writes.
 *
 * The code runs from a string (`eval`), so the same file works from the TypeScript sources (tests,
 * tsx) and from the build, and the thread loads nothing but node's own modules.
 */
const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require("node:worker_threads");
const { createHash } = require("node:crypto");
const { write } = require("node:fs");
const { blockBytes, alignment } = workerData;
const jobs = new Map();
const idleBlocks = [];
function alignedBlock() {
  if (idleBlocks.length) return idleBlocks.pop();
  try {
    return new Uint8Array(new WebAssembly.Memory({ initial: blockBytes / 65536 }).buffer);
  } catch {
    return undefined;
  }
}
function writeAll(fd, view, at) {
  return new Promise((resolve, reject) => {
    const step = (done) => {
      if (done === view.length) return resolve();
      write(fd, view, done, view.length - done, at + done, (err, n) => {
        if (err) return reject(err);
        if (n === 0) return reject(Object.assign(new Error("write returned 0 bytes at offset " + (at + done)), { code: "EIO" }));
        step(done + n);
      });
    };
    step(0);
  });
}
// Writes the first length bytes of block at offset at: padded to whole blocks through O_DIRECT
// while the file system takes it, else buffered.
async function flush(job, block, length, at) {
  const whole = Math.ceil(length / alignment) * alignment;
  if (job.direct >= 0) {
    if (whole > length) {
      block.fill(0, length, whole);
      job.padded = true;
    }
    try {
      return await writeAll(job.direct, block.subarray(0, whole), at);
    } catch (err) {
      if (err.code !== "EINVAL") throw err;
      job.direct = -1;
    }
  }
  await writeAll(job.fd, block.subarray(0, length), at);
}
// One block is written while the other fills: waits for the write in flight, then starts this one.
async function startWrite(job, length) {
  const block = job.blocks[job.current];
  const at = job.blockAt;
  await job.writing;
  job.writing = flush(job, block, length, at);
  job.writing.catch(() => undefined);
  job.current ^= 1;
  job.blockAt += length;
  job.filled = 0;
}
async function consume(job, data) {
  job.hash.update(data);
  if (job.blocks.length === 0) {
    await writeAll(job.fd, data, job.size);
  } else {
    for (let from = 0; from < data.length; ) {
      const block = job.blocks[job.current];
      const n = Math.min(data.length - from, block.length - job.filled);
      block.set(data.subarray(from, from + n), job.filled);
      job.filled += n;
      from += n;
      if (job.filled === block.length) await startWrite(job, job.filled);
    }
  }
  job.size += data.length;
}
async function finish(job) {
  if (job.blocks.length && job.filled > 0) await startWrite(job, job.filled);
  await job.writing;
  return { sha256: job.hash.digest("hex"), padded: job.padded };
}
parentPort.on("message", (m) => {
  if (m.op === "open") {
    const a = m.direct >= 0 ? alignedBlock() : undefined;
    const b = a ? alignedBlock() : undefined;
    if (a && !b) idleBlocks.push(a);
    const blocks = a && b ? [a, b] : [];
    jobs.set(m.job, { hash: createHash("sha256"), fd: m.fd, direct: blocks.length ? m.direct : -1, blocks, current: 0, filled: 0, blockAt: 0, size: 0, padded: false, writing: Promise.resolve(), queue: Promise.resolve() });
    return parentPort.postMessage({ seq: m.seq });
  }
  const job = jobs.get(m.job);
  if (!job) return parentPort.postMessage({ seq: m.seq, error: { message: "no such job: " + m.job } });
  // A job's messages are handled one after another; its replies go out in order.
  job.queue = job.queue.then(async () => {
    try {
      if (m.op === "drop") {
        // Nothing may be in flight on the descriptors once the caller closes them.
        await job.writing.catch(() => undefined);
        jobs.delete(m.job);
        for (const b of job.blocks) if (idleBlocks.length < 2) idleBlocks.push(b);
        return parentPort.postMessage({ seq: m.seq });
      }
      if (job.failed) throw job.failed;
      if (m.op === "data") {
        await consume(job, m.data);
        // The memory goes back: this thread allocates too little to collect it soon, the caller's
        // thread collects such young buffers within milliseconds.
        parentPort.postMessage({ seq: m.seq, data: m.data }, [m.data.buffer]);
      } else if (m.op === "finish") {
        parentPort.postMessage({ seq: m.seq, ...(await finish(job)) });
      }
    } catch (err) {
      job.failed = err;
      parentPort.postMessage({ seq: m.seq, error: { code: err.code, message: err.message } });
    }
  });
});
`;

interface Reply {
  seq: number;
  sha256?: string;
  padded?: boolean;
  error?: { code?: string; message: string };
}

let nextSeq = 1;
let nextJob = 1;

/** One writer thread and what it owes: its own requests, its own jobs, its own idle timer. */
class WriterThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  private jobs = 0;
  private idleTimer?: NodeJS.Timeout;
  /** No new requests: the thread failed or is being retired. */
  exited = false;
  /** Resolves once the thread has stopped, its file operations with it. */
  readonly gone: Promise<void>;

  constructor() {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], name: "pincer-block-writer", workerData: { blockBytes: BLOCK_BYTES, alignment: DIRECT_IO_BLOCK } });
    this.worker.on("message", (r: Reply) => {
      const entry = this.waiting.get(r.seq);
      this.waiting.delete(r.seq);
      if (this.waiting.size === 0) this.worker.unref();
      if (!entry) return;
      if (r.error) entry.reject(Object.assign(new Error(r.error.message), { code: r.error.code }));
      else entry.resolve(r);
    });
    this.worker.on("error", (err) => this.fail(err));
    this.gone = new Promise((resolve) => this.worker.once("exit", () => resolve()));
    this.worker.on("exit", () => this.fail(new Error("the block writer thread exited")));
    this.worker.unref();
  }

  request(message: Record<string, unknown>, transfer?: ArrayBuffer[]): Promise<Reply> {
    if (this.exited) return Promise.reject(new Error("the block writer thread exited"));
    const seq = nextSeq++;
    // Referenced while it owes an answer, so a caller awaiting it keeps the process alive.
    if (this.waiting.size === 0) this.worker.ref();
    const reply = new Promise<Reply>((resolve, reject) => this.waiting.set(seq, { resolve, reject }));
    try {
      this.worker.postMessage({ ...message, seq }, transfer);
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
    t = current && !current.exited ? current : (current = new WriterThread());
  } catch {
    return undefined;
  }
  const job = nextJob++;
  t.jobStarted();
  // Answered once the thread runs and has its blocks: a thread that cannot start costs no data.
  const opened = await t.request({ op: "open", job, fd, direct: directFd }).then(
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
      let reply: Promise<Reply>;
      try {
        reply = t.request({ op: "data", job, data }, [data.buffer as ArrayBuffer]);
      } catch {
        // Memory node will not hand over (marked untransferable): send a copy.
        const copy = new Uint8Array(chunk);
        reply = t.request({ op: "data", job, data: copy }, [copy.buffer]);
      }
      await reply;
    },
    finish: async () => {
      const r = await t.request({ op: "finish", job });
      return { sha256: r.sha256!, padded: r.padded ?? false };
    },
    drop: async () => {
      if (ended) return;
      ended = true;
      try {
        await t.request({ op: "drop", job });
      } catch {
        // The thread failed: wait until it has stopped, its writes in flight with it.
        await t.gone;
      } finally {
        t.jobEnded();
      }
    },
  };
}
