import { randomFillSync } from "node:crypto";
import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { eventually } from "../fixtures/poll.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

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
