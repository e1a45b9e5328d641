import { randomFillSync } from "node:crypto";
import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { eventually } from "../fixtures/poll.js";
import { procStat } from "../fixtures/processes.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

// Transfers keep their buffers on glibc's heap (native/memory.c raises the mmap threshold) and the
// daemon trims the heap when it goes quiet.
//
// Once the daemon goes quiet after work that took memory, it lets go of the screen capture's
// shared segment (and the copy of it the x11 package keeps, the screen's size), and the next
// screenshot attaches a new one. The segment is an unlinked /dev/shm file the daemon holds open.

let xs: XServer;
let daemon: RunningDaemon;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "pincer-idle-memory-"));
  xs = await startXvfb({ width: 1280, height: 800 });
  daemon = await spawnDaemon({ display: xs.display });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
});

afterAll(async () => {
  await daemon?.close();
  await xs?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** How many MIT-SHM segments (x11's unlinked /dev/shm files) the daemon holds open. */
function segments(): number {
  const fds = `/proc/${daemon.process.pid}/fd`;
  let n = 0;
  for (const fd of readdirSync(fds)) {
    try {
      if (readlinkSync(join(fds, fd)).startsWith("/dev/shm/node-x11-shm-")) n += 1;
    } catch {
      // closed while read
    }
  }
  return n;
}

test("a quiet daemon lets go of the capture segment; the next screenshot attaches a new one", async () => {
  const shot = await daemon.env.screen.screenshot({ format: "png" });
  expect(shot.width).toBe(1280);
  expect(segments()).toBe(1);
  // Work that takes memory: a 64 MiB upload and back, then quiet.
  const src = join(dir, "src.bin");
  writeFileSync(src, randomFillSync(Buffer.alloc(64 << 20)));
  await daemon.env.files.upload(src, join(dir, "up.bin"));
  await daemon.env.files.download(join(dir, "up.bin"), join(dir, "down.bin"));
  expect(await eventually(() => segments() === 0, 20_000)).toBe(true);
  const again = await daemon.env.screen.screenshot({ format: "png" });
  expect([again.width, again.height]).toEqual([1280, 800]);
  expect(segments()).toBe(1);
}, 60_000);

const MiB = 1024 * 1024;

const minorFaults = () => procStat(daemon.process.pid!, 10);

test("an upload reuses the daemon's heap instead of mapping new pages for every read", async () => {
  const src = join(dir, "faults.bin");
  writeFileSync(src, randomFillSync(Buffer.alloc(128 * MiB)));
  await daemon.env.files.upload(src, join(dir, "faults-1.bin"));
  const before = minorFaults();
  await daemon.env.files.upload(src, join(dir, "faults-2.bin"));
  const perMiB = (minorFaults() - before) / 128;
  // With each 64 KiB socket read and each 1 MiB message a mapping of its own, about 470 pages
  // per MiB were faulted in (and zeroed); on the heap, a few dozen.
  expect(perMiB).toBeLessThan(200);
}, 60_000);

test("memory the transfers took on the heap goes back once the daemon is quiet", async () => {
  // A daemon of its own, so that its quiet figure is that of a daemon which has not worked yet.
  const own = await spawnDaemon({ display: xs.display });
  try {
    const env = own.env;
    await env.waitUntilReady({ timeoutMs: 20_000 });
    const rss = () => (procStat(own.process.pid!, 24) * 4096) / MiB;
    const src = join(dir, "trim.bin");
    writeFileSync(src, randomFillSync(Buffer.alloc(128 * MiB)));
    await env.screen.screenshot({ format: "png" });
    await env.process.run(["true"]);
    await new Promise((r) => setTimeout(r, 2000));
    const quiet = rss();
    // A mixed load: screenshots and commands leave long-lived allocations between the transfers'
    // freed buffers, so free() alone gives back little of the heap.
    for (let i = 0; i < 3; i++) {
      for (let k = 0; k < 8; k++) await env.screen.screenshot({ format: k % 2 ? "png" : "jpeg" });
      for (let k = 0; k < 20; k++) await env.process.run(["true"]);
      await env.files.upload(src, join(dir, "trim-up.bin"), { overwrite: true });
      await env.files.download(join(dir, "trim-up.bin"), join(dir, `trim-down-${i}.bin`));
    }
    let now = rss();
    const back = await eventually(
      () => {
        now = rss();
        return now <= quiet + 24;
      },
      15_000,
      250,
    );
    expect(back, `${now.toFixed(0)} MiB resident, ${quiet.toFixed(0)} MiB before the load`).toBe(true);
  } finally {
    await own.close();
  }
}, 90_000);
