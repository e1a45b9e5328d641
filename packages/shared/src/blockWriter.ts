import { Worker } from "node:worker_threads";
import { DIRECT_IO_BLOCK } from "./directIo.js";

/** The unit of a direct write in the writer thread. */
const BLOCK_BYTES = 4 * 1024 * 1024;

/**
 * A thread that hashes and writes large incoming files (FileSink's direct mode), so that the
 * thread receiving the stream only hands chunks over. Profiles of a 1 GiB download had the
 * receiving main thread busy 85–90% of the time, a third of it in sha256, and the transfer went as
 * fast as that thread. One thread serves every transfer of the process; it starts on first use and
 * does not keep the process alive while idle.
 *
 * Chunks move to the thread without a copy (their memory is transferred, see {@link BlockJob.write}).
 * The thread hashes them in order and gathers them into a page-aligned 4 MiB block (a WebAssembly
 * memory: see directIo.ts), written with O_DIRECT when full; the last block is padded to whole
 * 4096-byte blocks and the caller truncates the file to its size. Where a write through O_DIRECT
 * fails with EINVAL, the job goes on with buffered writes.
 *
 * The code runs from a string (`eval`), so the same file works from the TypeScript sources (tests,
 * tsx) and from the build, and the thread loads nothing but node's own modules.
 */
const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require("node:worker_threads");
const { createHash } = require("node:crypto");
const { writeSync } = require("node:fs");
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
  for (let done = 0; done < view.length; ) {
    const n = writeSync(fd, view, done, view.length - done, at + done);
    if (n === 0) throw Object.assign(new Error("write returned 0 bytes at offset " + (at + done)), { code: "EIO" });
    done += n;
  }
}
// Writes the job's block (the first length bytes, padded to whole O_DIRECT blocks) at its offset.
function flush(job, length) {
  const whole = Math.ceil(length / alignment) * alignment;
  if (job.direct >= 0) {
    if (whole > length) {
      job.block.fill(0, length, whole);
      job.padded = true;
    }
    try {
      writeAll(job.direct, job.block.subarray(0, whole), job.blockAt);
      return;
    } catch (err) {
      if (err.code !== "EINVAL") throw err;
      job.direct = -1;
    }
  }
  writeAll(job.fd, job.block.subarray(0, length), job.blockAt);
}
function release(id) {
  const job = jobs.get(id);
  jobs.delete(id);
  if (job && job.block && idleBlocks.length < 2) idleBlocks.push(job.block);
}
parentPort.on("message", (m) => {
  const job = jobs.get(m.job);
  try {
    if (m.op === "open") {
      const block = m.direct >= 0 ? alignedBlock() : undefined;
      jobs.set(m.job, { hash: createHash("sha256"), fd: m.fd, direct: block ? m.direct : -1, block, filled: 0, blockAt: 0, size: 0, padded: false });
      return;
    }
    if (m.op === "drop") return release(m.job);
    if (!job) throw new Error("no such job: " + m.job);
    if (job.failed) throw job.failed;
    if (m.op === "data") {
      const data = m.data;
      job.hash.update(data);
      if (!job.block) {
        writeAll(job.fd, data, job.size);
      } else {
        for (let from = 0; from < data.length; ) {
          const n = Math.min(data.length - from, job.block.length - job.filled);
          job.block.set(data.subarray(from, from + n), job.filled);
          job.filled += n;
          from += n;
          if (job.filled === job.block.length) {
            flush(job, job.filled);
            job.blockAt += job.filled;
            job.filled = 0;
          }
        }
      }
      job.size += data.length;
      parentPort.postMessage({ seq: m.seq });
    } else if (m.op === "finish") {
      if (job.block && job.filled > 0) flush(job, job.filled);
      const reply = { seq: m.seq, sha256: job.hash.digest("hex"), padded: job.padded };
      release(m.job);
      parentPort.postMessage(reply);
    }
  } catch (err) {
    if (job) job.failed = err;
    parentPort.postMessage({ seq: m.seq, error: { code: err.code, message: err.message } });
  }
});
`;

interface Reply {
  seq: number;
  sha256?: string;
  padded?: boolean;
  error?: { code?: string; message: string };
}

let worker: Worker | undefined;
const exited = new WeakSet<Worker>();
let nextSeq = 1;
let nextJob = 1;
const waiting = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();

function failAll(err: Error): void {
  for (const w of waiting.values()) w.reject(err);
  waiting.clear();
}

function thread(): Worker {
  if (worker) return worker;
  const w = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], name: "pincer-block-writer", workerData: { blockBytes: BLOCK_BYTES, alignment: DIRECT_IO_BLOCK } });
  w.on("message", (r: Reply) => {
    const entry = waiting.get(r.seq);
    waiting.delete(r.seq);
    if (waiting.size === 0) w.unref();
    if (!entry) return;
    if (r.error) entry.reject(Object.assign(new Error(r.error.message), { code: r.error.code }));
    else entry.resolve(r);
  });
  w.on("error", (err) => failAll(err));
  w.on("exit", () => {
    exited.add(w);
    if (worker === w) worker = undefined;
    failAll(new Error("the block writer thread exited"));
  });
  w.unref();
  worker = w;
  return w;
}

function request(w: Worker, message: Record<string, unknown>, transfer?: ArrayBuffer[]): Promise<Reply> {
  if (exited.has(w)) return Promise.reject(new Error("the block writer thread exited"));
  const seq = nextSeq++;
  // Referenced while it owes an answer, so a caller awaiting it keeps the process alive.
  if (waiting.size === 0) w.ref();
  const reply = new Promise<Reply>((resolve, reject) => waiting.set(seq, { resolve, reject }));
  try {
    w.postMessage({ ...message, seq }, transfer);
  } catch (err) {
    waiting.delete(seq);
    if (waiting.size === 0) w.unref();
    throw err;
  }
  return reply;
}

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
  /** Forgets the job (after a failure). */
  drop(): void;
}

/**
 * Starts a job writing through `fd` (and `directFd`, opened with O_DIRECT, while it accepts the
 * writes), or returns undefined where no thread can be started.
 */
export function startBlockJob(fd: number, directFd: number): BlockJob | undefined {
  let w: Worker;
  try {
    w = thread();
  } catch {
    return undefined;
  }
  const job = nextJob++;
  w.postMessage({ op: "open", job, fd, direct: directFd });
  return {
    write: async (chunk) => {
      const data = transferable(chunk);
      let reply: Promise<Reply>;
      try {
        reply = request(w, { op: "data", job, data }, [data.buffer as ArrayBuffer]);
      } catch {
        // Memory node will not hand over (marked untransferable): send a copy.
        const copy = new Uint8Array(chunk);
        reply = request(w, { op: "data", job, data: copy }, [copy.buffer]);
      }
      await reply;
    },
    finish: async () => {
      const r = await request(w, { op: "finish", job });
      return { sha256: r.sha256!, padded: r.padded ?? false };
    },
    drop: () => w.postMessage({ op: "drop", job }),
  };
}
