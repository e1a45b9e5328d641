import { constants, lstatSync, mkdirSync, realpathSync } from "node:fs";
import { type FileHandle, open, readFile, writeFile } from "node:fs/promises";
import { isAbsolute, relative, resolve } from "node:path";
import { type Anchored, echo, fileRoot, InvalidArgumentError, type Jail, NotFoundError, PermissionDeniedError } from "@pincer/shared";

/**
 * Controller-side folders that paths from untrusted places (a task file, an MCP client, a model's
 * tool call) are confined to: a task's own folder for what it reads, an attempt's folder for what it
 * writes. Each path is resolved by the daemon's jail ({@link fileRoot} from @pincer/shared: one
 * component at a time from the folder's descriptor, symlinks read and refused when they lead out),
 * and the file is opened through the held directory (`/proc/self/fd/N/name`) with O_NOFOLLOW, so a
 * symlink swapped in after the check is not followed either.
 */

/** How a path is confined. */
export interface LocalPathOptions {
  /** The argument or JSON path that named it, for messages (`local_path`, `config[0].parameters.stdout`). */
  field: string;
  /** What the folder is, for messages: "the task's folder". */
  what: string;
  /** Accept an absolute path that lies inside the folder (an MCP client's); a task file's must be relative. @default false */
  allowAbsolute?: boolean;
}

/** The folder's real path; created first when `create`. */
function realRoot(dir: string, create: boolean, what: string): string {
  if (create) mkdirSync(dir, { recursive: true });
  try {
    return realpathSync(dir);
  } catch (err) {
    throw new NotFoundError(`${what} ${dir} does not exist (${(err as NodeJS.ErrnoException).code})`, { cause: err });
  }
}

/**
 * A path as the jail takes it (absolute, inside `root` textually), or PERMISSION_DENIED for an
 * absolute path where only relative ones are allowed and for one whose `..` leave the folder.
 */
function inside(root: string, path: string, opts: LocalPathOptions, given = root): string {
  if (path === "" || path.includes("\0")) throw new InvalidArgumentError(`${opts.field}: ${echo(path)} is not a file name; name a file in ${opts.what}`);
  if (isAbsolute(path) && !opts.allowAbsolute) {
    throw new PermissionDeniedError(`${opts.field}: ${echo(path)} is an absolute path; name a file relative to ${opts.what} (${given})`);
  }
  // An absolute path under the folder as it was given: the same place under its real path.
  const rel = relative(resolve(given), resolve(given, path));
  return rel.startsWith("..") || isAbsolute(rel) ? resolve(root, path) : resolve(root, rel);
}

/** Runs `fn` with the folder's jail held, closing it after; `path` is refused first when its text leads out. */
function withJail<T>(dir: string, path: string, opts: LocalPathOptions, create: boolean, fn: (jail: Jail) => T): T {
  const rel = relative(resolve(dir), inside(resolve(dir), path, opts));
  if (rel.startsWith("..") || isAbsolute(rel)) {
    throw new PermissionDeniedError(`${opts.field}: ${echo(path)} is outside ${resolve(dir)}, ${opts.what}; name a file inside it`);
  }
  const root = realRoot(dir, create, opts.what);
  const jail = fileRoot(root, { rule: `${opts.what}; name a file inside it (symlinks may not lead out of it)` });
  try {
    return fn(jail);
  } finally {
    jail.close();
  }
}

/** A path to open an already open descriptor again by (the same file, whatever its name is now). */
function reopenPath(fd: number, fallback: string): string {
  return process.platform === "linux" ? `/proc/self/fd/${fd}` : fallback;
}

/**
 * Runs `fn` with a path that opens the file `path` names inside `dir` (a regular file, reached
 * through symlinks only when they stay inside); the file is held open while `fn` runs, so `fn`
 * reads exactly the file that was checked. Throws PERMISSION_DENIED for a path that leads out,
 * NOT_FOUND for one that does not exist, INVALID_ARGUMENT for one that is not a regular file.
 */
