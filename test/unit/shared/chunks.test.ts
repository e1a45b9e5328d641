import { mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, test } from "vitest";
import { ChunkReader, DIRECT_IO_MIN_BYTES, loadProtocol, openDirect } from "@pincer/shared";

const dir = mkdtempSync(join(tmpdir(), "pincer-chunks-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const files = loadProtocol().definition["pincer.v1.Files"] as Record<
  string,
  {
    requestSerialize: (m: unknown) => Buffer;
    requestDeserialize: (b: Buffer) => unknown;
    responseSerialize: (m: unknown) => Buffer;
    responseDeserialize: (b: Buffer) => unknown;
  }
>;

describe("ChunkReader: file bytes as pre-encoded chunk messages", () => {
  // Sizes around the varint length boundaries (127/128, 16383/16384) and the chunk size.
  test.each([1, 127, 128, 200, 16383, 16384, 70_000, 3 * 65536 + 5])("%i bytes decode back to the same bytes on both methods", async (size) => {
    const content = randomBytes(size);
    const path = join(dir, `f${size}`);
    writeFileSync(path, content);
    const fh = await open(path, "r");
    const got: Buffer[] = [];
    const viaDownload: Buffer[] = [];
    try {
      const reader = new ChunkReader(fh, 0, 65536, 2);
      for (let c = await reader.next(); c; c = await reader.next()) {
        const up = files.Upload!.requestDeserialize(files.Upload!.requestSerialize(c.message)) as { message: string; chunk: Buffer };
        const down = files.Download!.responseDeserialize(files.Download!.responseSerialize(c.message)) as { message: string; chunk: Buffer };
        expect(up.message).toBe("chunk");
        expect(down.message).toBe("chunk");
        expect(Buffer.compare(up.chunk, c.data)).toBe(0);
        got.push(Buffer.from(up.chunk));
        viaDownload.push(Buffer.from(down.chunk));
        c.release();
      }
    } finally {
      await fh.close();
    }
    expect(Buffer.compare(Buffer.concat(got), content)).toBe(0);
    expect(Buffer.compare(Buffer.concat(viaDownload), content)).toBe(0);
    // Ordinary messages still go through protobufjs.
    const header = files.Upload!.requestDeserialize(files.Upload!.requestSerialize({ header: { path: "/x", mode: 420 } })) as { header: { path: string } };
    expect(header.header.path).toBe("/x");
  });

  test("reads from an offset; with a pool, buffers come back only when released", async () => {
    const content = randomBytes(5 * 1000);
    const path = join(dir, "pool");
    writeFileSync(path, content);
    const fh = await open(path, "r");
    try {
      const reader = new ChunkReader(fh, 1000, 1000, 1);
      const a = (await reader.next())!;
      const b = (await reader.next())!;
      expect(a.data.buffer).not.toBe(b.data.buffer);
      expect(Buffer.compare(a.data, content.subarray(1000, 2000))).toBe(0);
      // Released: its buffer is reused; b's data stays intact until b is released.
      a.release();
      a.release();
      const c = (await reader.next())!;
      const d = (await reader.next())!;
      expect(Buffer.compare(b.data, content.subarray(2000, 3000))).toBe(0);
      expect(Buffer.compare(Buffer.concat([c.data, d.data]), content.subarray(3000, 5000))).toBe(0);
      expect(await reader.next()).toBeUndefined();
    } finally {
      await fh.close();
    }
  });

  test("with an O_DIRECT descriptor: the same bytes, from the start or from an unaligned offset, and several readers at once", async () => {
    const size = 5 * 1024 * 1024 + 100;
    const content = randomBytes(size);
    const path = join(dir, "direct");
    writeFileSync(path, content);
    const readAll = async (offset: number) => {
      const fh = await open(path, "r");
      const direct = await openDirect(fh, constants.O_RDONLY, DIRECT_IO_MIN_BYTES);
      expect(direct).toBeDefined();
      const reader = new ChunkReader(fh, offset, 1024 * 1024, 2, direct);
      const got: Buffer[] = [];
      try {
        for (let c = await reader.next(); c; c = await reader.next()) {
          const down = files.Download!.responseDeserialize(files.Download!.responseSerialize(c.message)) as { chunk: Buffer };
          expect(Buffer.compare(down.chunk, c.data)).toBe(0);
          got.push(Buffer.from(c.data));
          c.release();
        }
      } finally {
        await reader.close();
        await direct!.close();
        await fh.close();
      }
      return Buffer.concat(got);
    };
    const [fromStart, fromOffset, again] = await Promise.all([readAll(0), readAll(1000), readAll(0)]);
    expect(fromStart.equals(content)).toBe(true);
    expect(fromOffset.equals(content.subarray(1000))).toBe(true);
    expect(again.equals(content)).toBe(true);
  });

  test("openDirect: only for transfers of DIRECT_IO_MIN_BYTES or more, not with PINCER_DIRECT_IO=0, and always the same file", async () => {
    const path = join(dir, "flag");
    writeFileSync(path, "x");
    const fh = await open(path, "r");
    try {
      expect(await openDirect(fh, constants.O_RDONLY, DIRECT_IO_MIN_BYTES - 1)).toBeUndefined();
      process.env.PINCER_DIRECT_IO = "0";
      try {
        expect(await openDirect(fh, constants.O_RDONLY, DIRECT_IO_MIN_BYTES)).toBeUndefined();
      } finally {
        delete process.env.PINCER_DIRECT_IO;
      }
      // Replaced by another file after it was opened: the direct descriptor is still the first file.
      renameSync(path, `${path}.old`);
      writeFileSync(path, "y");
      const direct = await openDirect(fh, constants.O_RDONLY, DIRECT_IO_MIN_BYTES);
      expect(direct).toBeDefined();
      expect((await direct!.stat()).ino).toBe((await fh.stat()).ino);
      expect((await direct!.stat()).ino).not.toBe(statSync(path).ino);
      await direct!.close();
    } finally {
      await fh.close();
    }
  });
});
