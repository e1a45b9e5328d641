import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { echo } from "./echo.js";
import { InvalidArgumentError, NotFoundError, PermissionDeniedError } from "./errors.js";
import { fsError } from "./fsErrors.js";

/** Most symlinks one path may pass through, as Linux allows (ELOOP beyond). */
const MAX_SYMLINKS = 40;
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** For /proc/self/fd/N itself, a link that must be followed to reach the directory it stands for. */
const DUP_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY;
/** What messages say of a root by default: the daemon's --file-root. */
const DAEMON_RULE = "the only directory this daemon serves (--file-root)";

/**
 * A path of a request, held for one call: `at` is what the call's file system operations use, and
 * `path` what its messages name. Inside a {@link FileRoot} `at` is `/proc/self/fd/N/name`: the
 * final name inside a directory this call holds open, so no later change to the path's directories
 * (a rename, a symlink put in their place) can redirect the operation. Close it when the call ends.
 */
export interface Anchored {
  /** The path as the client gave it (normalized). */
  readonly path: string;
  /** The path to operate on. */
  readonly at: string;
  /** The held parent directory (`/proc/self/fd/N`), or the parent's path without a root. */
  readonly dir: string;
  /** The final name inside `dir` ("." for the root itself). */
  readonly name: string;
  /** True when `dir` is a held descriptor (inside a file root on Linux): parents were made by the walk. */
  readonly pinned: boolean;
  /** Throws PERMISSION_DENIED if `dir` is no longer where `path` leads (a directory was moved). */
  recheck(): void;
  close(): void;
}

/** How to resolve a path. */
export interface AnchorOptions {
  /** Resolve a symlink in the final component too (read a file through a link); else act on the link. */
  followLast?: boolean;
  /** Create missing directories on the way (mkdir -p), inside the root. */
  createParents?: boolean;
  /** The request field, for messages. @default "path" */
  field?: string;
}

/** Where file operations may go: a directory and everything under it, symlinks resolved inside it. */
export interface Jail {
  readonly root: string;
  /** Resolves an absolute path, checked and held for one call. */
  anchor(path: string, opts?: AnchorOptions): Anchored;
  /** Lets go of the root (a no-op where nothing is held). */
  close(): void;
}

/** Options of {@link FileRoot} and {@link fileRoot}. */
export interface FileRootOptions {
  /**
   * What messages say of the root after naming it, telling the reader what the rule is.
   * @default "the only directory this daemon serves (--file-root)"
   */
  rule?: string;
}

/**
 * A directory whose file operations are confined to it, held open for the root's life: the daemon's
 * --file-root, and on the controller a task's folder or an attempt's. Paths are resolved from that
 * descriptor one component at a time, each directory opened with O_NOFOLLOW relative to the one
 * before (through /proc/self/fd), and symlinks are read and followed by this code, never by the
 * kernel: one that leads out of the root is refused.
 *
 * Guarantees: an operation only ever acts on a name inside a directory that was inside the root
 * when this call resolved it, whatever symlinks or renames other processes make before or during
 * the call. Not guaranteed: a local process that moves a directory out of the root while a call
 * holds it (which needs write access to both places) can have that call act in the moved
 * directory; uploads re-check before they commit (see {@link Anchored.recheck}), leaving a window
 * of one rename. The final name is not held: open it with O_NOFOLLOW where a link could be swapped
 * in. Hard links and bind mounts inside the root are not looked through. Linux only.
 */
export class FileRoot implements Jail {
  private readonly fd: number;
  private readonly rule: string;

  /** `root` is a real path (no symlink in it): resolve it with realpath first. */
  constructor(
    readonly root: string,
    opts: FileRootOptions = {},
  ) {
    this.rule = opts.rule ?? DAEMON_RULE;
    this.fd = openSync(root, DIR_FLAGS);
  }

  /** Closes the root's descriptor; anchors made before stay valid until closed. */
  close(): void {
    closeSync(this.fd);
  }

