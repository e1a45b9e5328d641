import { isAbsolute, resolve } from "node:path";
import { ensureInsideRoot } from "../security/policy.js";
import { unanchored, type Anchored, type AnchorOptions, type Jail } from "../security/jail.js";
import {
  AlreadyExistsError,
  echo,
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
  PermissionDeniedError,
  quoted,
  ResourceExhaustedError,
} from "@pincer/shared";

/**
 * Checks that `path` is usable and returns it normalized (`..` and `.` resolved). With a file
 * `root` (a real path, --file-root), the path must also resolve inside it once symlinks are
 * followed, else PERMISSION_DENIED naming the path.
 */
export function absolutePath(path: string, field = "path", root?: string): string {
  if (!path) throw InvalidArgumentError.forField(field, "a path is required");
  if (path.includes("\0")) throw InvalidArgumentError.forField(field, `${quoted(path)} contains a NUL byte`);
  if (!isAbsolute(path)) throw InvalidArgumentError.forField(field, `${quoted(path)} is not absolute; give a full path such as /home/user/file.txt`);
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

/**
 * Turns a Node fs error into the typed error for its meaning, naming the path (cut to its first
 * bytes when long: messages never repeat request text whole). An error with no errno code is
 * returned as it is (an INTERNAL on the wire).
 */
export function fsError(err: unknown, path: string): Error {
  const code = (err as NodeJS.ErrnoException)?.code;
  const p = echo(path);
  const options = { cause: err };
  switch (code) {
    case "ENOENT":
      return new NotFoundError(`${p}: no such file or directory`, options);
    case "ENOTDIR":
      return new NotFoundError(`${p}: a parent of it is not a directory`, options);
    case "EEXIST":
      return new AlreadyExistsError(`${p}: already exists; pass overwrite to replace it`, options);
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return new PermissionDeniedError(`${p}: permission denied`, options);
    case "EISDIR":
      return new InvalidArgumentError(`${p}: is a directory`, options);
    case "ENOTEMPTY":
      return new FailedPreconditionError(`${p}: directory not empty; pass recursive to remove it with its contents`, options);
    case "ENOSPC":
    case "EDQUOT":
      return new ResourceExhaustedError(`${p}: no space left on the device`, options);
    case "ELOOP":
      return new FailedPreconditionError(`${p}: a symbolic link is in the way (too many levels, or one replaced a directory during the call)`, options);
    case "ENAMETOOLONG":
      return new InvalidArgumentError(`${p}: name too long (Linux allows 255 bytes per name and 4095 per path)`, options);
    case "EINVAL":
      return new InvalidArgumentError(`${p}: the operation is not valid for this path (e.g. moving a directory into itself)`, options);
    case "EXDEV":
      return new FailedPreconditionError(`${p}: source and destination are on different file systems; download and upload the file instead`, options);
    case "EBUSY":
    case "ETXTBSY":
      return new FailedPreconditionError(`${p}: in use (a mount point, or a program running from it)`, options);
    case "EMFILE":
    case "ENFILE":
      return new ResourceExhaustedError(`${p}: the daemon has no file descriptor left; retry when fewer calls run`, options);
    default:
      return err instanceof Error ? err : new Error(String(err));
  }
}
