import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, normalize, relative, sep } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { InvalidArgumentError, ResourceExhaustedError } from "@pincer/shared";
import { pack, unpack } from "msgpackr";

/**
 * Files as one compressed blob (msgpack of `{ path, mode, data }`, gzipped) that travels through
 * Redis: a task's files from the coordinator to a worker, an attempt's folder back. Paths are
 * relative, and unpacking refuses one that would leave its folder.
 */

interface Entry {
  path: string;
  mode: number;
  data: Buffer;
}

const SKIP = new Set(["node_modules", ".git"]);

/** Every file under `dir`, as paths relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (!SKIP.has(e.name)) await walk(p);
      } else if (e.isFile()) out.push(relative(dir, p));
    }
  };
  await walk(dir);
  return out.sort();
}

/**
 * Packs `files` (paths relative to `root`; every file under `root` when left out) but those in
 * `exclude`. Throws
 * ResourceExhaustedError naming `what`, the size and the limit when the files exceed `maxBytes`.
 */
export async function packFiles(
  root: string,
  opts: { files?: readonly string[]; exclude?: readonly string[]; maxBytes: number; what: string; limitFlag: string },
): Promise<Buffer> {
  const paths = (opts.files ?? (await filesUnder(root))).filter((p) => !opts.exclude?.includes(p));
  const entries: Entry[] = [];
  let total = 0;
  for (const path of paths) {
    const abs = join(root, path);
    const st = await stat(abs);
    total += st.size;
    if (total > opts.maxBytes) {
      throw new ResourceExhaustedError(
        `${opts.what} holds more than ${opts.maxBytes} bytes (at ${path}); raise ${opts.limitFlag}, or keep large files out of it`,
      );
    }
    entries.push({ path: path.split(sep).join("/"), mode: st.mode & 0o777, data: await readFile(abs) });
  }
  return gzipSync(pack(entries));
}

/** Largest unpacked bundle: 1 GiB (a blob that inflates past it is refused, not written). */
const MAX_UNPACKED = 1024 * 1024 * 1024;

/**
 * Writes a blob's files under `dir`; a path that is absolute or leaves `dir`, or a blob that
 * inflates past 1 GiB, is refused. Returns the paths written.
 */
export async function unpackFiles(blob: Buffer, dir: string): Promise<string[]> {
  let raw: Buffer;
  try {
    raw = gunzipSync(blob, { maxOutputLength: MAX_UNPACKED });
  } catch (err) {
    throw new InvalidArgumentError(`not a bundle of files (${(err as Error).message})`);
  }
  const entries = unpack(raw) as Entry[];
  if (!Array.isArray(entries)) throw new InvalidArgumentError("not a bundle of files");
  const written: string[] = [];
  for (const e of entries) {
    const rel = normalize(String(e.path));
    if (isAbsolute(rel) || rel === ".." || rel.startsWith(`..${sep}`))
      throw new InvalidArgumentError(`a bundle's file ${JSON.stringify(e.path)} would leave its folder`);
    const abs = join(dir, rel);
    await mkdir(dirname(abs), { recursive: true });
    await writeFile(abs, Buffer.from(e.data), { mode: e.mode & 0o777 || 0o644 });
    written.push(rel);
  }
  return written;
}