  /** Resolves `path` inside the root and holds its parent directory. */
  anchor(path: string, opts: AnchorOptions = {}): Anchored {
    const field = opts.field ?? "path";
    const normalized = resolve(path);
    const rel = this.relativeInside(normalized, normalized, field);
    const walked = this.walk(normalized, rel, opts, field);
    const held = walked.dirFd;
    const dir = `/proc/self/fd/${held}`;
    const expected = fstatSync(held);
    let closed = false;
    return {
      path: normalized,
      dir,
      name: walked.name,
      pinned: true,
      at: walked.name === "." ? dir : `${dir}/${walked.name}`,
      recheck: () => {
        const again = this.walk(normalized, rel, { ...opts, createParents: false }, field);
        const now = fstatSync(again.dirFd);
        closeSync(again.dirFd);
        if (now.dev !== expected.dev || now.ino !== expected.ino || again.name !== walked.name) {
          throw new PermissionDeniedError(`${field}: ${echo(normalized)}: a directory on its way was moved or replaced during the call; nothing was written`);
        }
      },
      close: () => {
        if (!closed) closeSync(held);
        closed = true;
      },
    };
  }

  /** `path` relative to the root, or PERMISSION_DENIED when it lies outside. */
  private relativeInside(path: string, asked: string, field: string): string[] {
    const rel = relative(this.root, path);
    if (rel === "") return [];
    if (rel.startsWith("..") || isAbsolute(rel)) {
      throw new PermissionDeniedError(`${field}: ${echo(asked)} is outside ${this.root}, ${this.rule}`);
    }
    return rel.split(sep);
  }

  /**
   * Walks `parts` from the root: each directory opened relative to the last with O_NOFOLLOW, each
   * symlink read and spliced in. Returns the held parent of the final name (caller closes it).
   */
  private walk(asked: string, parts: string[], opts: AnchorOptions, field: string): { dirFd: number; name: string } {
    const stack = [openSync(`/proc/self/fd/${this.fd}`, DUP_FLAGS)];
    const todo = [...parts];
    let hops = 0;
    /** The last symlink followed, for messages. */
    let via = "";
    const fail = (err: unknown): never => {
      for (const fd of stack) closeSync(fd);
      throw err;
    };
    while (todo.length > 0) {
      const part = todo.shift()!;
      if (part === "" || part === ".") continue;
      const top = stack[stack.length - 1]!;
      if (part === "..") {
        if (stack.length === 1) fail(new PermissionDeniedError(`${field}: ${echo(asked)} leads outside ${this.root}${via}, ${this.rule}`));
        closeSync(stack.pop()!);
        continue;
      }
      const last = todo.length === 0;
      const at = `/proc/self/fd/${top}/${part}`;
      let st: Stats | undefined;
      try {
        st = lstatSync(at, { throwIfNoEntry: false });
      } catch (err) {
        fail(fsError(err, asked)); // ENAMETOOLONG: a name over 255 bytes
      }
      if (st?.isSymbolicLink() && (!last || opts.followLast)) {
        if (++hops > MAX_SYMLINKS) fail(new InvalidArgumentError(`${field}: ${echo(asked)}: too many levels of symbolic links`));
        let target: string;
        try {
          target = readlinkSync(at);
        } catch (err) {
          // EINVAL or ENOENT: no longer a symlink (replaced or removed since the lstat); look again (counted as a link).
          const code = (err as NodeJS.ErrnoException).code;
          if (code === "EINVAL" || code === "ENOENT") {
            todo.unshift(part);
            continue;
          }
          return fail(fsError(err, asked));
        }
        via = ` through the symlink ${echo(part)} → ${echo(target)}`;
        if (isAbsolute(target)) {
          // Start over from the root with the link's target, which must lie inside it.
          let inside: string[] = [];
          try {
            inside = this.relativeInside(resolve(target), asked, field);
          } catch (err) {
            fail(new PermissionDeniedError(`${field}: ${echo(asked)} leads outside ${this.root}${via}, ${this.rule}`, { cause: err }));
          }
          while (stack.length > 1) closeSync(stack.pop()!);
          todo.unshift(...inside);
        } else {
          todo.unshift(...target.split("/"));
        }
        continue;
      }
      if (last) return finish(stack, part);
      if (!st) {
        if (!opts.createParents) fail(new NotFoundError(`${field}: ${echo(asked)}: a parent directory does not exist`));
        try {
          mkdirSync(at, 0o755);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== "EEXIST") fail(fsError(err, asked));
        }
      }
      try {
        stack.push(openSync(at, DIR_FLAGS));
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        // ELOOP: it became a symlink since the lstat above; look again (counted as a link).
        if (code === "ELOOP" && ++hops <= MAX_SYMLINKS) todo.unshift(part);
        else fail(code === "ENOTDIR" ? new NotFoundError(`${field}: ${echo(asked)}: a parent of it is not a directory`) : fsError(err, asked));
      }
    }
    // The root itself.
    return finish(stack, ".");
  }
}