export async function withLocalFileRead<T>(dir: string, path: string, opts: LocalPathOptions, fn: (at: string) => Promise<T>): Promise<T> {
  const anchored = withJail(dir, path, opts, false, (jail) => jail.anchor(inside(jail.root, path, opts, dir), { followLast: true, field: opts.field }));
  let handle: FileHandle | undefined;
  try {
    // O_NOFOLLOW: the final name was resolved by the walk; a link put there since is refused (ELOOP).
    // O_NONBLOCK: a FIFO does not hang the open; it is refused below as not a regular file.
    handle = await open(anchored.at, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((err: unknown) => {
      throw localError(err, path, opts);
    });
    if (!(await handle.stat()).isFile()) throw new InvalidArgumentError(`${opts.field}: ${echo(path)} is not a regular file in ${opts.what}`);
    return await fn(reopenPath(handle.fd, anchored.at));
  } finally {
    await handle?.close();
    anchored.close();
  }
}

/** Reads the file `path` names inside `dir`, confined as {@link withLocalFileRead} says. */
export function readLocalFile(dir: string, path: string, opts: LocalPathOptions): Promise<Buffer> {
  return withLocalFileRead(dir, path, opts, (at) => readFile(at));
}

/**
 * Runs `fn` with the path to write the file `path` names inside `dir` (created, with its parent
 * folders, when missing): `/proc/self/fd/N/name`, inside a directory held for the call. A symlink
 * where the file goes is refused, so writes that open the path (with O_NOFOLLOW) or rename onto it
 * never land outside the folder. Returns what `fn` returns.
 */
export async function withLocalFileWrite<T>(dir: string, path: string, opts: LocalPathOptions, fn: (at: string) => Promise<T>): Promise<T> {
  const anchored = withJail(dir, path, opts, true, (jail) => jail.anchor(inside(jail.root, path, opts, dir), { createParents: true, field: opts.field }));
  try {
    refuseLink(anchored, path, opts);
    return await fn(anchored.at);
  } finally {
    anchored.close();
  }
}

/** Writes `data` (text, bytes or a stream) to the file `path` names inside `dir`, confined as {@link withLocalFileWrite} says. */
export function writeLocalFile(dir: string, path: string, data: Parameters<typeof writeFile>[1], opts: LocalPathOptions): Promise<void> {
  return withLocalFileWrite(dir, path, opts, async (at) => {
    const handle = await open(at, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644).catch((err: unknown) => {
      throw localError(err, path, opts);
    });
    try {
      await writeFile(handle, data);
    } finally {
      await handle.close();
    }
  });
}

/**
 * `path` resolved inside `dir` (symlinks on its way checked by the jail), or PERMISSION_DENIED when
 * it leads out. Only a check: a file opened by this path later is opened without the jail, so read
 * with {@link withLocalFileRead} where the path comes from an untrusted place.
 */
export function resolveLocalPath(dir: string, path: string, opts: LocalPathOptions): string {
  return withJail(dir, path, opts, false, (jail) => {
    const full = inside(jail.root, path, opts, dir);
    try {
      jail.anchor(full, { followLast: true, field: opts.field }).close();
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
    }
    return resolve(dir, path);
  });
}

/** Why a path may not be read: `missing` when it stays inside but names no file. */
export interface LocalFileProblem {
  missing: boolean;
  message: string;
}

/**
 * Why `path` may not be read from `dir` (it leads out, is absolute, a symlink leads out, it does
 * not exist or is not a file), or undefined when it may: what validation reports.
 */
export function localFileProblem(dir: string, path: string, opts: LocalPathOptions): LocalFileProblem | undefined {
  try {
    const anchored = withJail(dir, path, opts, false, (jail) => jail.anchor(inside(jail.root, path, opts, dir), { followLast: true, field: opts.field }));
    try {
      const st = lstatSync(anchored.at, { throwIfNoEntry: false });
      if (!st) return { missing: true, message: `${opts.field}: ${echo(path)} does not exist in ${opts.what} (${dir})` };
      if (!st.isFile()) return { missing: false, message: `${opts.field}: ${echo(path)} is not a regular file in ${opts.what}` };
      return undefined;
    } finally {
      anchored.close();
    }
  } catch (err) {
    return { missing: err instanceof NotFoundError, message: (err as Error).message };
  }
}

/**
 * Checks a path a task file names for a folder that does not exist yet (an attempt's): relative,
 * and not leaving the folder by its `..`. Undefined when it fits; symlinks are judged at the open.
 */
export function relativePathProblem(path: string, what: string): string | undefined {
  if (path === "" || path.includes("\0")) return `${echo(path)} is not a file name; name a file in ${what}`;
  if (isAbsolute(path)) return `${echo(path)} is an absolute path; name a file relative to ${what}`;
  const rel = relative("/folder", resolve("/folder", path));
  if (rel === "") return `${echo(path)} names ${what} itself; name a file inside it`;
  if (rel.startsWith("..")) return `${echo(path)} leads outside ${what}; name a file inside it`;
  return undefined;
}

function refuseLink(anchored: Anchored, path: string, opts: LocalPathOptions): void {
  if (lstatSync(anchored.at, { throwIfNoEntry: false })?.isSymbolicLink()) {
    throw new PermissionDeniedError(`${opts.field}: ${echo(path)} is a symlink in ${opts.what}; files are written there only as regular files`);
  }
}

/** A local open's failure, naming the path as the task gave it. */
function localError(err: unknown, path: string, opts: LocalPathOptions): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ELOOP") {
    return new PermissionDeniedError(`${opts.field}: ${echo(path)} became a symbolic link during the call; nothing was opened`, { cause: err });
  }
  if (code === "ENOENT") return new NotFoundError(`${opts.field}: ${echo(path)} does not exist in ${opts.what}`, { cause: err });
  if (code === "EISDIR") return new InvalidArgumentError(`${opts.field}: ${echo(path)} is a directory, not a file`, { cause: err });
  return err instanceof Error ? err : new Error(String(err));
}
