import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, existsSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { FailedPreconditionError } from "@pincer/shared";

/** What the cache records beside a file. */
interface Entry {
  url: string;
  sha256: string;
  bytes: number;
  fetchedAt: string;
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(path), hash);
  return hash.digest("hex");
}

/**
 * Files fetched by URL, kept on the controller so each is downloaded once for every task and run:
 * OSWorld's `download` config and `cloud_file` getter read through it. A file is stored under the
 * sha256 of its URL, with the sha256 of its content recorded; a task that gives a checksum gets only
 * a file with that checksum. Offline, a missing file is an error naming the URL and where to put
 * it (`pincer cache add <url> <file>`). Writes are atomic: a failed download leaves nothing behind.
 */
export class DownloadCache {
  constructor(
    /** The cache folder. @default $PINCER_DOWNLOADS_DIR, else $PINCER_CACHE_DIR/downloads, else ~/.cache/pincer/downloads */
    readonly root: string = process.env.PINCER_DOWNLOADS_DIR ?? join(process.env.PINCER_CACHE_DIR ?? join(homedir(), ".cache", "pincer"), "downloads"),
    /** Fetches a URL. @default the global fetch */
    private readonly fetcher: typeof fetch = fetch,
  ) {}

  /** The folder of a URL's entry. */
  dirOf(url: string): string {
    return join(this.root, createHash("sha256").update(url).digest("hex"));
  }

  async #entry(url: string): Promise<{ file: string; entry: Entry } | undefined> {
    const dir = this.dirOf(url);
    if (!existsSync(join(dir, "entry.json"))) return undefined;
    const entry = JSON.parse(await readFile(join(dir, "entry.json"), "utf8")) as Entry;
    return { file: join(dir, "file"), entry };
  }

  /** Stores `source` (a local file) as the content of `url`, replacing what was there. */
  async add(url: string, source: string): Promise<Entry> {
    const dir = this.dirOf(url);
    await mkdir(dir, { recursive: true });
    const tmp = join(dir, `.file.${process.pid}.${Date.now()}`);
    try {
      await pipeline(createReadStream(source), createWriteStream(tmp));
      return await this.#commit(url, tmp);
    } finally {
      await rm(tmp, { force: true });
    }
  }

  async #commit(url: string, tmp: string): Promise<Entry> {
    const dir = this.dirOf(url);
    const sha256 = await sha256Of(tmp);
    const { size } = await import("node:fs/promises").then((fs) => fs.stat(tmp));
    const entry: Entry = { url, sha256, bytes: size, fetchedAt: new Date().toISOString() };
    await rename(tmp, join(dir, "file"));
    await writeFile(join(dir, ".entry.json.tmp"), `${JSON.stringify(entry, null, 2)}\n`);
    await rename(join(dir, ".entry.json.tmp"), join(dir, "entry.json"));
    return entry;
  }

  /**
   * The local path of `url`'s content, fetched first when it is not cached. With `sha256`, a cached
   * file of other content is fetched again, and a fetched one of other content is an error.
   */
  async get(url: string, opts: { sha256?: string; signal?: AbortSignal } = {}): Promise<string> {
    const cached = await this.#entry(url);
    if (cached && (!opts.sha256 || cached.entry.sha256 === opts.sha256.toLowerCase())) return cached.file;
    const dir = this.dirOf(url);
    await mkdir(dir, { recursive: true });
    const tmp = join(dir, `.file.${process.pid}.${Date.now()}`);
    try {
      let res: Response;
      try {
        res = await this.fetcher(url, { redirect: "follow", ...(opts.signal ? { signal: opts.signal } : {}) });
      } catch (err) {
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        throw new FailedPreconditionError(
          `cannot download ${url} (${cause?.code ?? cause?.message ?? (err as Error).message}); if this machine is offline, ` +
            `fetch the file elsewhere and add it with: pincer cache add '${url}' <file>  (cache: ${this.root})`,
        );
      }
      if (!res.ok || !res.body) throw new FailedPreconditionError(`cannot download ${url}: HTTP ${res.status} ${res.statusText}`);
      await pipeline(
        Readable.fromWeb(res.body as import("node:stream/web").ReadableStream),
        createWriteStream(tmp),
        opts.signal ? { signal: opts.signal } : {},
      );
      const entry = await this.#commit(url, tmp);
      if (opts.sha256 && entry.sha256 !== opts.sha256.toLowerCase()) {
        throw new FailedPreconditionError(`download of ${url} has sha256 ${entry.sha256}, but the task expects ${opts.sha256}`);
      }
      return join(dir, "file");
    } finally {
      await rm(tmp, { force: true });
    }
  }

  /** A readable name for logs: the URL's last path part. */
  static nameOf(url: string): string {
    return basename(new URL(url).pathname) || "download";
  }
}
