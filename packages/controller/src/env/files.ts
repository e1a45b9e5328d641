import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { open, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type * as grpc from "@grpc/grpc-js";
import {
  CancelledError,
  ChunkReader,
  FileSink,
  InternalError,
  InvalidArgumentError,
  NotFoundError,
  PermissionDeniedError,
  ResourceExhaustedError,
  type wire,
} from "@pincer/shared";
import { callError, cancelOnAbort } from "./call.js";
import type { CallOptions, DownloadOptions, FileInfo, FilesApi, TransferResult, UploadOptions } from "./types.js";

const CHUNK = 1024 * 1024;
/** Transfers get at least this rate before their default deadline passes: 1 MiB/s. */
const MIN_RATE_BYTES_PER_MS = 1024 * 1024 / 1000;

type Invoke = <Res>(method: string, opts: CallOptions, start: (co: grpc.CallOptions, cb: grpc.requestCallback<Res>) => grpc.ClientUnaryCall) => Promise<Res>;

const FILE_TYPES: Record<string, FileInfo["type"]> = {
  FILE_TYPE_FILE: "file",
  FILE_TYPE_DIRECTORY: "directory",
  FILE_TYPE_SYMLINK: "symlink",
};

function toFileInfo(f: wire.FileInfo__Output): FileInfo {
  return {
    path: f.path,
    name: f.name,
    type: FILE_TYPES[f.type] ?? "other",
    size: f.size,
    mode: f.mode,
    modifiedMs: f.modifiedMs,
    symlinkTarget: f.symlinkTarget,
  };
}

/**
 * What an upload sends: a local file read into buffers laid out as encoded chunk messages (no copy
 * through protobufjs; not reused, since grpc-js may still hold one after calling back, see
 * ChunkReader), or slices of bytes in memory.
 */
async function* uploadChunks(source: string | Uint8Array): AsyncGenerator<{ data: Buffer; message: wire.UploadRequest }> {
  if (typeof source !== "string") {
    for (let i = 0; i < source.length; i += CHUNK) {
      const chunk = Buffer.from(source.buffer, source.byteOffset + i, Math.min(CHUNK, source.length - i));
      yield { data: chunk, message: { chunk } };
    }
    return;
  }
  const fh = await open(source, "r");
  const reader = new ChunkReader(fh, 0, CHUNK);
  try {
    for (let chunk = await reader.next(); chunk; chunk = await reader.next()) yield { data: chunk.data, message: chunk.message as wire.UploadRequest };
  } finally {
    // Its reads ahead end before the file closes (an upload cancelled part way).
    await reader.close();
    await fh.close();
  }
}

/** A local destination that cannot be created, as an error that says what to do. */
function localFileError(err: unknown, localPath: string): Error {
  const code = (err as NodeJS.ErrnoException).code;
  const dir = dirname(localPath);
  if (code === "ENOENT") return new NotFoundError(`download: local directory ${dir} does not exist; create it first`, { cause: err });
  if (code === "EACCES" || code === "EPERM" || code === "EROFS") return new PermissionDeniedError(`download: cannot write in local directory ${dir} (${code})`, { cause: err });
  if (code === "ENOTDIR") return new InvalidArgumentError(`download: ${dir} is not a directory`, { cause: err });
  return err instanceof Error ? err : new Error(String(err));
}

/** The `env.files` API over one Files client. */
export function createFilesApi(client: wire.FilesClient, address: string, defaultTimeoutMs: number, invoke: Invoke): FilesApi {
  const deadlineFor = (opts: CallOptions, bytes: number) => Date.now() + (opts.timeoutMs ?? Math.max(defaultTimeoutMs, defaultTimeoutMs + bytes / MIN_RATE_BYTES_PER_MS));

  async function upload(source: string | Uint8Array, remotePath: string, opts: UploadOptions = {}): Promise<TransferResult> {
    const method = "Files/Upload";
    const { signal } = opts;
    signal?.throwIfAborted();
    const total = typeof source === "string" ? (await stat(source).catch(() => Promise.reject(new NotFoundError(`upload: local file ${source} does not exist`)))).size : source.length;
    return new Promise<TransferResult>((resolve, reject) => {
      let stopListening = () => undefined as void;
      const call = client.Upload({ deadline: deadlineFor(opts, total) }, (err, res) => {
        stopListening();
        if (err) reject(callError(method, address, err, signal));
        else resolve({ path: res!.path, size: res!.size, sha256: res!.sha256 });
      });
      stopListening = cancelOnAbort(call, signal);
      const send = async () => {
        call.write({
          header: {
            path: remotePath,
            mode: opts.mode ?? 0o644,
            overwrite: opts.overwrite ?? true,
            createParents: opts.createParents ?? true,
            size: total,
          },
        });
        const hash = createHash("sha256");
        let sent = 0;
        for await (const chunk of uploadChunks(source)) {
          signal?.throwIfAborted();
          hash.update(chunk.data);
          const more = call.write(chunk.message);
          sent += chunk.data.length;
          opts.onProgress?.({ bytes: sent, totalBytes: total });
          if (!more) await once(call, "drain", { signal });
        }
        call.write({ trailer: { size: sent, sha256: hash.digest("hex") } });
        call.end();
      };
      send().catch((err: unknown) => {
        // Reading the local file failed or the caller aborted: cancel so the daemon writes nothing.
        call.cancel();
        if (!signal?.aborted) reject(err instanceof Error ? err : new Error(String(err)));
      });
    });
  }

  async function download(remotePath: string, localPath?: string, opts: DownloadOptions = {}): Promise<TransferResult & { data?: Buffer }> {
    const method = "Files/Download";
    const { signal } = opts;
    signal?.throwIfAborted();
    const info = await api.stat(remotePath, { signal, timeoutMs: opts.timeoutMs });
    const offset = opts.offset ?? 0;
    const maxBytes = opts.maxBytes ?? 64 * 1024 * 1024;
    if (!localPath && info.size - offset > maxBytes) {
      throw new ResourceExhaustedError(`${remotePath}: ${info.size - offset} bytes is over maxBytes (${maxBytes}); give a local path to download it to a file`);
    }
    const tmp = localPath ? join(dirname(localPath), `.${basename(localPath)}.pincer-${randomBytes(6).toString("hex")}.part`) : undefined;
    // To a file: hashed in order and written as it arrives (see FileSink); in memory: kept in parts.
    // The local file first: a destination that cannot be written fails before the call starts.
    const sink = tmp ? await FileSink.create(tmp, { mode: 0o666, expectedBytes: info.size - offset }).catch((e: unknown) => Promise.reject(localFileError(e, localPath!))) : undefined;
    const call = client.Download({ path: remotePath, offset, chunkSize: 0 }, { deadline: deadlineFor(opts, info.size - offset) });
    const stopListening = cancelOnAbort(call, signal);
    const parts: Buffer[] = [];
    const hash = sink ? undefined : createHash("sha256");
    let received = 0;
    let expected: number | undefined;
    let trailer: { bytes: number; sha256: string } | undefined;
    try {
      for await (const msg of call as AsyncIterable<wire.DownloadResponse__Output>) {
        if (msg.message === "header" && msg.header) expected = msg.header.size - msg.header.offset;
        else if (msg.message === "chunk" && msg.chunk) {
          received += msg.chunk.length;
          if (sink) await sink.write(msg.chunk);
          else {
            hash!.update(msg.chunk);
            parts.push(msg.chunk);
          }
          opts.onProgress?.({ bytes: received, totalBytes: expected });
        } else if (msg.message === "trailer" && msg.trailer) trailer = { bytes: msg.trailer.bytes, sha256: msg.trailer.sha256 };
      }
      const sha256 = sink ? await sink.digest() : hash!.digest("hex");
      if (!trailer) throw new InternalError(`${method}: ${remotePath}: the stream ended without its trailer`);
      if (trailer.bytes !== received || trailer.sha256 !== sha256) {
        throw new InternalError(`${method}: ${remotePath}: received ${received} bytes with sha256 ${sha256}, the daemon sent ${trailer.bytes} with ${trailer.sha256}`);
      }
      if (sink && tmp && localPath) {
        await sink.finish();
        await sink.close();
        await rename(tmp, localPath);
        return { path: localPath, size: received, sha256 };
      }
      return { path: remotePath, size: received, sha256, data: Buffer.concat(parts) };
    } catch (err) {
      await sink?.close().catch(() => undefined);
      if (tmp) await unlink(tmp).catch(() => undefined);
      if (err instanceof InternalError) throw err;
      if (signal?.aborted) throw new CancelledError(`${method}: cancelled by the caller`, { cause: signal.reason });
      throw callError(method, address, err, signal);
    } finally {
      stopListening();
    }
  }

  const api: FilesApi = {
    upload,
    download: download as FilesApi["download"],
    read: async (remotePath, opts = {}) => (await download(remotePath, undefined, opts)).data!.toString(opts.encoding ?? "utf8"),
    write: (remotePath, text, opts = {}) => upload(Buffer.from(text, "utf8"), remotePath, { overwrite: true, ...opts }),
    stat: async (path, o = {}) => toFileInfo(await invoke<wire.FileInfo__Output>("Files/Stat", o, (co, cb) => client.Stat({ path }, co, cb))),
    exists: async (path, o = {}) =>
      api.stat(path, o).then(
        () => true,
        (err: unknown) => {
          if (err instanceof NotFoundError) return false;
          throw err;
        },
      ),
    list: async (path, o = {}) => {
      const r = await invoke<{ entries: wire.FileInfo__Output[]; truncated: boolean }>("Files/List", o, (co, cb) =>
        client.List({ path, recursive: o.recursive ?? false, maxDepth: o.maxDepth ?? 0, limit: o.limit ?? 0 }, co, cb),
      );
      return { entries: r.entries.map(toFileInfo), truncated: r.truncated };
    },
    mkdir: async (path, o = {}) =>
      invoke<{ created: boolean }>("Files/MakeDir", o, (co, cb) => client.MakeDir({ path, parents: o.parents ?? false, mode: o.mode ?? 0 }, co, cb)).then((r) => ({ created: r.created })),
    remove: async (path, o = {}) =>
      invoke<{ removed: boolean }>("Files/Remove", o, (co, cb) => client.Remove({ path, recursive: o.recursive ?? false, missingOk: o.missingOk ?? false }, co, cb)).then((r) => ({
        removed: r.removed,
      })),
    move: async (from, to, o = {}) => toFileInfo(await invoke<wire.FileInfo__Output>("Files/Move", o, (co, cb) => client.Move({ from, to, overwrite: o.overwrite ?? false }, co, cb))),
  };
  return api;
}
