import { NotFoundError, type wire } from "@pincer/shared";
import { download, upload, type DownloadOptions, type TransferResult, type UploadOptions } from "./transfers.js";
import { status as grpcStatus } from "@grpc/grpc-js";
import { callError, type PromiseClient, type RpcChannel } from "./rpc.js";
import type { CallOptions } from "./types.js";

export type { DownloadOptions, TransferOptions, TransferProgress, TransferResult, UploadOptions } from "./transfers.js";

/** What a path is. */
export type FileType = "file" | "directory" | "symlink" | "other";

/** A path on the machine, as `stat` (lstat: a symlink is not followed) sees it. */
export interface FileInfo {
  /** The absolute path. */
  path: string;
  name: string;
  type: FileType;
  /** In bytes. */
  size: number;
  /** Permission bits, e.g. 0o644. */
  mode: number;
  /** Last modification, in milliseconds since the epoch. */
  modifiedMs: number;
  /** Where a symlink points; empty otherwise. */
  symlinkTarget: string;
}

/** Options of {@link FilesApi.read}. */
export interface ReadOptions extends DownloadOptions {
  /** @default "utf8" */
  encoding?: BufferEncoding;
}

/** Options of {@link FilesApi.list}. */
export interface ListOptions extends CallOptions {
  /** Descend into directories. @default false */
  recursive?: boolean;
  /** With recursive: levels below the path; 0 means no limit. @default 0 */
  maxDepth?: number;
  /** Most entries returned (at most 100_000). @default 10_000 */
  limit?: number;
}

/** What {@link FilesApi.list} returns: breadth first, sorted by name within a directory. */
export interface ListResult {
  entries: FileInfo[];
  /** True when `limit` cut the listing short. */
  truncated: boolean;
}

/** Options of {@link FilesApi.mkdir}. */
export interface MakeDirOptions extends CallOptions {
  /** Create missing parents, and succeed when the directory exists (mkdir -p). @default false */
  parents?: boolean;
  /** Permission bits. @default 0o755 */
  mode?: number;
}

/** Options of {@link FilesApi.remove}. */
export interface RemoveOptions extends CallOptions {
  /** Remove a directory and everything in it. @default false */
  recursive?: boolean;
  /** Succeed (with `removed: false`) when the path does not exist. @default false */
  missingOk?: boolean;
}

/** Options of {@link FilesApi.move}. */
export interface MoveOptions extends CallOptions {
  /** Replace an existing destination. @default false */
  overwrite?: boolean;
}

/** The machine's files. Paths on the machine are absolute, or relative to the daemon's home. */
export interface FilesApi {
  /** Uploads a local file (path) or bytes to `remotePath`, streamed and sha256-verified; nothing is left behind on failure. */
  upload(source: string | Uint8Array, remotePath: string, opts?: UploadOptions): Promise<TransferResult>;
  /** Downloads to `localPath` (atomically, verified), or into memory when no local path is given. */
  download(remotePath: string, localPath: string, opts?: DownloadOptions): Promise<TransferResult>;
  download(remotePath: string, localPath?: undefined, opts?: DownloadOptions): Promise<TransferResult & { data: Buffer }>;
  /** Reads a small text file. */
  read(remotePath: string, opts?: ReadOptions): Promise<string>;
  /**
   * Reads a small text file, or undefined when it does not exist: one call, where `exists` then
   * `read` are two (an evaluator's round trips add up over a slow link).
   */
  readIfExists(remotePath: string, opts?: ReadOptions): Promise<string | undefined>;
  /** Writes a small text file (replacing it). */
  write(remotePath: string, text: string, opts?: UploadOptions): Promise<TransferResult>;
  /** Information about a path; NotFoundError when it does not exist. */
  stat(path: string, opts?: CallOptions): Promise<FileInfo>;
  /** True when the path exists. */
  exists(path: string, opts?: CallOptions): Promise<boolean>;
  /** The entries of a directory. */
  list(path: string, opts?: ListOptions): Promise<ListResult>;
  /** Creates a directory; `created` is false when it existed (with `parents`). */
  mkdir(path: string, opts?: MakeDirOptions): Promise<{ created: boolean }>;
  /** Removes a file, a symlink or an empty directory (any directory with `recursive`). */
  remove(path: string, opts?: RemoveOptions): Promise<{ removed: boolean }>;
  /** Renames a path; resolves with the destination's info. */
  move(from: string, to: string, opts?: MoveOptions): Promise<FileInfo>;
}

