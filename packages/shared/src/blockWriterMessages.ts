/**
 * The messages between blockWriter.ts and its thread (blockWriterWorker.js), declared once for
 * both sides: the thread's code imports them through JSDoc and is checked against them (checkJs).
 *
 * Every request carries a `seq` and gets exactly one reply with the same `seq`: the result of its
 * `op`, or an error. The requests of one job are answered in order.
 */

/** The thread's workerData. */
export interface WriterConfig {
  /** Bytes in each of a job's two aligned blocks: a multiple of the WebAssembly page (64 KiB). */
  blockBytes: number;
  /** Direct writes start and end on multiples of this (the file is padded, the caller truncates). */
  alignment: number;
  /**
   * A job's direct writes go to the disk (fdatasync, in the background) each time this many more
   * bytes were written, so that the caller's flush at the end has little left. 0: never.
   */
  syncBytes: number;
}

/** What each request carries besides its `op` and `seq`. */
export interface Requests {
  /**
   * Starts job `job` on `fd` (buffered) and `direct` (opened with O_DIRECT, -1 for none), which it
   * uses while the file system accepts the writes. Answered once the thread has the job's blocks.
   */
  open: { job: number; fd: number; direct: number };
  /** The job's next bytes. Their memory is transferred to the thread, and back with the reply. */
  data: { job: number; data: Uint8Array };
  /** Writes what is left of the job. */
  finish: { job: number };
  /** Waits for any write of the job in flight, then forgets it: its descriptors may be closed. */
  drop: { job: number };
}

/** The result of each request. */
export interface Results {
  open: Record<string, never>;
  /** The memory of the request's `data`, handed back (transferred). */
  data: { data: Uint8Array };
  /**
   * The sha256 (hex) of all the job's bytes, whether the file was padded past its size, and how
   * many of its first bytes were already flushed to the disk along the way (see `syncBytes`).
   */
  finish: { sha256: string; padded: boolean; flushedBytes: number };
  drop: Record<string, never>;
}

export type Op = keyof Requests;

/** Request `op` as posted to the thread. */
export type RequestOf<O extends Op> = { op: O; seq: number } & Requests[O];

/** Any request as posted to the thread. */
export type Request = { [O in Op]: RequestOf<O> }[Op];

/** An error of the thread, as posted (an Error does not survive postMessage with its `code`). */
export interface ThreadError {
  code?: string;
  message: string;
}

/** A reply as posted by the thread. */
export type Reply = { seq: number; result: Results[Op]; error?: undefined } | { seq: number; error: ThreadError };
