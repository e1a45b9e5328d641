import { randomBytes } from "node:crypto";
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { startBlockJob } from "../../../packages/shared/src/blockWriter.js";
import { decodeIntoPool, pooledBytes, recycleMessageBuffer, takeMessageBuffer } from "../../../packages/shared/src/receivePool.js";

const require = createRequire(import.meta.url);
const DECODER_PATH = require.resolve("@grpc/grpc-js/build/src/stream-decoder.js", { paths: [join(import.meta.dirname, "../../../packages/shared")] });

type Decoder = { write(data: Buffer): Buffer[] };
type DecoderClass = new (max: number) => Decoder;

/** grpc-js's own StreamDecoder, evaluated afresh from its file: unpatched whatever this process did before. */
function pristineDecoder(): DecoderClass {
  const module = { exports: {} as { StreamDecoder?: DecoderClass } };
  new Function("exports", "module", "require", readFileSync(DECODER_PATH, "utf8"))(module.exports, module, require);
  return module.exports.StreamDecoder!;
}

/** The StreamDecoder grpc-js uses in this process (patched once decodeIntoPool ran). */
const liveDecoder = () => (require(DECODER_PATH) as { StreamDecoder: DecoderClass }).StreamDecoder;

function frame(message: Buffer, compressed = false): Buffer {
  const prefix = Buffer.alloc(5);
  prefix[0] = compressed ? 1 : 0;
  prefix.writeUInt32BE(message.length, 1);
  return Buffer.concat([prefix, message]);
}

/** `bytes` cut into pieces of random sizes up to `most`. */
function pieces(bytes: Buffer, most: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; ) {
    const n = 1 + Math.floor(Math.random() * most);
    out.push(bytes.subarray(at, at + n));
    at += n;
  }
  return out;
}

function decodeAll(decoder: Decoder, input: Buffer[]): Buffer[] {
  return input.flatMap((p) => decoder.write(p).map((m) => Buffer.from(m)));
}

describe("receivePool: grpc-js's decoder assembling large messages in pooled memory", () => {
  test("the patched decoder gives grpc-js's messages byte for byte, however the stream is cut", () => {
    expect(decodeIntoPool()).toBe(true);
    const Original = pristineDecoder();
    const Patched = liveDecoder();
    expect(Patched.prototype.write).not.toBe(Original.prototype.write);
    const small = [0, 1, 100, 64 * 1024 - 6, 64 * 1024 - 5, 64 * 1024 + 3, 0, 17];
    const sizes = [...small, 1024 * 1024 + 9, 3 * 1024 * 1024 + 7, 5];
    // Byte-sized pieces for the small messages (a piece may end anywhere in a prefix), larger ones for all.
    for (const [most, cut] of [
      [3, small],
      [7, small],
      [4096, sizes],
      [16 * 1024, sizes],
      [70_000, sizes],
      [5 * 1024 * 1024, sizes],
    ] as const) {
      const input = pieces(Buffer.concat(cut.map((n, i) => frame(randomBytes(n), i % 3 === 1))), most);
      const want = decodeAll(new Original(-1), input);
      const got = decodeAll(new Patched(-1), input);
      expect(want.map((m) => m.length)).toEqual(cut.map((n) => n + 5));
      expect(got.length).toBe(want.length);
      for (let i = 0; i < want.length; i++) expect(got[i]!.equals(want[i]!), `message ${i}, pieces up to ${most} bytes`).toBe(true);
    }
  });

  test("a message over the limit fails as grpc-js's own decoder fails", () => {
    decodeIntoPool();
    const input = frame(randomBytes(200_000));
    const error = (D: DecoderClass) => {
      try {
        new D(100_000).write(input);
      } catch (err) {
        return (err as Error).message;
      }
      return "no error";
    };
    expect(error(liveDecoder())).toBe(error(pristineDecoder()));
    expect(error(liveDecoder())).toContain("Received message larger than max (200000 vs 100000)");
  });

  test("a large message has an ArrayBuffer of its own, and memory given back assembles the next one of its size", () => {
    decodeIntoPool();
    const size = 300_000 + Math.floor(Math.random() * 1000);
    const d = new (liveDecoder())(-1);
    const [first] = d.write(frame(randomBytes(size)));
    expect(first!.length).toBe(size + 5);
    expect(first!.buffer.byteLength).toBe(size + 5);
    const memory = first!.buffer as ArrayBuffer;
    const before = pooledBytes();
    recycleMessageBuffer(memory);
    expect(pooledBytes()).toBe(before + size + 5);
    const payload = randomBytes(size);
    const [second] = d.write(frame(payload));
    expect(second!.buffer === memory, "assembled in the memory given back").toBe(true);
    expect(second!.subarray(5).equals(payload)).toBe(true);
    expect(pooledBytes()).toBe(before);
  });

  test("small buffers are not kept, and the pool lets everything go after a second without use", async () => {
    const before = pooledBytes();
    recycleMessageBuffer(new ArrayBuffer(1000));
    expect(pooledBytes()).toBe(before);
    recycleMessageBuffer(new ArrayBuffer(128 * 1024));
    expect(pooledBytes()).toBe(before + 128 * 1024);
    await new Promise((r) => setTimeout(r, 1300));
    expect(pooledBytes()).toBe(0);
    // A taken buffer with no free one of its size is new memory of exactly that size.
    expect(takeMessageBuffer(200_001).buffer.byteLength).toBe(200_001);
  });
});

describe("receivePool: memory the block writer thread hands back", () => {
  const dir = mkdtempSync(join(tmpdir(), "pincer-receivepool-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("a chunk written through a block job comes back into the pool, and the file holds its bytes", async () => {
    const path = join(dir, "out.bin");
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    // The ordinary descriptor stands in for the direct one: the hand-back does not depend on O_DIRECT.
    const job = await startBlockJob(fd, fd);
    const bytes = randomBytes(512 * 1024);
    try {
      expect(job).toBeDefined();
      const chunk = takeMessageBuffer(512 * 1024);
      bytes.copy(chunk);
      const before = pooledBytes();
      await job!.write(chunk);
      // Transferred: no view of it is left in this thread.
      expect(chunk.length).toBe(0);
      expect(pooledBytes()).toBe(before + 512 * 1024);
      expect(await job!.finish()).toMatchObject({ padded: false });
    } finally {
      await job?.drop();
      closeSync(fd);
    }
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });
});
