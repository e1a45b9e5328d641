import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, open, readdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join, posix, relative, sep } from "node:path";
import { Readable } from "node:stream";
import { createGunzip, createGzip } from "node:zlib";
import { InvalidArgumentError, ResourceExhaustedError } from "@pincer/shared";

/**
 * Files as one gzipped stream that travels through Redis: a task's files from the coordinator to a
 * worker, an attempt's folder back. Inside the gzip: `PINCERB1`, then per file a 4-byte big-endian
 * length, a JSON header `{"p": path, "m": mode, "s": size}` and `size` bytes; a length of 0 ends it.
 * The receiver holds every limit while it inflates, a chunk at a time, into a new folder it renames
 * into place only when the whole stream was read: a refused bundle leaves nothing behind.
 */

const MAGIC = Buffer.from("PINCERB1");
/** Longest header of one file, in bytes (its path is at most 1024 characters). */
const MAX_HEADER_BYTES = 2048;
const SKIP = new Set(["node_modules", ".git"]);

/** What a receiver accepts of one bundle. Sizes in bytes; headers count toward `maxUnpackedBytes`. */
export interface UnpackLimits {
  /** Largest compressed blob. */
  maxBlobBytes: number;
  /** Largest total once inflated (files and their headers). */
  maxUnpackedBytes: number;
  /** Largest single file. */
  maxFileBytes: number;
  /** Most files. @default 20_000 */
  maxFiles?: number;
  /** What the bundle is, for messages (e.g. "the files of task t/a"). */
  what: string;
}

/** A task's files: 64 MiB, the limit the coordinator packs them with. */
export const MAX_BUNDLE_BYTES = 64 * 1024 * 1024;
/** An attempt's folder: 256 MiB, the limit a worker packs it with by default (`--max-artifact-mib`). */
export const MAX_ARTIFACT_BYTES = 256 * 1024 * 1024;

/**
 * The limits of a bundle whose files hold at most `maxBytes`: any file up to all of it; the blob up
 * to `maxBytes` and what gzip adds to incompressible data.
 */
export function limitsFor(maxBytes: number, what: string): UnpackLimits {
  return { maxBlobBytes: maxBytes + Math.ceil(maxBytes / 1024) + 65_536, maxUnpackedBytes: maxBytes, maxFileBytes: maxBytes, what };
}

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

const frame = (header: object) => {
  const json = Buffer.from(JSON.stringify(header));
  const len = Buffer.alloc(4);
  len.writeUInt32BE(json.length);
  return Buffer.concat([len, json]);
};

/**
 * Packs `files` (paths relative to `root`; every file under `root` when left out) but those in
 * `exclude`, streaming each file through gzip. Throws ResourceExhaustedError naming `what`, the
 * size and the limit when the files and their headers exceed `maxBytes`.
 */
export async function packFiles(
  root: string,
  opts: { files?: readonly string[]; exclude?: readonly string[]; maxBytes: number; what: string; limitFlag: string },
): Promise<Buffer> {
  const paths = (opts.files ?? (await filesUnder(root))).filter((p) => !opts.exclude?.includes(p));
  const entries: Array<{ abs: string; header: Buffer; size: number }> = [];
  let total = 0;
  for (const path of paths) {
    const abs = join(root, path);
    const st = await stat(abs);
    const header = frame({ p: path.split(sep).join("/"), m: st.mode & 0o755, s: st.size });
    total += header.length + st.size;
    if (total > opts.maxBytes || header.length > MAX_HEADER_BYTES + 4) {
      throw new ResourceExhaustedError(
        `${opts.what} holds more than ${opts.maxBytes} bytes (at ${path}); raise ${opts.limitFlag}, or keep large files out of it`,
      );
    }
    entries.push({ abs, header, size: st.size });
  }
  async function* stream() {
    yield MAGIC;
    for (const e of entries) {
      yield e.header;
      let n = 0;
      if (e.size > 0) {
        for await (const chunk of createReadStream(e.abs, { end: e.size - 1 })) {
          n += (chunk as Buffer).length;
          yield chunk as Buffer;
        }
      }
      if (n !== e.size) throw new InvalidArgumentError(`${e.abs} changed size while it was packed; pack it again`);
    }
    yield Buffer.alloc(4);
  }
  const out: Buffer[] = [];
  for await (const chunk of Readable.from(stream()).pipe(createGzip())) out.push(chunk as Buffer);
  return Buffer.concat(out);
}

/** Reads exact byte counts from a stream of chunks, holding at most one chunk. */
class ChunkReader {
  #buf: Buffer = Buffer.alloc(0);
  constructor(private readonly it: AsyncIterator<Buffer>) {}

  /** Up to `max` bytes (fewer only at the end of the stream; none there). */
  async some(max: number): Promise<Buffer> {
    if (this.#buf.length === 0) {
      const next = await this.it.next();
      if (next.done) return Buffer.alloc(0);
      this.#buf = next.value;
    }
    const out = this.#buf.subarray(0, max);
    this.#buf = this.#buf.subarray(out.length);
    return out;
  }

