import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { createGzip, gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { limitsFor, MAX_BUNDLE_BYTES, packFiles, unpackFiles } from "../../../packages/controller/src/queue/bundle.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pincer-bundle-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const opts = { maxBytes: 1024 * 1024, what: "the task's files", limitFlag: "--limit" };
const MiB = 1024 * 1024;

/** A file's frame as a bundle holds it: length, JSON header, then its bytes. */
function frame(p: string, size: number, mode = 0o644): Buffer {
  const header = Buffer.from(JSON.stringify({ p, m: mode, s: size }));
  const len = Buffer.alloc(4);
  len.writeUInt32BE(header.length);
  return Buffer.concat([len, header]);
}
const MAGIC = Buffer.from("PINCERB1");
const END = Buffer.alloc(4);

/** A bundle written by hand, as an attacker would: each file given with its bytes. */
function rawBundle(files: Array<{ p: string; data: Buffer }>): Buffer {
  return gzipSync(Buffer.concat([MAGIC, ...files.flatMap((f) => [frame(f.p, f.data.length), f.data]), END]));
}

/** A small gzip that inflates to `files` files of `mibEach` MiB of zeros each, streamed (never held whole here). */
async function bomb(files: number, mibEach: number): Promise<Buffer> {
  const zeros = Buffer.alloc(MiB);
  async function* gen() {
    yield MAGIC;
    for (let f = 0; f < files; f++) {
      yield frame(`bomb/${f}.bin`, mibEach * MiB);
      for (let i = 0; i < mibEach; i++) yield zeros;
    }
    yield END;
  }
  const out: Buffer[] = [];
  for await (const c of Readable.from(gen()).pipe(createGzip({ level: 9 }))) out.push(c as Buffer);
  return Buffer.concat(out);
}

/** Runs `work` while sampling this process's RSS; returns how far it grew above where it began, in MiB. */
async function rssGrowth(work: () => Promise<unknown>): Promise<number> {
  globalThis.gc?.();
  const base = process.memoryUsage.rss();
  let peak = base;
  const t = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  try {
    await work();
  } catch {
    // the caller checks the outcome
  } finally {
    clearInterval(t);
  }
  return (Math.max(peak, process.memoryUsage.rss()) - base) / MiB;
}

describe("task and attempt bundles", () => {
  test("pack and unpack keep files, folders and modes; node_modules and .git stay behind; exclude leaves a file out", async () => {
    mkdirSync(join(dir, "src/task/sub"), { recursive: true });
    mkdirSync(join(dir, "src/node_modules/x"), { recursive: true });
    mkdirSync(join(dir, "src/.git"), { recursive: true });
    writeFileSync(join(dir, "src/task/a.json"), '{"a":1}');
    writeFileSync(join(dir, "src/task/empty.txt"), "");
    writeFileSync(join(dir, "src/task/sub/run.sh"), "#!/bin/sh\necho hi\n", { mode: 0o755 });
    writeFileSync(join(dir, "src/task/summary.json"), "{}");
    writeFileSync(join(dir, "src/node_modules/x/index.js"), "");
    writeFileSync(join(dir, "src/.git/HEAD"), "");
    const blob = await packFiles(join(dir, "src"), { ...opts, exclude: ["task/summary.json"] });
    const written = await unpackFiles(blob, join(dir, "out"), limitsFor(MiB, "a test bundle"));
    expect(written.sort()).toEqual(["task/a.json", "task/empty.txt", "task/sub/run.sh"]);
    expect(readFileSync(join(dir, "out/task/a.json"), "utf8")).toBe('{"a":1}');
    expect(readFileSync(join(dir, "out/task/empty.txt"), "utf8")).toBe("");
    expect(statSync(join(dir, "out/task/sub/run.sh")).mode & 0o777).toBe(0o755);
    expect(existsSync(join(dir, "out/task/summary.json"))).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(["out", "src"]);
  });

  test("files past the limit are refused with the flag that raises it", async () => {
    writeFileSync(join(dir, "big.bin"), Buffer.alloc(2048));
    await expect(packFiles(dir, { ...opts, maxBytes: 1000 })).rejects.toThrow(/more than 1000 bytes \(at big\.bin\); raise --limit/);
  });

  test.each(["../escape.txt", "/etc/escape.txt", "a/../../escape.txt", "..\\escape.txt"])(
    "a path that leaves the folder (%s), after a good file, is refused and nothing of the bundle is written",
    async (path) => {
      const blob = rawBundle([
        { p: "good.txt", data: Buffer.from("fine") },
        { p: path, data: Buffer.from("x") },
      ]);
      await expect(unpackFiles(blob, join(dir, "out"), limitsFor(MiB, "a test bundle"))).rejects.toThrow(/would leave its folder/);
      expect(existsSync(join(dir, "escape.txt"))).toBe(false);
      expect(readdirSync(dir)).toEqual([]);
    },
  );

  test("a blob that is not a bundle says so, and leaves nothing", async () => {
    const limits = limitsFor(MiB, "a test bundle");
    await expect(unpackFiles(Buffer.from("not gzip"), join(dir, "out"), limits)).rejects.toThrow(/not a bundle of files/);
    await expect(unpackFiles(gzipSync(Buffer.from("{}")), join(dir, "out"), limits)).rejects.toThrow(/not a bundle of files/);
    const truncated = gzipSync(Buffer.concat([MAGIC, frame("a.txt", 100), Buffer.from("short")]));
    await expect(unpackFiles(truncated, join(dir, "out"), limits)).rejects.toThrow(/ends in the middle of a file/);
    const twice = rawBundle([
      { p: "a.txt", data: Buffer.from("1") },
      { p: "a.txt", data: Buffer.from("2") },
    ]);
    await expect(unpackFiles(twice, join(dir, "out"), limits)).rejects.toThrow(/a\.txt cannot be written .*given twice/);
    expect(readdirSync(dir)).toEqual([]);
  });

  test("a bundle bomb (a small gzip of one 512 MiB file) is refused while it inflates: memory stays bounded, nothing is left", async () => {
    const blob = await bomb(1, 512);
    expect(blob.length).toBeLessThan(MiB);
    let error: unknown;
    const grew = await rssGrowth(() => unpackFiles(blob, join(dir, "out"), limitsFor(MAX_BUNDLE_BYTES, "the files of task t/bomb")).catch((e) => (error = e)));
    expect(String(error)).toMatch(/the files of task t\/bomb holds bomb\/0\.bin of 536870912 bytes, more than 67108864 a file: refused, nothing written/);
    expect(grew).toBeLessThan(64);
    expect(readdirSync(dir)).toEqual([]);
  }, 60_000);

  test("many files that together pass the limit are refused at the file that passes it, and what was written is removed", async () => {
    const blob = await bomb(80, 1);
    let error: unknown;
    const grew = await rssGrowth(() => unpackFiles(blob, join(dir, "out"), limitsFor(MAX_BUNDLE_BYTES, "an attempt's folder")).catch((e) => (error = e)));
    expect(String(error)).toMatch(/an attempt's folder unpacks to more than 67108864 bytes \(at bomb\/63\.bin\): refused/);
    expect(grew).toBeLessThan(64);
    expect(readdirSync(dir)).toEqual([]);
    // A compressed blob larger than the limit is refused before it is inflated at all.
    await expect(unpackFiles(Buffer.alloc(2 * MiB), join(dir, "out"), limitsFor(MiB, "a test bundle"))).rejects.toThrow(/is a blob of 2097152 bytes/);
  }, 60_000);
});
