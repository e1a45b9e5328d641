import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { access, rename, open, stat as localStat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import {
  CancelledError,
  ChunkReader,
  decodeIntoPool,
  FileSink,
  InternalError,
  InvalidArgumentError,
  NotFoundError,
  PermissionDeniedError,
  ResourceExhaustedError,
  type wire,
} from "@pincer/shared";
import { frameUploadChunksInPlace } from "./framing.js";
import type { ClientStreamCall, PromiseClient } from "./rpc.js";
import type { CallOptions } from "./types.js";

/** Bytes per chunk message. */
const CHUNK = 1024 * 1024;
/** Transfers get at least this rate before their default deadline passes: 1 MiB/s. */
const MIN_RATE_BYTES_PER_MS = (1024 * 1024) / 1000;

/** How far a transfer has come. */
export interface TransferProgress {
  /** Bytes moved so far. */
  bytes: number;
  /** Bytes to move in all, when known. */
  totalBytes?: number;
}

/**
 * Options of every transfer. Without `timeoutMs`, a transfer's deadline is the environment's
 * default plus one second per MiB.
 */
export interface TransferOptions extends CallOptions {
  /** Called after each chunk. */
  onProgress?: (p: TransferProgress) => void;
}

/** Options of `env.files.upload` and `env.files.write`. */
export interface UploadOptions extends TransferOptions {
  /** Permission bits of the new file. @default 0o644 */
  mode?: number;
  /** Replace an existing file. @default true */
  overwrite?: boolean;
  /** Create missing parent directories. @default true */
  createParents?: boolean;
}

/** Options of `env.files.download` and `env.files.read`. */
export interface DownloadOptions extends TransferOptions {
  /** Start at this byte. @default 0 */
  offset?: number;
  /** Largest download kept in memory when no local path is given, in bytes. @default 64 MiB */
  maxBytes?: number;
}

/** A finished transfer. */
export interface TransferResult {
  /** Where the bytes are now: the remote path of an upload, the local path of a download to a file. */
  path: string;
  /** Bytes moved. */
  size: number;
  /** Lower-case hex sha256 of the bytes moved, verified on both ends. */
  sha256: string;
}

/** What the transfers need of `env.files`. */
export interface TransferContext {
  files: PromiseClient<"Files">;
  defaultTimeoutMs: number;
  /** The error of a transfer stopped by its own timer after `ms`, as a call past its deadline would give. */
  deadlineError(method: string, ms: number): Error;
}

/** A transfer's deadline: the caller's, or the default plus time for the bytes at 1 MiB/s. */
function transferTimeoutMs(ctx: TransferContext, opts: CallOptions, bytes: number): number {
  return opts.timeoutMs ?? ctx.defaultTimeoutMs + bytes / MIN_RATE_BYTES_PER_MS;
}

/** Chunk buffers an upload of a file keeps for reuse: more than grpc-js queues (16 messages) and the reads ahead. */
const UPLOAD_POOL = 24;

/**
 * What an upload sends: a local file read into buffers laid out as encoded chunk messages (no copy
 * through protobufjs), or slices of bytes in memory. A file's whole chunks are read into again once
 * grpc-js's write callback said the message was written out (see ChunkReader for why only whole
 * ones). New memory is dear on small VMs (see @pincer/shared receivePool.ts): reusing it saved a
 * third of the client's CPU per upload of 256 MiB here.
 */
async function* uploadChunks(source: string | Uint8Array): AsyncGenerator<{ data: Buffer; message: wire.UploadRequest; release?: () => void }> {
  if (typeof source !== "string") {
    for (let i = 0; i < source.length; i += CHUNK) {
      const chunk = Buffer.from(source.buffer, source.byteOffset + i, Math.min(CHUNK, source.length - i));
      yield { data: chunk, message: { chunk } };
    }
    return;
  }
  const fh = await open(source, "r");
  const reader = new ChunkReader(fh, 0, CHUNK, UPLOAD_POOL);
  try {
    for (let chunk = await reader.next(); chunk; chunk = await reader.next()) {
      // Only a whole chunk: grpc-js calls back at once for a message it can keep for a retry (up to
      // 256 KiB per call, even with retries off), before writing it; a 1 MiB chunk it never keeps.
      const release = chunk.data.length === CHUNK ? chunk.release : undefined;
      yield { data: chunk.data, message: chunk.message as wire.UploadRequest, release };
    }
  } finally {
    // Its reads ahead end before the file closes (an upload cancelled part way).
    await reader.close();
    await fh.close();
  }
}

/** Writes the header, the chunks (as flow control allows) and the trailer with the sha256 of what was sent. */
async function sendUpload(
  call: ClientStreamCall<wire.UploadRequest, unknown>,
  source: string | Uint8Array,
  header: wire.UploadRequest["header"],
  total: number,
  opts: UploadOptions,
): Promise<void> {
  await call.write({ header });
  const hash = createHash("sha256");
  let sent = 0;
  for await (const chunk of uploadChunks(source)) {
    opts.signal?.throwIfAborted();
    hash.update(chunk.data);
    const written = call.write(chunk.message, chunk.release);
    sent += chunk.data.length;
    opts.onProgress?.({ bytes: sent, totalBytes: total });
    await written;
  }
  await call.write({ trailer: { size: sent, sha256: hash.digest("hex") } });
  call.end();
}

/** Uploads a local file or bytes to `remotePath`; see `env.files.upload`. */
export async function upload(ctx: TransferContext, source: string | Uint8Array, remotePath: string, opts: UploadOptions = {}): Promise<TransferResult> {
  opts.signal?.throwIfAborted();
  const total =
    typeof source === "string"
      ? (await localStat(source).catch(() => Promise.reject(new NotFoundError(`upload: local file ${source} does not exist`)))).size
      : source.length;
  // A file's chunks go out without grpc-js's copy of each (see framing.ts).
  if (typeof source === "string") frameUploadChunksInPlace();
  const call = ctx.files.Upload({ ...opts, timeoutMs: transferTimeoutMs(ctx, opts, total) });
  const header = { path: remotePath, mode: opts.mode ?? 0o644, overwrite: opts.overwrite ?? true, createParents: opts.createParents ?? true, size: total };
  try {
    await sendUpload(call, source, header, total, opts);
  } catch (err) {
    // Reading the local file failed, the caller aborted or the call failed: cancel, so the daemon
    // writes nothing, and report the call's own error when it has one.
    call.cancel();
    const callFailure = await call.response.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (opts.signal?.aborted) throw new CancelledError("Files/Upload: cancelled by the caller", { cause: opts.signal.reason });
    throw callFailure instanceof Error && !(callFailure instanceof CancelledError) ? callFailure : err;
  }
  const res = await call.response;
  return { path: res.path, size: res.size, sha256: res.sha256 };
}

/** A local destination that cannot be created, as an error that says what to do. */
function localFileError(err: unknown, localPath: string): Error {
  const code = (err as NodeJS.ErrnoException).code;
  const dir = dirname(localPath);
  if (code === "ENOENT") return new NotFoundError(`download: local directory ${dir} does not exist; create it first`, { cause: err });
  if (code === "EACCES" || code === "EPERM" || code === "EROFS")
    return new PermissionDeniedError(`download: cannot write in local directory ${dir} (${code})`, { cause: err });
  if (code === "ENOTDIR") return new InvalidArgumentError(`download: ${dir} is not a directory`, { cause: err });
  return err instanceof Error ? err : new Error(String(err));
}

/** Where downloaded bytes go: a file (hashed and written as they arrive, see FileSink), or memory. */
interface DownloadTarget {
  write(chunk: Buffer): Promise<void>;
  digest(): Promise<string>;
  /** Puts the result in place; returns what the caller gets. */
  commit(received: number, sha256: string): Promise<TransferResult & { data?: Buffer }>;
  discard(): Promise<void>;
}

async function fileTarget(localPath: string, expectedBytes: number): Promise<DownloadTarget> {
  const tmp = join(dirname(localPath), `.${basename(localPath)}.pincer-${randomBytes(6).toString("hex")}.part`);
  const sink = await FileSink.create(tmp, { mode: 0o666, expectedBytes }).catch((e: unknown) => Promise.reject(localFileError(e, localPath)));
  return {
    write: (chunk) => sink.write(chunk),
    digest: () => sink.digest(),
    async commit(received, sha256) {
      await sink.finish();
      await sink.close();
      await rename(tmp, localPath);
      return { path: localPath, size: received, sha256 };
    },
    async discard() {
      await sink.close().catch(() => undefined);
      await unlink(tmp).catch(() => undefined);
    },
  };
}

function memoryTarget(remotePath: string): DownloadTarget {
  const parts: Buffer[] = [];
  const hash = createHash("sha256");
  return {
    write: async (chunk) => {
      hash.update(chunk);
      parts.push(chunk);
    },
    digest: async () => hash.digest("hex"),
    commit: async (received, sha256) => ({ path: remotePath, size: received, sha256, data: Buffer.concat(parts) }),
    discard: async () => undefined,
  };
}

/**
 * A download to a file is bounded by a timer rather than the call's deadline: its size is known only
 * from the Download's header, so the limit is the default until the header comes, then the default
 * plus time for the bytes (as an upload's). One call, no Stat first.
 */
function transferWatchdog(ctx: TransferContext, call: { cancel(): void }): { sized(bytes: number): void; expiredMs?: number; stop(): void } {
  const started = Date.now();
  let limit = ctx.defaultTimeoutMs;
  const state: { sized(bytes: number): void; expiredMs?: number; stop(): void } = {
    sized(bytes) {
      clearTimeout(timer);
      limit = ctx.defaultTimeoutMs + bytes / MIN_RATE_BYTES_PER_MS;
      timer = setTimeout(fire, Math.max(0, started + limit - Date.now()));
    },
    stop: () => clearTimeout(timer),
  };
  const fire = () => {
    state.expiredMs = limit;
    call.cancel();
  };
  let timer = setTimeout(fire, limit);
  return state;
}

/** Longest a download to a file may run when its watchdog, not the caller, bounds it: a week. */
const UNBOUNDED_MS = 7 * 24 * 3600 * 1000;

/** Downloads `remotePath` to `localPath` or into memory; see `env.files.download`. */
export async function download(
  ctx: TransferContext,
  remotePath: string,
  localPath: string | undefined,
  opts: DownloadOptions = {},
): Promise<TransferResult & { data?: Buffer }> {
  const method = "Files/Download";
  opts.signal?.throwIfAborted();
  const offset = opts.offset ?? 0;
  const maxBytes = opts.maxBytes ?? 64 * 1024 * 1024;
  const tooLarge = (bytes: number) =>
    new ResourceExhaustedError(`${remotePath}: ${bytes} bytes is over maxBytes (${maxBytes}); give a local path to download it to a file`);
  // One call either way: the Download's header says the size, and a missing file is its NOT_FOUND.
  // To a file: its directory is checked first, so a destination that cannot be written fails before
  // the call starts; the file is made (sized for its writer) when the header comes.
  if (localPath) await access(dirname(localPath), constants.W_OK).catch((e: unknown) => Promise.reject(localFileError(e, localPath)));
  const watched = localPath !== undefined && opts.timeoutMs === undefined;
  const timeoutMs = opts.timeoutMs ?? (watched ? UNBOUNDED_MS : transferTimeoutMs(ctx, opts, maxBytes));
  // A file's chunks are received into reused memory (see @pincer/shared receivePool.ts).
  if (localPath) decodeIntoPool();
  const call = ctx.files.Download({ path: remotePath, offset, chunkSize: 0 }, { ...opts, timeoutMs });
  const watchdog = watched ? transferWatchdog(ctx, call) : undefined;
  let target = localPath ? undefined : memoryTarget(remotePath);
  let received = 0;
  let expected: number | undefined;
  let trailer: { bytes: number; sha256: string } | undefined;
  try {
    for await (const msg of call) {
      if (msg.message === "header" && msg.header) {
        expected = msg.header.size - msg.header.offset;
        if (!localPath && expected > maxBytes) throw tooLarge(expected);
        watchdog?.sized(expected);
        if (localPath) target = await fileTarget(localPath, expected);
      } else if (msg.message === "chunk" && msg.chunk) {
        received += msg.chunk.length;
        if (!target) throw new InternalError(`${method}: ${remotePath}: data came before the header`);
        await target.write(msg.chunk);
        opts.onProgress?.({ bytes: received, totalBytes: expected });
      } else if (msg.message === "trailer" && msg.trailer) trailer = { bytes: msg.trailer.bytes, sha256: msg.trailer.sha256 };
    }
    if (watchdog?.expiredMs !== undefined) throw ctx.deadlineError(method, watchdog.expiredMs);
    if (!trailer || !target) throw new InternalError(`${method}: ${remotePath}: the stream ended without its trailer`);
    const sha256 = await target.digest();
    if (trailer.bytes !== received || trailer.sha256 !== sha256) {
      throw new InternalError(
        `${method}: ${remotePath}: received ${received} bytes with sha256 ${sha256}, the daemon sent ${trailer.bytes} with ${trailer.sha256}`,
      );
    }
    return await target.commit(received, sha256);
  } catch (err) {
    call.cancel();
    await target?.discard();
    if (watchdog?.expiredMs !== undefined && !(err instanceof InternalError)) throw ctx.deadlineError(method, watchdog.expiredMs);
    if (opts.signal?.aborted && !(err instanceof InternalError)) throw new CancelledError(`${method}: cancelled by the caller`, { cause: opts.signal.reason });
    throw err;
  } finally {
    watchdog?.stop();
  }
}
