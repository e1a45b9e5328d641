import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, ftruncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { eventually } from "../fixtures/poll.js";

// A client that stops reading a stream must not make the daemon buffer without limit: the daemon
// holds back the producer (the command's pipes, the file reads) instead. Measured as the daemon's
// resident memory while a fast stream sits unread, and after the call is cancelled.

const BOUND_MIB = 64;

let daemon: RunningDaemon;
let client: grpc.Client;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "pincer-stalled-"));
  daemon = await spawnDaemon();
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  client = new grpc.Client(daemon.address, grpc.credentials.createInsecure());
});

afterAll(async () => {
  client?.close();
  await daemon?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The daemon's resident memory in MiB. */
function rssMiB(): number {
  const kb = /^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${daemon.process.pid}/status`, "utf8"))?.[1];
  return Number(kb) / 1024;
}

/** Protobuf bytes for a length-delimited field (wire type 2) with a short value. */
function field(num: number, value: string): Buffer {
  const bytes = Buffer.from(value);
  return Buffer.concat([Buffer.from([(num << 3) | 2, bytes.length]), bytes]);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Opens a server stream, reads its first message, then stops reading. Samples the daemon's memory
 * for `stallMs`, cancels, and samples again once the daemon has let go of the call.
 */
async function stall(path: string, request: Buffer, stallMs: number): Promise<{ idle: number; peak: number; after: number; firstBytes: number }> {
  await sleep(300);
  const idle = rssMiB();
  const call = client.makeServerStreamRequest(
    path,
    (b: Buffer) => b,
    (b: Buffer) => b,
    request,
    new grpc.Metadata(),
    {},
  ) as grpc.ClientReadableStream<Buffer>;
  call.on("error", () => undefined); // the cancel below ends it with CANCELLED
  const firstBytes = await new Promise<number>((resolve) =>
    call.once("data", (b: Buffer) => {
      call.pause();
      resolve(b.length);
    }),
  );
  let peak = rssMiB();
  for (const until = Date.now() + stallMs; Date.now() < until; ) {
    await sleep(250);
    peak = Math.max(peak, rssMiB());
  }
  call.cancel();
  await sleep(1_500);
  return { idle, peak, after: rssMiB(), firstBytes };
}

test("a command writing fast to a client that stopped reading holds the daemon's memory to a bound", async () => {
  // Process/Start(argv: ["cat", "/dev/zero"]): gigabytes per second if nothing holds it back.
  const m = await stall("/pincer.v1.Process/Start", Buffer.concat([field(1, "cat"), field(1, "/dev/zero")]), 6_000);
  console.log(`stalled Start: daemon RSS idle ${m.idle.toFixed(0)} MiB, peak ${m.peak.toFixed(0)} MiB, after cancel ${m.after.toFixed(0)} MiB`);
  expect(m.firstBytes).toBeGreaterThan(0);
  expect(m.peak - m.idle).toBeLessThan(BOUND_MIB);
  expect(m.after - m.idle).toBeLessThan(BOUND_MIB);
  // The cancel stopped the command.
  await eventually(async () => (await daemon.env.process.list()).length === 0);
  expect(await daemon.env.process.list()).toEqual([]);
  // A client's cancel is not the daemon's fault.
  expect(daemon.log()).not.toMatch(/internal error/);
});

test("a download to a client that stopped reading holds the daemon's memory to a bound", async () => {
  // A 4 GiB sparse file: reads cost no disk, so only flow control can hold the daemon back.
  const file = join(dir, "big.bin");
  const fd = openSync(file, "w");
  ftruncateSync(fd, 4 * 1024 ** 3);
  closeSync(fd);
  const m = await stall("/pincer.v1.Files/Download", field(1, file), 6_000);
  console.log(`stalled Download: daemon RSS idle ${m.idle.toFixed(0)} MiB, peak ${m.peak.toFixed(0)} MiB, after cancel ${m.after.toFixed(0)} MiB`);
  expect(m.firstBytes).toBeGreaterThan(0);
  expect(m.peak - m.idle).toBeLessThan(BOUND_MIB);
  expect(m.after - m.idle).toBeLessThan(BOUND_MIB);
  expect(daemon.log()).not.toMatch(/internal error/);
});