  /** Exactly `n` bytes; a stream that ends first is not a bundle. */
  async exactly(n: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    for (let left = n; left > 0; ) {
      const b = await this.some(left);
      if (b.length === 0) throw new InvalidArgumentError("not a bundle of files (it ends in the middle of a file)");
      parts.push(b);
      left -= b.length;
    }
    return Buffer.concat(parts);
  }
}

/** A file's path in a bundle as a relative path in its folder; throws for one that is absolute or would leave it. */
function safePath(p: unknown): string {
  if (typeof p !== "string" || p === "" || p.length > 1024 || p.includes("\0")) throw new InvalidArgumentError(`a bundle's file has no usable path`);
  const rel = posix.normalize(p.replace(/\\/g, "/"));
  if (posix.isAbsolute(rel) || rel === ".." || rel.startsWith("../") || rel === "." || rel.endsWith("/")) {
    throw new InvalidArgumentError(`a bundle's file ${JSON.stringify(p.slice(0, 200))} would leave its folder`);
  }
  return rel;
}

/**
 * Writes a bundle's files under `dir` (replacing what is there), enforcing `limits` while it
 * inflates: a blob, total or file past its limit, too many files, a path that is absolute or leaves
 * `dir`, or a stream that is not a bundle is refused, and nothing of it is left on disk. Returns
 * the paths written.
 */
export async function unpackFiles(blob: Uint8Array, dir: string, limits: UnpackLimits): Promise<string[]> {
  const { what } = limits;
  const maxFiles = limits.maxFiles ?? 20_000;
  const tooBig = (detail: string) => new ResourceExhaustedError(`${what} ${detail}: refused, nothing written`);
  if (blob.length > limits.maxBlobBytes) throw tooBig(`is a blob of ${blob.length} bytes, more than ${limits.maxBlobBytes}`);
  await mkdir(dirname(dir), { recursive: true });
  const tmp = `${dir}.partial-${randomBytes(4).toString("hex")}`;
  await mkdir(tmp, { mode: 0o700 });
  const gunzip = Readable.from([Buffer.from(blob)]).pipe(createGunzip({ chunkSize: 64 * 1024 }));
  const written: string[] = [];
  try {
    const reader = new ChunkReader(gunzip[Symbol.asyncIterator]());
    if (!(await reader.exactly(MAGIC.length)).equals(MAGIC)) throw new InvalidArgumentError("not a bundle of files");
    let total = MAGIC.length;
    for (;;) {
      const len = (await reader.exactly(4)).readUInt32BE();
      if (len === 0) break;
      if (len > MAX_HEADER_BYTES) throw new InvalidArgumentError("not a bundle of files (a file's header is too long)");
      total += 4 + len;
      if (written.length >= maxFiles) throw tooBig(`holds more than ${maxFiles} files`);
      let header: { p?: unknown; m?: unknown; s?: unknown };
      try {
        header = JSON.parse((await reader.exactly(len)).toString("utf8"));
      } catch (err) {
        if (err instanceof InvalidArgumentError) throw err;
        throw new InvalidArgumentError("not a bundle of files (a file's header is not JSON)");
      }
      const rel = safePath(header.p);
      const size = header.s;
      if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0) throw new InvalidArgumentError(`not a bundle of files (${rel} has no size)`);
      if (size > limits.maxFileBytes) throw tooBig(`holds ${rel} of ${size} bytes, more than ${limits.maxFileBytes} a file`);
      total += size;
      if (total > limits.maxUnpackedBytes) throw tooBig(`unpacks to more than ${limits.maxUnpackedBytes} bytes (at ${rel})`);
      const abs = join(tmp, rel);
      await mkdir(dirname(abs), { recursive: true });
      const mode = typeof header.m === "number" ? header.m & 0o755 : 0o644;
      // "wx": a new regular file; a path given twice (or under a file) is refused, never followed.
      const fh = await open(abs, "wx", mode || 0o644).catch((err: NodeJS.ErrnoException) => {
        throw new InvalidArgumentError(`a bundle's file ${rel} cannot be written (${err.code}): it is given twice, or under another file`);
      });
      try {
        for (let left = size; left > 0; ) {
          const chunk = await reader.some(left);
          if (chunk.length === 0) throw new InvalidArgumentError("not a bundle of files (it ends in the middle of a file)");
          await fh.write(chunk);
          left -= chunk.length;
        }
      } finally {
        await fh.close();
      }
      written.push(rel);
    }
    if ((await reader.some(1)).length > 0) throw new InvalidArgumentError("not a bundle of files (data after its end)");
    await rm(dir, { recursive: true, force: true });
    await rename(tmp, dir);
    return written;
  } catch (err) {
    gunzip.destroy();
    await rm(tmp, { recursive: true, force: true });
    if (err instanceof InvalidArgumentError || err instanceof ResourceExhaustedError) throw err;
    throw new InvalidArgumentError(`not a bundle of files (${(err as Error).message})`);
  }
}
