import { mkdtempSync, rmSync } from "node:fs";
import { get, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startLiveServer, type LiveServer } from "../../packages/controller/src/live/server.js";
import { LiveBoard } from "../../packages/controller/src/runner/liveBoard.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { openWitnessWindow } from "../fixtures/xwitness.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";
import { buildScene } from "../../scripts/bench/scene.js";

// The live page's screen stream from a real daemon on Xvfb, to a viewer that reads slowly while the
// screen keeps changing (large frames: noise): the server waits for the viewer instead of queuing,
// and leaves nothing behind per frame it waited for.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let xs: XServer;
let daemon: RunningDaemon;
let server: LiveServer;
let work: string;
let removeScene: (() => Promise<void>) | undefined;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "pincer-live-server-"));
  xs = await startXvfb({ width: 1280, height: 800 });
  daemon = await spawnDaemon({ display: xs.display });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  // Noise and terminals: frames of it are large (noise does not compress).
  removeScene = await buildScene(xs.display, 1280, 800);
  const board = new LiveBoard({ slots: 1 });
  board.attempt(0, { task: { id: "t", instruction: "", attempt: 1 }, envs: { desktop: daemon.env } });
  server = await startLiveServer({ board, maxFps: 30 });
}, 60_000);

afterAll(async () => {
  await removeScene?.();
  await server?.close();
  await daemon?.close();
  await xs?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the live page's screen stream", () => {
  test("a viewer that reads slowly while the screen keeps changing: frames wait for it, and no listener is left per wait", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on("warning", onWarning);
    // A small window that changes colour every 30 ms: every frame is the whole screen, noise included.
    const blinker = await openWitnessWindow(xs.display, { x: 600, y: 300, width: 80, height: 80, color: 0xff0000 });
    let stopped = false;
    const painter = (async () => {
      for (let i = 0; !stopped; i++) {
        blinker.setColor(i % 2 ? 0xff0000 : 0x0000ff);
        await sleep(30);
      }
    })();
    const res = await new Promise<IncomingMessage>((resolve, reject) => get(`${server.url}api/slots/0/screen/desktop`, resolve).on("error", reject));
    let bytes = 0;
    res.on("data", (d: Buffer) => {
      bytes += d.length;
      // A slow viewer: a pause after each chunk it reads.
      res.pause();
      setTimeout(() => res.resume(), 25);
    });
    try {
      await sleep(8_000);
      expect(res.statusCode).toBe(200);
      // Frames of noise are large: the viewer got several, far fewer than 8 s at 30 a second.
      expect(bytes).toBeGreaterThan(1_000_000);
      expect(warnings.filter((w) => /MaxListenersExceeded/.test(w))).toEqual([]);
    } finally {
      stopped = true;
      await painter;
      blinker.close();
      res.destroy();
      process.off("warning", onWarning);
    }
  }, 60_000);
});
