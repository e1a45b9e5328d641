import { createHash, randomBytes } from "node:crypto";
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, describe, expect, test } from "vitest";
import type { Op, Reply, Requests, Results, WriterConfig } from "../../../packages/shared/src/blockWriterMessages.js";

const dir = mkdtempSync(join(tmpdir(), "pincer-blockwriter-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const O_DIRECT = (constants as { O_DIRECT?: number }).O_DIRECT;

/** A new file in `dir` and a second descriptor on it opened with O_DIRECT (-1 where refused). */
function openPair(name: string): { path: string; fd: number; direct: number } {
  const path = join(dir, name);
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    return { path, fd, direct: openSync(`/proc/self/fd/${fd}`, constants.O_WRONLY | O_DIRECT!) };
  } catch {
    return { path, fd, direct: -1 };
  }
}

/** Whether this file system takes O_DIRECT (tmpfs does not). */
const directWorks = (() => {
  if (O_DIRECT === undefined) return false;
  const { fd, direct } = openPair("probe");
  closeSync(fd);
  if (direct >= 0) closeSync(direct);
  return direct >= 0;
})();

/** The writer thread's code straight from the sources, driven through its messages. */
function startThread(config: WriterConfig) {
  const worker = new Worker(new URL("../../../packages/shared/src/blockWriterWorker.js", import.meta.url), { execArgv: [], workerData: config });
  const waiting = new Map<number, (r: Reply) => void>();
  worker.on("message", (r: Reply) => waiting.get(r.seq)?.(r));
  let seq = 0;
  const request = <O extends Op>(op: O, message: Requests[O], transfer?: ArrayBuffer[]) =>
    new Promise<Results[O]>((resolve, reject) => {
      const s = ++seq;
      waiting.set(s, (r) => (r.error ? reject(Object.assign(new Error(r.error.message), { code: r.error.code })) : resolve(r.result as Results[O])));
      worker.postMessage({ op, seq: s, ...message }, transfer);
    });
  return { request, stop: () => worker.terminate() };
}

describe("block writer thread", () => {
  // Alignment 1: the last block goes to O_DIRECT unpadded, which file systems that enforce
  // alignment (ext4, xfs) refuse with EINVAL; the job must go on buffered and lose nothing.
  test.skipIf(O_DIRECT === undefined)("a direct write refused with EINVAL is written buffered; the bytes and sha256 are exact", async () => {
    const t = startThread({ blockBytes: 65536, alignment: 1, syncBytes: 0 });
    const path = join(dir, "einval.bin");
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    const direct = (() => {
      try {
        return openSync(`/proc/self/fd/${fd}`, constants.O_WRONLY | O_DIRECT!);
      } catch {
        return -1;
      }
    })();
    try {
      const content = randomBytes(3 * 65536 + 3395);
      await t.request("open", { job: 1, fd, direct });
      for (let at = 0; at < content.length; at += 70001) {
        const data = new Uint8Array(content.subarray(at, at + 70001));
        const back = await t.request("data", { job: 1, data }, [data.buffer]);
        // The chunk's memory was moved to the thread and handed back.
        expect(data.byteLength).toBe(0);
        expect(back.data.byteLength).toBe(Math.min(70001, content.length - at));
      }
      const { sha256, padded } = await t.request("finish", { job: 1 });
      expect(padded).toBe(false);
      expect(sha256).toBe(createHash("sha256").update(content).digest("hex"));
      await t.request("drop", { job: 1 });
      expect(readFileSync(path).equals(content)).toBe(true);
      await expect(t.request("finish", { job: 1 })).rejects.toThrow("no such job: 1");
    } finally {
      if (direct >= 0) closeSync(direct);
      closeSync(fd);
      await t.stop();
    }
  });

  // What the flushes along the way are for: an upload's fsync at its end found 256 MiB to flush
  // (200 ms here) when nothing was flushed before.
  test.skipIf(!directWorks)("a job flushes its direct writes to the disk every syncBytes, in the background; the bytes and sha256 are exact", async () => {
    const t = startThread({ blockBytes: 65536, alignment: 4096, syncBytes: 131072 });
    const quiet = startThread({ blockBytes: 65536, alignment: 4096, syncBytes: 0 });
    const content = randomBytes(16 * 65536 + 5000);
    try {
      const flushed: number[] = [];
      for (const [n, thread] of [t, quiet].entries()) {
        const { path, fd, direct } = openPair(`synced-${n}.bin`);
        try {
          await thread.request("open", { job: 1, fd, direct });
          for (let at = 0; at < content.length; at += 50000) {
            const data = new Uint8Array(content.subarray(at, at + 50000));
            await thread.request("data", { job: 1, data }, [data.buffer]);
          }
          const { sha256, padded, flushedBytes } = await thread.request("finish", { job: 1 });
          expect(sha256).toBe(createHash("sha256").update(content).digest("hex"));
          expect(padded).toBe(true);
          flushed.push(flushedBytes);
          await thread.request("drop", { job: 1 });
        } finally {
          closeSync(direct);
          closeSync(fd);
        }
        expect(readFileSync(path).subarray(0, content.length).equals(content)).toBe(true);
      }
      // A flush starts before a block write once 128 KiB more were written: the last one before the
      // partial block at the end, when the 16 whole blocks were written.
      expect(flushed[0]).toBe(16 * 65536);
      expect(flushed[1]).toBe(0);
    } finally {
      await t.stop();
      await quiet.stop();
    }
  });
});