const FILE_TYPES: Record<string, FileType> = {
  FILE_TYPE_FILE: "file",
  FILE_TYPE_DIRECTORY: "directory",
  FILE_TYPE_SYMLINK: "symlink",
};

/** A file as the wire sends it, in the controller's terms. */
export function toFileInfo(f: wire.FileInfo__Output): FileInfo {
  return {
    path: f.path,
    name: f.name,
    type: FILE_TYPES[f.fileType] ?? "other",
    size: f.size,
    mode: f.mode,
    modifiedMs: f.modifiedMs,
    symlinkTarget: f.symlinkTarget,
  };
}

/**
 * `env.files` over the Files service. Uploads go through `uploadFiles` when given (RemoteEnv gives
 * them a connection of their own; see there).
 */
export function createFilesApi(files: PromiseClient<"Files">, channel: RpcChannel, uploadFiles = files): FilesApi {
  const stat = async (path: string, o: CallOptions = {}) => toFileInfo(await files.Stat({ path }, o));
  const transfer = {
    files,
    defaultTimeoutMs: channel.defaultTimeoutMs,
    // As the call's own deadline would: a timeout, or the machine unreachable if the connection is down.
    deadlineError: (method: string, ms: number) =>
      callError(
        method,
        channel,
        Object.assign(new Error(`Deadline exceeded after ${Math.round(ms)} ms`), {
          code: grpcStatus.DEADLINE_EXCEEDED,
          details: `deadline of ${Math.round(ms)} ms exceeded`,
        }),
      ),
  };
  const uploads = { ...transfer, files: uploadFiles };
  const api: FilesApi = {
    upload: (source, remotePath, o) => upload(uploads, source, remotePath, o),
    download: ((remotePath: string, localPath?: string, o?: DownloadOptions) => download(transfer, remotePath, localPath, o)) as FilesApi["download"],
    read: async (remotePath, o = {}) => (await download(transfer, remotePath, undefined, o)).data!.toString(o.encoding ?? "utf8"),
    readIfExists: (remotePath, o = {}) => api.read(remotePath, o).catch((err: unknown) => (err instanceof NotFoundError ? undefined : Promise.reject(err))),
    write: (remotePath, text, o = {}) => upload(uploads, Buffer.from(text, "utf8"), remotePath, { overwrite: true, ...o }),
    stat,
    exists: (path, o = {}) =>
      stat(path, o).then(
        () => true,
        (err: unknown) => {
          if (err instanceof NotFoundError) return false;
          throw err;
        },
      ),
    list: async (path, o = {}) => {
      const r = await files.List({ path, recursive: o.recursive ?? false, maxDepth: o.maxDepth ?? 0, limit: o.limit ?? 0 }, o);
      return { entries: r.entries.map(toFileInfo), truncated: r.truncated };
    },
    mkdir: async (path, o = {}) => ({ created: (await files.MakeDir({ path, parents: o.parents ?? false, mode: o.mode ?? 0 }, o)).created }),
    remove: async (path, o = {}) => ({ removed: (await files.Remove({ path, recursive: o.recursive ?? false, missingOk: o.missingOk ?? false }, o)).removed }),
    move: async (from, to, o = {}) => toFileInfo(await files.Move({ source: from, destination: to, overwrite: o.overwrite ?? false }, o)),
  };
  return api;
}
