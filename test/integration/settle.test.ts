import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { InvalidArgumentError } from "@pincer/controller";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { openWitnessWindow, type WitnessWindow } from "../fixtures/xwitness.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

let xs: XServer;
let daemon: RunningDaemon;

beforeAll(async () => {
  xs = await startXvfb({ width: 1280, height: 800 });
  daemon = await spawnDaemon({ display: xs.display });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  await daemon.env.mouse.move({ x: 1270, y: 790 });
});

afterAll(async () => {
  await daemon?.close();
  await xs?.close();
});

const later = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Opens a window at `at` after `ms`; the promise gives the window to close. */
function windowAfter(ms: number, at: { x: number; y: number }, color = 0x00ff00): Promise<WitnessWindow> {
  return later(ms).then(() => openWitnessWindow(xs.display, { ...at, width: 120, height: 80, color }));
}

describe("waiting for the screen to settle, on a real X screen", () => {
  test("a still screen settles after the quiet time, with nothing changed", async () => {
    const r = await daemon.env.screen.waitForSettle({ quietMs: 200, maxMs: 3000 });
    expect(r).toMatchObject({ settled: true, changes: 0, lastChangeMs: 0 });
    expect(r.waitedMs).toBeGreaterThanOrEqual(200);
    expect(r.waitedMs).toBeLessThan(3000);
    expect(r.frames).toBeGreaterThan(1);
    expect(r.changed).toBeUndefined();
  });

  test("a window drawn during the wait is seen: the wait ends a quiet time after it, and says where it changed", async () => {
    // The daemon counts from when its wait began, which a loaded machine delays past the test's
    // clock. Bound it by what the test sees: the window cannot be seen before it is asked for, and
    // the wait began at least waitedMs before the call returned.
    // 1 s: the daemon's wait has taken its first frame by then, even on a loaded machine.
    let askedAt = 0;
    const opening = later(1000).then(() => {
      askedAt = performance.now();
      return openWitnessWindow(xs.display, { x: 300, y: 200, width: 120, height: 80, color: 0x00ff00 });
    });
    const r = await daemon.env.screen.waitForSettle({ quietMs: 250, initialQuietMs: 2500, maxMs: 5000 });
    const returnedAt = performance.now();
    (await opening).close();
    expect(r.settled).toBe(true);
    expect(r.changes).toBeGreaterThanOrEqual(1);
    expect(askedAt).toBeGreaterThan(0);
    // The daemon stamps a frame when its capture begins, a moment before X takes the request: 50 ms
    // covers that moment and the rounding.
    expect(r.lastChangeMs).toBeGreaterThanOrEqual(askedAt - (returnedAt - r.waitedMs) - 50);
    expect(r.lastChangeMs).toBeGreaterThan(0);
    expect(r.waitedMs).toBeGreaterThanOrEqual(r.lastChangeMs + 250);
    expect(r.changed).toEqual({ x: 300, y: 200, width: 120, height: 80 });
    await daemon.env.screen.waitForSettle({ quietMs: 200 });
  });

  test("with a short initial quiet time the same late window is missed: the wait ended before it was drawn", async () => {
    // 2 s leaves a loaded machine time to finish a 150 ms quiet wait before the window comes.
    const opening = windowAfter(2000, { x: 500, y: 300 });
    const r = await daemon.env.screen.waitForSettle({ quietMs: 150, maxMs: 5000 });
    (await opening).close();
    expect(r).toMatchObject({ settled: true, changes: 0 });
    expect(r.waitedMs).toBeLessThan(2000);
    await daemon.env.screen.waitForSettle({ quietMs: 200 });
  });

  test("a screen that keeps changing is not settled: the wait ends at maxMs and counts the changes", async () => {
    // One window that takes a new colour every 50 ms: one X client, and requests sent without
    // waiting for the X server, so a loaded machine delays the changes little (a new window per
    // change took round trips each, and under a CPU load of three times the cores left the screen
    // still for a second). No two colours in a row are the same, so no frame rate can miss a change.
    const w = await openWitnessWindow(xs.display, { x: 700, y: 500, width: 50, height: 50, color: 0x0000ff });
    let n = 0;
    const timer = setInterval(() => w.setColor((++n * 0x3d1f5b) & 0xffffff), 50);
    try {
      const r = await daemon.env.screen.waitForSettle({ quietMs: 1000, maxMs: 3000 });
      expect(r.settled).toBe(false);
      expect(r.waitedMs).toBeGreaterThanOrEqual(3000);
      expect(r.changes).toBeGreaterThanOrEqual(3);
      expect(r.changed).toEqual({ x: 700, y: 500, width: 50, height: 50 });
      // A region away from the flicker settles while it goes on.
      const calm = await daemon.env.screen.waitForSettle({ region: { x: 0, y: 0, width: 600, height: 400 }, quietMs: 300, maxMs: 5000 });
      expect(calm).toMatchObject({ settled: true, changes: 0 });
    } finally {
      clearInterval(timer);
      w.close();
    }
  });

  test("since the last wait: a change drawn between two waits counts, so the initial quiet time does not apply", async () => {
    await daemon.env.screen.waitForSettle({ quietMs: 100 });
    const w = await openWitnessWindow(xs.display, { x: 40, y: 40, width: 30, height: 20, color: 0xffff00 });
    await later(200);
    const r = await daemon.env.screen.waitForSettle({ quietMs: 200, initialQuietMs: 3000, maxMs: 6000, sinceLastWait: true });
    expect(r).toMatchObject({ settled: true, changes: 1, lastChangeMs: 0, changed: { x: 40, y: 40, width: 30, height: 20 } });
    expect(r.waitedMs).toBeLessThan(3000);
    // Without the option, the window already drawn is not a change: the initial quiet time applies.
    // The screen is let settle after the window closes, so that its repaint does not fall in the wait.
    w.close();
    await daemon.env.screen.waitForSettle({ quietMs: 300 });
    const plain = await daemon.env.screen.waitForSettle({ quietMs: 200, initialQuietMs: 3000, maxMs: 6000 });
    expect(plain).toMatchObject({ settled: true, changes: 0 });
    expect(plain.waitedMs).toBeGreaterThanOrEqual(3000);
  });

  test("a one-pixel change counts: frames are compared at full resolution", async () => {
    const opening = later(1000).then(() => openWitnessWindow(xs.display, { x: 901, y: 601, width: 1, height: 1, color: 0xffffff }));
    const r = await daemon.env.screen.waitForSettle({ quietMs: 200, initialQuietMs: 3000, maxMs: 5000 });
    (await opening).close();
    expect(r.changed).toEqual({ x: 901, y: 601, width: 1, height: 1 });
  });

  test("bad arguments are refused with the field named, and a cancelled wait ends at once", async () => {
    await expect(daemon.env.screen.waitForSettle({ quietMs: 5000, maxMs: 1000 })).rejects.toThrow(InvalidArgumentError);
    await expect(daemon.env.screen.waitForSettle({ quietMs: 5000, maxMs: 1000 })).rejects.toThrow(/quiet_ms/);
    await expect(daemon.env.screen.waitForSettle({ region: { x: 1200, y: 0, width: 200, height: 10 } })).rejects.toThrow(/not inside/);
    const ac = new AbortController();
    const t0 = Date.now();
    const waiting = daemon.env.screen.waitForSettle({ quietMs: 20_000, maxMs: 30_000, signal: ac.signal });
    setTimeout(() => ac.abort(), 200);
    await expect(waiting).rejects.toThrow();
    expect(Date.now() - t0).toBeLessThan(10_000);
    // The daemon is free again: the next call answers.
    expect((await daemon.env.screen.waitForSettle({ quietMs: 50 })).settled).toBe(true);
  });
});
