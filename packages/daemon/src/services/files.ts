import { closeSync, constants, openSync, type Stats } from "node:fs";
import { link, lstat, mkdir, open, readdir, readlink, rename, rm, rmdir, unlink } from "node:fs/promises";
import { basename, join } from "node:path";
import {
  AlreadyExistsError,
  echo,
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
  type RequestOutputOf,
  type ResponseOf,
  type wire,
} from "@pincer/shared";
import type { Logger } from "../logger.js";
import type { Anchored } from "../security/jail.js";
import { download, upload, type TransferLimits } from "./fileTransfer.js";
import { fsError, withPath } from "./paths.js";
import { LONG_CALL_LIMITS } from "./limits.js";
import { defineService, type DefinedService } from "./rpc.js";

/** Opens a directory without following a symlink in its place; the descriptor pins it. */
const DIR_NOFOLLOW = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** Most entries one List call returns. */
export const MAX_LIST_ENTRIES = 100_000;

function fileType(s: Stats): wire.FileType {
  if (s.isFile()) return "FILE_TYPE_FILE";
  if (s.isDirectory()) return "FILE_TYPE_DIRECTORY";
  if (s.isSymbolicLink()) return "FILE_TYPE_SYMLINK";
  return "FILE_TYPE_OTHER";
}

/** What Stat and List say about `path`, read at `at` (where the call holds it). */
async function fileInfo(path: string, at: string = path, s?: Stats): Promise<wire.FileInfo> {
  let st = s;
  if (!st) {
    try {
      st = await lstat(at);
    } catch (err) {
      throw fsError(err, path);
    }
  }
  return {
    path,
    name: basename(path),
    fileType: fileType(st),
    size: st.size,
    mode: st.mode & 0o7777,
    modifiedMs: Math.round(st.mtimeMs),
    symlinkTarget: st.isSymbolicLink() ? await readlink(at).catch(() => "") : "",
  };
}

export function filesService(log: Logger, limits: TransferLimits = {}): DefinedService<"Files"> {
  const { jail } = limits;
  return defineService(
    "Files",
    log,
    {
      Upload: (call, ctx) => upload(call, ctx.signal, limits),
      Download: (call, ctx) => download(call, ctx.signal, limits),
      Stat: (req) => withPath(req.path, jail, {}, (a) => fileInfo(a.path, a.at)),
      List: (req, ctx) => withPath(req.path, jail, { followLast: true }, (a) => list(a, req, ctx.signal)),
      MakeDir: (req) => withPath(req.path, jail, { createParents: req.parents }, (a) => makeDir(a, req)),
      Remove: (req) => withPath(req.path, jail, {}, (a) => remove(a, req)),
      Move: (req) =>
        withPath(req.source, jail, { field: "source" }, (from) =>
          withPath(req.destination, jail, { field: "destination" }, (to) => move(from, to, req.overwrite)),
        ),
    },
    { concurrency: { List: LONG_CALL_LIMITS["Files/List"] } },
  );
}

/** Directories are read through descriptors where /proc/self/fd exists (Linux). */
const PINNED = process.platform === "linux";

/**
 * Opens the directory `rel` below the open directory `top`, one component at a time without
 * following symlinks; undefined when something on the way is no longer a directory.
 */
function openBelow(top: number, rel: string[]): number | undefined {
  // /proc/self/fd/N is a link to follow; the components after it are not.
  let fd = openSync(`/proc/self/fd/${top}`, constants.O_RDONLY | constants.O_DIRECTORY);
  for (const part of rel) {
    let next: number | undefined;
    try {
      next = openSync(`/proc/self/fd/${fd}/${part}`, DIR_NOFOLLOW);
    } catch {
      // replaced or removed while listing
    }
    closeSync(fd);
    if (next === undefined) return undefined;
    fd = next;
  }
  return fd;
}

/**
 * The entries under a directory, breadth first, up to the asked depth and count. On Linux each
 * directory is reached from the listed one through descriptors opened without following
 * symlinks, so a directory swapped for a symlink while the listing runs is skipped, not followed.
 */
