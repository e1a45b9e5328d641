import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import { DIRECT_IO_MIN_BYTES, FileSink } from "@pincer/shared";

const MiB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), "pincer-sink-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/**
 * Chunks of `content` the way a transfer delivers them, and worse: buffers of their own (as grpc-js
 * gives messages), tiny pieces, and views into one larger buffer that must not be taken away.
 */
function* chunksOf(content: Buffer): Generator<Uint8Array> {
  let at = 0;
  const sizes = [MiB, 3, MiB + 7, 4096, 1, 2 * MiB - 5];
  for (let i = 0; at < content.length; i++) {
    const n = Math.min(sizes[i % sizes.length]!, content.length - at);
    const piece = content.subarray(at, at + n);
    // Every third chunk is a view into `content` itself; the rest are copies in their own memory.
    yield i % 3 === 2 ? piece : new Uint8Array(piece);
    at += n;
  }
}

async function sinkRoundTrip(name: string, content: Buffer, expectedBytes?: number) {
  const path = join(dir, name);
  const sink = await FileSink.create(path, { expectedBytes });
  for (const chunk of chunksOf(content)) await sink.write(chunk);
  const digest = await sink.digest();
  await sink.finish();
  await sink.close();
  return { path, digest, direct: sink.isDirect, bytes: sink.bytes };
}

describe("FileSink", () => {
  test("a large file goes through the writer thread with O_DIRECT: exact bytes, exact size, same sha256", async () => {
    // Not a multiple of 4096: the last direct block is padded and the file truncated after.
    const content = randomBytes(DIRECT_IO_MIN_BYTES + 5 * MiB + 1234);
    const before = sha(content);
    const r = await sinkRoundTrip("direct.bin", content, content.length);
    expect(r.direct).toBe(true);
    expect(r.bytes).toBe(content.length);
    expect(r.digest).toBe(before);
    expect(statSync(r.path).size).toBe(content.length);
    expect(sha(readFileSync(r.path))).toBe(before);
    // Views into a larger buffer were copied, not taken: the source is intact.
    expect(content.length).toBe(DIRECT_IO_MIN_BYTES + 5 * MiB + 1234);
    expect(sha(content)).toBe(before);
  });

  test("small files, and large ones with PINCER_DIRECT_IO=0, are written buffered with the same result", async () => {
    const small = randomBytes(3 * MiB + 17);
    const s = await sinkRoundTrip("small.bin", small, small.length);
    expect(s.direct).toBe(false);
    expect(s.digest).toBe(sha(small));
    expect(readFileSync(s.path).equals(small)).toBe(true);

    vi.stubEnv("PINCER_DIRECT_IO", "0");
    const large = randomBytes(DIRECT_IO_MIN_BYTES + 1);
    const l = await sinkRoundTrip("buffered-large.bin", large, large.length);
    expect(l.direct).toBe(false);
    expect(l.digest).toBe(sha(large));
    expect(readFileSync(l.path).equals(large)).toBe(true);
  });

  test("the path must not exist yet; the new file is private until its mode is set", async () => {
    const path = join(dir, "exists.bin");
    const sink = await FileSink.create(path, { expectedBytes: DIRECT_IO_MIN_BYTES });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    await expect(FileSink.create(path)).rejects.toMatchObject({ code: "EEXIST" });
    await sink.close();
  });

  test("closing a sink part way leaves only what the caller removes, and the thread serves the next one", async () => {
    const sub = mkdtempSync(join(dir, "abandon-"));
    const sink = await FileSink.create(join(sub, "part.bin"), { expectedBytes: DIRECT_IO_MIN_BYTES * 2 });
    for (let i = 0; i < 10; i++) await sink.write(randomBytes(MiB));
    await sink.close();
    rmSync(join(sub, "part.bin"));
    expect(readdirSync(sub)).toEqual([]);
    const content = randomBytes(DIRECT_IO_MIN_BYTES);
    const r = await sinkRoundTrip("after.bin", content, content.length);
    expect(r.direct).toBe(true);
    expect(r.digest).toBe(sha(content));
  });

  test("several large sinks at once share the thread and keep their bytes apart", async () => {
    const contents = [0, 1, 2].map((i) => randomBytes(DIRECT_IO_MIN_BYTES + i * 4099));
    const results = await Promise.all(contents.map((c, i) => sinkRoundTrip(`concurrent-${i}.bin`, c, c.length)));
    results.forEach((r, i) => {
      expect(r.direct).toBe(true);
      expect(r.digest).toBe(sha(contents[i]!));
      expect(readFileSync(r.path).equals(contents[i]!)).toBe(true);
    });
  });

  test("a transfer that starts while the idle writer thread is exiting gets a new thread and loses nothing", async () => {
    const small = async (name: string) => {
      // Direct mode is chosen by the expected size; a few MiB of data are enough to use the thread.
      const content = randomBytes(8 * MiB + 5);
      const path = join(dir, name);
      const sink = await FileSink.create(path, { expectedBytes: DIRECT_IO_MIN_BYTES });
      for (const chunk of chunksOf(content)) await sink.write(chunk);
      const digest = await sink.digest();
      await sink.finish();
      await sink.close();
      expect(sink.isDirect).toBe(true);
      expect(digest).toBe(sha(content));
      expect(readFileSync(path).equals(content)).toBe(true);
    };
    await small("idle-0.bin");
    // The thread's idle timer (5 s) was set when that sink closed, so it fires just before this
    // one: the next transfer starts while the old thread is still exiting.
    await new Promise((r) => setTimeout(r, 5000));
    for (let i = 1; i <= 5; i++) await small(`idle-${i}.bin`);
  }, 20_000);
});
