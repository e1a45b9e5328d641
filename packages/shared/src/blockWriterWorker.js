// @ts-check
/**
 * The block writer thread: hashes a job's chunks in order and writes them, through O_DIRECT in
 * aligned blocks while the file system takes it (blockWriter.ts describes the design).
 *
 * Plain JavaScript, type-checked by tsc (checkJs) against blockWriterMessages.ts, so the same file
 * loads as-is from src/ (tests and tsx, whose loaders do not reach worker threads) and from dist/
 * (tsc copies it there). It imports nothing but node's own modules.
 */
/** @import { Hash } from "node:crypto" */
/** @import { Op, Reply, Request, Results, ThreadError, WriterConfig } from "./blockWriterMessages.js" */
import { createHash } from "node:crypto";
import { fdatasync, write } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";

/**
 * One file being written.
 * @typedef {object} Job
 * @property {Hash} hash Of every byte so far, in order.
 * @property {number} fd Buffered descriptor.
 * @property {number} direct O_DIRECT descriptor; -1 once (or if ever) the job writes buffered.
 * @property {[Uint8Array, Uint8Array] | undefined} blocks Aligned blocks: one fills while the other
 *   is written. Undefined: no aligned memory or no O_DIRECT, every chunk is written as it comes.
 * @property {0 | 1} current The block filling.
 * @property {number} filled Bytes in the block filling.
 * @property {number} blockAt File offset of the block filling.
 * @property {number} size Bytes consumed.
 * @property {boolean} padded Whether a direct write went past the end of the data.
 * @property {Promise<void>} writing The block write in flight.
 * @property {Promise<void>} syncing The flush to the disk in flight (fdatasync of `direct`).
 * @property {number} flushedTo Bytes at the start of the file that the last flush covers.
 * @property {Promise<void>} queue The job's messages, handled one after another.
 * @property {unknown} [failed] The job's first error: every later request gets it.
 */

/** @type {import("node:worker_threads").MessagePort} */
const port =
  parentPort ??
  (() => {
    throw new Error("blockWriterWorker.js runs as a worker thread (see blockWriter.ts)");
  })();
/** @type {WriterConfig} */
const { blockBytes, alignment, syncBytes } = workerData;
/** @type {Map<number, Job>} */
const jobs = new Map();
/** @type {Uint8Array[]} */
const idleBlocks = [];

/**
 * The one piece of WebAssembly used here (the project's TypeScript lib has no WebAssembly types).
 * @type {{ new (descriptor: { initial: number }): { readonly buffer: ArrayBuffer } } | undefined}
 */
const WasmMemory = /** @type {{ WebAssembly?: { Memory?: any } }} */ (globalThis).WebAssembly?.Memory;

/** A page-aligned block of blockBytes (a WebAssembly memory, see directIo.ts), or undefined. */
function alignedBlock() {
  const idle = idleBlocks.pop();
  if (idle) return idle;
  try {
    return WasmMemory ? new Uint8Array(new WasmMemory({ initial: blockBytes / 65536 }).buffer) : undefined;
  } catch {
    return undefined;
  }
}

/** @param {unknown} err */
function codeOf(err) {
  const code = /** @type {{ code?: unknown } | null | undefined} */ (err)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * Writes all of `view` at offset `at`.
 * @param {number} fd
 * @param {Uint8Array} view
 * @param {number} at
 * @returns {Promise<void>}
 */
function writeAll(fd, view, at) {
  return new Promise((resolve, reject) => {
    /** @param {number} done */
    const step = (done) => {
      if (done === view.length) return resolve();
      write(fd, view, done, view.length - done, at + done, (err, n) => {
        if (err) return reject(err);
        if (n === 0) return reject(Object.assign(new Error(`write returned 0 bytes at offset ${at + done}`), { code: "EIO" }));
        step(done + n);
      });
    };
    step(0);
  });
}

/**
 * Writes the first `length` bytes of `block` at offset `at`: padded to whole blocks through
 * O_DIRECT while the file system takes it, else buffered.
 * @param {Job} job
 * @param {Uint8Array} block
 * @param {number} length
 * @param {number} at
 * @returns {Promise<void>}
 */
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
      if (codeOf(err) !== "EINVAL") throw err;
      job.direct = -1;
    }
  }
  await writeAll(job.fd, block.subarray(0, length), at);
}

/**
 * Starts flushing what the job has written so far (all of it: its block writes are done) to the
 * disk, in the background. On a virtual machine O_DIRECT writes can wait in the host's cache, and a
 * flush at the end of 256 MiB took 200 ms here; flushed along the way, while the next blocks arrive,
 * the caller's fsync at the end finds little left.
 * @param {Job} job
 */
