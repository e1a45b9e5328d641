import { isAbsolute, resolve } from "node:path";
import { ensureInsideRoot } from "../security/policy.js";
import { unanchored, type Anchored, type AnchorOptions, type Jail } from "../security/jail.js";
import {
  AlreadyExistsError,
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
  PermissionDeniedError,
  ResourceExhaustedError,
} from "@pincer/shared";

/**
 * Checks that `path` is usable and returns it normalized (`..` and `.` resolved). With a file
 * `root` (a real path, --file-root), the path must also resolve inside it once symlinks are
 * followed, else PERMISSION_DENIED naming the path.
 */
export function absolutePath(path: string, field = "path", root?: string): string {
  if (!path) throw InvalidArgumentError.forField(field, "a path is required");
  if (path.includes("\0")) throw InvalidArgumentError.forField(field, `${JSON.stringify(path)} contains a NUL byte`);
  if (!isAbsolute(path)) throw InvalidArgumentError.forField(field, `${JSON.stringify(path)} is not absolute; give a full path such as /home/user/file.txt`);
  const normalized = resolve(path);
  if (root !== undefined) ensureInsideRoot(normalized, root, field);
  return normalized;
}

/**
 * Checks a request's path and holds it for the call: inside `jail` (--file-root) resolved from the
 * root's descriptor (see {@link Jail}), else as given. Close the result when the call ends.
 */
export function anchorPath(path: string, jail: Jail | undefined, opts: AnchorOptions = {}): Anchored {
  const field = opts.field ?? "path";
  const normalized = absolutePath(path, field);
  return jail ? jail.anchor(normalized, opts) : unanchored(normalized);
}

/** Runs `body` with `path` anchored (see {@link anchorPath}), releasing it afterwards. */
export async function withPath<T>(path: string, jail: Jail | undefined, opts: AnchorOptions, body: (a: Anchored) => Promise<T>): Promise<T> {
  const a = anchorPath(path, jail, opts);
  try {
    return await body(a);
  } finally {
    a.close();
  }
}

/** Turns a Node fs error into the typed error for its meaning, naming the path. */
export function fsError(err: unknown, path: string): Error {
  const code = (err as NodeJS.ErrnoException)?.code;
  switch (code) {
    case "ENOENT":
      return new NotFoundError(`${path}: no such file or directory`, { cause: err });
    case "ENOTDIR":
      return new NotFoundError(`${path}: a parent of it is not a directory`, { cause: err });
    case "EEXIST":
      return new AlreadyExistsError(`${path}: already exists; pass overwrite to replace it`, { cause: err });
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return new PermissionDeniedError(`${path}: permission denied`, { cause: err });
    case "EISDIR":
      return new InvalidArgumentError(`${path}: is a directory`, { cause: err });
    case "ENOTEMPTY":
      return new FailedPreconditionError(`${path}: directory not empty; pass recursive to remove it with its contents`, { cause: err });
    case "ENOSPC":
    case "EDQUOT":
      return new ResourceExhaustedError(`${path}: no space left on the device`, { cause: err });
    case "ELOOP":
      return new FailedPreconditionError(`${path}: a symbolic link is in the way (too many levels, or one replaced a directory during the call)`, {
        cause: err,
      });
    case "ENAMETOOLONG":
      return new InvalidArgumentError(`${path}: name too long`, { cause: err });
    default:
      return err instanceof Error ? err : new Error(String(err));
  }
}
