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
    const t = startThread({ blockBytes: 65536, alignment: 1 });
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
});