function startSync(job) {
  const direct = job.direct;
  job.syncing = new Promise((resolve, reject) => fdatasync(direct, (err) => (err ? reject(err) : resolve())));
  job.syncing.catch(() => undefined);
  job.flushedTo = job.blockAt;
}

/**
 * One block is written while the other fills: waits for the write in flight, then starts this one.
 * @param {Job} job
 * @param {[Uint8Array, Uint8Array]} blocks The job's blocks.
 * @param {number} length
 */
async function startWrite(job, blocks, length) {
  const block = blocks[job.current];
  const at = job.blockAt;
  await job.writing;
  if (syncBytes > 0 && job.direct >= 0 && job.blockAt - job.flushedTo >= syncBytes) {
    // One flush at a time: a failed one fails the job here.
    await job.syncing;
    startSync(job);
  }
  job.writing = flush(job, block, length, at);
  job.writing.catch(() => undefined);
  job.current = job.current === 0 ? 1 : 0;
  job.blockAt += length;
  job.filled = 0;
}

/**
 * @param {Job} job
 * @param {Uint8Array} data
 */
async function consume(job, data) {
  job.hash.update(data);
  const blocks = job.blocks;
  if (!blocks) {
    await writeAll(job.fd, data, job.size);
  } else {
    for (let from = 0; from < data.length; ) {
      const block = blocks[job.current];
      const n = Math.min(data.length - from, block.length - job.filled);
      block.set(data.subarray(from, from + n), job.filled);
      job.filled += n;
      from += n;
      if (job.filled === block.length) await startWrite(job, blocks, job.filled);
    }
  }
  job.size += data.length;
}

/**
 * @param {Job} job
 * @returns {Promise<Results["finish"]>}
 */
async function finish(job) {
  if (job.blocks && job.filled > 0) await startWrite(job, job.blocks, job.filled);
  await job.writing;
  await job.syncing;
  return { sha256: job.hash.digest("hex"), padded: job.padded, flushedBytes: job.flushedTo };
}

/**
 * Answers request `m` with the result of its op.
 * @template {Op} O
 * @param {{ op: O, seq: number }} m
 * @param {Results[O]} result
 * @param {ArrayBuffer[]} [transfer]
 */
function answer(m, result, transfer) {
  /** @type {Reply} */
  const reply = { seq: m.seq, result };
  port.postMessage(reply, transfer);
}

/**
 * @param {{ seq: number }} m
 * @param {ThreadError} error
 */
function answerError(m, error) {
  /** @type {Reply} */
  const reply = { seq: m.seq, error };
  port.postMessage(reply);
}

port.on("message", (/** @type {Request} */ m) => {
  if (m.op === "open") {
    const a = m.direct >= 0 ? alignedBlock() : undefined;
    const b = a ? alignedBlock() : undefined;
    if (a && !b) idleBlocks.push(a);
    /** @type {Job["blocks"]} */
    const blocks = a && b ? [a, b] : undefined;
    jobs.set(m.job, {
      hash: createHash("sha256"),
      fd: m.fd,
      direct: blocks ? m.direct : -1,
      blocks,
      current: 0,
      filled: 0,
      blockAt: 0,
      size: 0,
      padded: false,
      writing: Promise.resolve(),
      syncing: Promise.resolve(),
      flushedTo: 0,
      queue: Promise.resolve(),
    });
    return answer(m, {});
  }
  const job = jobs.get(m.job);
  if (!job) return answerError(m, { message: `no such job: ${m.job}` });
  // A job's messages are handled one after another; its replies go out in order.
  job.queue = job.queue.then(async () => {
    try {
      if (m.op === "drop") {
        // Nothing may be in flight on the descriptors once the caller closes them.
        await job.writing.catch(() => undefined);
        await job.syncing.catch(() => undefined);
        jobs.delete(m.job);
        for (const b of job.blocks ?? []) if (idleBlocks.length < 2) idleBlocks.push(b);
        return answer(m, {});
      }
      if (job.failed) throw job.failed;
      if (m.op === "data") {
        await consume(job, m.data);
        // The memory goes back: this thread allocates too little to collect it soon, the caller's
        // thread collects such young buffers within milliseconds.
        answer(m, { data: m.data }, [/** @type {ArrayBuffer} */ (m.data.buffer)]);
      } else if (m.op === "finish") {
        answer(m, await finish(job));
      }
    } catch (err) {
      job.failed = err;
      answerError(m, { code: codeOf(err), message: err instanceof Error ? err.message : String(err) });
    }
  });
});