async function list(a: Anchored, req: RequestOutputOf<"Files", "List">, signal: AbortSignal): Promise<ResponseOf<"Files", "List">> {
  const limit = req.limit === 0 ? 10_000 : Math.min(req.limit, MAX_LIST_ENTRIES);
  const maxDepth = req.recursive ? (req.maxDepth === 0 ? Infinity : req.maxDepth) : 1;
  let top: number | undefined;
  try {
    top = PINNED ? openSync(a.at, a.name === "." ? constants.O_RDONLY | constants.O_DIRECTORY : DIR_NOFOLLOW) : undefined;
    if (!PINNED && !(await lstat(a.at)).isDirectory()) throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw code === "ENOTDIR" || code === "ELOOP" ? InvalidArgumentError.forField("path", `${echo(a.path)} is not a directory`) : fsError(e, a.path);
  }
  const entries: wire.FileInfo[] = [];
  // Breadth first, sorted by name within a directory, so a truncated listing is the shallow part.
  let level: string[][] = [[]];
  try {
    for (let depth = 1; depth <= maxDepth && level.length > 0; depth++) {
      const next: string[][] = [];
      for (const rel of level) {
        const dirPath = join(a.path, ...rel);
        const fd = top === undefined ? undefined : openBelow(top, rel);
        if (top !== undefined && fd === undefined) continue;
        const at = fd === undefined ? join(a.at, ...rel) : `/proc/self/fd/${fd}`;
        try {
          const names = (await readdir(at).catch((e: unknown) => Promise.reject(fsError(e, dirPath)))).sort();
          for (const name of names) {
            signal.throwIfAborted();
            if (entries.length >= limit) return { entries, truncated: true };
            const st = await lstat(`${at}/${name}`).catch(() => undefined);
            if (!st) continue; // removed while listing
            entries.push(await fileInfo(join(dirPath, name), `${at}/${name}`, st));
            if (st.isDirectory()) next.push([...rel, name]);
          }
        } finally {
          if (fd !== undefined) closeSync(fd);
        }
      }
      level = next;
    }
    return { entries, truncated: false };
  } finally {
    if (top !== undefined) closeSync(top);
  }
}

async function makeDir(a: Anchored, req: RequestOutputOf<"Files", "MakeDir">): Promise<ResponseOf<"Files", "MakeDir">> {
  const mode = req.mode === 0 ? 0o755 : req.mode & 0o7777;
  try {
    if (a.name === ".") throw Object.assign(new Error("the root exists"), { code: "EEXIST" });
    // Inside a file root the parents were made while the path was resolved.
    const first = await mkdir(a.at, { recursive: req.parents, mode });
    // mkdir -p returns undefined when the directory already existed.
    return { created: req.parents ? first !== undefined : true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") {
      if (req.parents && (await lstat(a.at).catch(() => undefined))?.isDirectory()) return { created: false };
      throw new AlreadyExistsError(`${echo(a.path)}: already exists; pass parents to accept an existing directory`);
    }
    throw fsError(err, a.path);
  }
}

async function remove(a: Anchored, req: RequestOutputOf<"Files", "Remove">): Promise<ResponseOf<"Files", "Remove">> {
  if (a.path === "/" || a.name === ".") throw InvalidArgumentError.forField("path", `refusing to remove ${echo(a.path)}`);
  const s = await lstat(a.at).catch((e: unknown) => e as NodeJS.ErrnoException);
  if (!("isDirectory" in s)) {
    if (s.code === "ENOENT" && req.missingOk) return { removed: false };
    throw fsError(s, a.path);
  }
  try {
    if (!s.isDirectory()) await unlink(a.at);
    else if (!req.recursive) await rmdir(a.at);
    else if (a.pinned) await removeTree(a.at);
    else await rm(a.at, { recursive: true, force: false });
  } catch (err) {
    throw fsError(err, a.path);
  }
  return { removed: true };
}

/**
 * Removes directory `at` and everything in it, each level opened without following symlinks and
 * emptied through its descriptor: a directory swapped for a symlink meanwhile loses the link only.
 */
async function removeTree(at: string): Promise<void> {
  const dir = await open(at, DIR_NOFOLLOW);
  try {
    const held = `/proc/self/fd/${dir.fd}`;
    for (const name of await readdir(held)) {
      const entry = `${held}/${name}`;
      const s = await lstat(entry).catch(() => undefined);
      if (!s) continue;
      if (s.isDirectory()) await removeTree(entry);
      else await unlink(entry);
    }
  } finally {
    await dir.close();
  }
  await rmdir(at);
}

async function move(fromA: Anchored, toA: Anchored, overwrite: boolean): Promise<wire.FileInfo> {
  const [from, to] = [fromA.at, toA.at];
  await lstat(from).catch((e: unknown) => Promise.reject(fsError(e, fromA.path)));
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
          throw new AlreadyExistsError(`${echo(toA.path)}: already exists; pass overwrite to replace it`);
        await rename(from, to);
      } else {
        await link(from, to);
        await unlink(from);
      }
    }
  } catch (err) {
    if (err instanceof AlreadyExistsError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw new AlreadyExistsError(`${echo(toA.path)}: already exists; pass overwrite to replace it`);
    if (code === "ENOENT") throw new NotFoundError(`${echo(toA.path)}: its directory does not exist`);
    if (code === "EXDEV") {
      throw new FailedPreconditionError(`${echo(fromA.path)} → ${echo(toA.path)}: different file systems; download and upload the file instead`);
    }
    throw fsError(err, toA.path);
  }
  return fileInfo(toA.path, to);
}
