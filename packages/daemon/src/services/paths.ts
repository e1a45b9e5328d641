import { isAbsolute, resolve } from "node:path";
import { ensureInsideRoot } from "../security/policy.js";
import { unanchored, type Anchored, type AnchorOptions, type Jail } from "../security/jail.js";
import { InvalidArgumentError, quoted } from "@pincer/shared";

export { fsError } from "../fsErrors.js";

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
