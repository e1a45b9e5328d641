import { link, lstat, mkdir, readdir, readlink, rename, rm, rmdir, stat, unlink } from "node:fs/promises";
import { basename, join } from "node:path";
import type { Stats } from "node:fs";
import { AlreadyExistsError, InvalidArgumentError, NotFoundError, type RequestOutputOf, type ResponseOf, type wire } from "@pincer/shared";
import type { Logger } from "../logger.js";
import { download, upload, type TransferLimits } from "./fileTransfer.js";
import { absolutePath as checkedPath, fsError } from "./paths.js";
import { defineService, type DefinedService } from "./rpc.js";

/** Most entries one List call returns. */
export const MAX_LIST_ENTRIES = 100_000;

function fileType(s: Stats): wire.FileType {
  if (s.isFile()) return "FILE_TYPE_FILE";
  if (s.isDirectory()) return "FILE_TYPE_DIRECTORY";
  if (s.isSymbolicLink()) return "FILE_TYPE_SYMLINK";
  return "FILE_TYPE_OTHER";
}

async function fileInfo(path: string, s?: Stats): Promise<wire.FileInfo> {
  let st = s;
  if (!st) {
    try {
      st = await lstat(path);
    } catch (err) {
      throw fsError(err, path);
    }
  }
  return {
    path,
    name: basename(path),
    type: fileType(st),
    size: st.size,
    mode: st.mode & 0o7777,
    modifiedMs: Math.round(st.mtimeMs),
    symlinkTarget: st.isSymbolicLink() ? await readlink(path).catch(() => "") : "",
  };
}

export function filesService(log: Logger, limits: TransferLimits = {}): DefinedService<"Files"> {
  const absolutePath = (path: string, field?: string) => checkedPath(path, field, limits.root);
  return defineService("Files", log, {
    Upload: (call, ctx) => upload(call, ctx.signal, limits),
    Download: (call, ctx) => download(call, ctx.signal, limits),
    Stat: async (req) => fileInfo(absolutePath(req.path)),
    List: async (req) => list(absolutePath(req.path), req),
    MakeDir: async (req) => makeDir(absolutePath(req.path), req),
    Remove: async (req) => remove(absolutePath(req.path), req),
    Move: async (req) => move(absolutePath(req.from, "from"), absolutePath(req.to, "to"), req.overwrite),
  });
}

/** The entries under directory `root`, breadth first, up to the asked depth and count. */
async function list(root: string, req: RequestOutputOf<"Files", "List">): Promise<ResponseOf<"Files", "List">> {
  const limit = req.limit === 0 ? 10_000 : Math.min(req.limit, MAX_LIST_ENTRIES);
  const rootStat = await stat(root).catch((e: unknown) => Promise.reject(fsError(e, root)));
  if (!rootStat.isDirectory()) throw new InvalidArgumentError(`path: ${root} is not a directory`);
  const maxDepth = req.recursive ? (req.maxDepth === 0 ? Infinity : req.maxDepth) : 1;
  const entries: wire.FileInfo[] = [];
  // Breadth first, sorted by name within a directory, so a truncated listing is the shallow part.
  let level = [root];
  for (let depth = 1; depth <= maxDepth && level.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      const names = (await readdir(dir).catch((e: unknown) => Promise.reject(fsError(e, dir)))).sort();
      for (const name of names) {
        if (entries.length >= limit) return { entries, truncated: true };
        const path = join(dir, name);
        const s = await lstat(path).catch(() => undefined);
        if (!s) continue; // removed while listing
        entries.push(await fileInfo(path, s));
        if (s.isDirectory()) next.push(path);
      }
    }
    level = next;
  }
  return { entries, truncated: false };
}

async function makeDir(path: string, req: RequestOutputOf<"Files", "MakeDir">): Promise<ResponseOf<"Files", "MakeDir">> {
  const mode = req.mode === 0 ? 0o755 : req.mode & 0o7777;
  try {
    const first = await mkdir(path, { recursive: req.parents, mode });
    // mkdir -p returns undefined when the directory already existed.
    return { created: req.parents ? first !== undefined : true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") throw new AlreadyExistsError(`${path}: already exists; pass parents to accept an existing directory`);
    throw fsError(err, path);
  }
}

async function remove(path: string, req: RequestOutputOf<"Files", "Remove">): Promise<ResponseOf<"Files", "Remove">> {
  if (path === "/") throw new InvalidArgumentError("path: refusing to remove /");
  const s = await lstat(path).catch((e: unknown) => e as NodeJS.ErrnoException);
  if (!("isDirectory" in s)) {
    if (s.code === "ENOENT" && req.missingOk) return { removed: false };
    throw fsError(s, path);
  }
  try {
    if (s.isDirectory() && !req.recursive) {
      await rmdir(path);
    } else {
      await rm(path, { recursive: req.recursive, force: false });
    }
  } catch (err) {
    throw fsError(err, path);
  }
  return { removed: true };
}

async function move(from: string, to: string, overwrite: boolean): Promise<wire.FileInfo> {
  await lstat(from).catch((e: unknown) => Promise.reject(fsError(e, from)));
  try {
    if (overwrite) {
      await rename(from, to);
    } else {
      // link + unlink fails atomically when `to` exists; directories cannot be hard-linked,
      // so for them check first (a race there can only replace an empty directory).
      const s = await lstat(from);
      if (s.isDirectory()) {
        if (
          await lstat(to).then(
            () => true,
            () => false,
          )
        )
          throw new AlreadyExistsError(`${to}: already exists; pass overwrite to replace it`);
        await rename(from, to);
      } else {
        await link(from, to);
        await unlink(from);
      }
    }
  } catch (err) {
    if (err instanceof AlreadyExistsError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw new AlreadyExistsError(`${to}: already exists; pass overwrite to replace it`);
    if (code === "ENOENT") throw new NotFoundError(`${to}: its directory does not exist`);
    throw fsError(err, code === "EXDEV" ? `${from} → ${to} (different file systems)` : to);
  }
  return fileInfo(to);
}