/** The innermost directory of a walk, held for the caller; the others closed. */
function finish(stack: number[], name: string): { dirFd: number; name: string } {
  const dirFd = stack.pop()!;
  for (const fd of stack) closeSync(fd);
  return { dirFd, name };
}

/**
 * Checks that `path` (absolute, normalized) resolves inside `root` (a real path) once symlinks
 * are followed. Paths that do not exist yet are judged by the real path of their deepest existing
 * ancestor, so a new file under a symlink that points out of the root is refused too.
 * The check and the operation that follows are not atomic: a process that can also swap
 * directories for symlinks inside the root between the two can still escape it.
 */
export function ensureInsideRoot(path: string, root: string, field: string, rule = DAEMON_RULE): void {
  let existing = path;
  const rest: string[] = [];
  let real: string | undefined;
  for (;;) {
    try {
      real = realpathSync(existing);
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENAMETOOLONG") {
        throw InvalidArgumentError.forField(field, `${echo(path)}: name too long (Linux allows 255 bytes per name and 4095 per path)`);
      }
      if ((code !== "ENOENT" && code !== "ENOTDIR") || existing === dirname(existing)) {
        throw new PermissionDeniedError(`${field}: ${echo(path)} cannot be resolved (${code}); only paths inside ${root} are allowed, ${rule}`);
      }
      rest.unshift(basename(existing));
      existing = dirname(existing);
    }
  }
  const full = join(real, ...rest);
  if (full !== root && !full.startsWith(root === sep ? root : root + sep)) {
    const via = full === path ? "" : ` (it resolves to ${echo(full)})`;
    throw new PermissionDeniedError(`${field}: ${echo(path)} is outside ${root}${via}, ${rule}`);
  }
}

/**
 * Off Linux (no /proc/self/fd), a root checks each path once (symlinks followed) and then uses it
 * as a path: a local process that swaps a directory for a symlink between the two can escape.
 */
class CheckedRoot implements Jail {
  constructor(
    readonly root: string,
    private readonly rule: string,
  ) {}
  anchor(path: string, opts: AnchorOptions = {}): Anchored {
    ensureInsideRoot(resolve(path), this.root, opts.field ?? "path", this.rule);
    return unanchored(path);
  }
  close(): void {}
}

/** The jail of `root` (a real path) on this platform: a {@link FileRoot} on Linux. */
export function fileRoot(root: string, opts: FileRootOptions = {}): Jail {
  return process.platform === "linux" ? new FileRoot(root, opts) : new CheckedRoot(root, opts.rule ?? DAEMON_RULE);
}

/** Without a root: the path as it is, nothing held. */
export function unanchored(path: string): Anchored {
  const normalized = resolve(path);
  const cut = normalized.lastIndexOf("/");
  return {
    path: normalized,
    at: normalized,
    dir: normalized.slice(0, cut) || "/",
    name: normalized.slice(cut + 1) || ".",
    pinned: false,
    recheck: () => undefined,
    close: () => undefined,
  };
}
