import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DRIVERS, spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { openWitnessWindow, type WitnessWindow } from "../fixtures/xwitness.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

const SHIFT = 1;
const CONTROL = 4;
const ALT = 8;

let xs: XServer;
let daemon: RunningDaemon;
let w: WitnessWindow;

beforeAll(async () => {
  xs = await startXvfb({ width: 1280, height: 800 });
  daemon = await spawnDaemon({ display: xs.display });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  w = await openWitnessWindow(xs.display, { x: 100, y: 100, width: 400, height: 300, color: 0x00ff00 });
});

afterAll(async () => {
  w?.close();
  await daemon?.close();
  await xs?.close();
});

/** Events recorded after `from`, for one test's own actions. */
const since = (from: number) => w.events.slice(from);

describe("Input on a real X server, seen by an independent X client", () => {
  test(`the daemon runs the ${DRIVERS} drivers`, async () => {
    const { drivers } = await daemon.env.system.info();
    expect(drivers).toEqual(
      DRIVERS === "native"
        ? { set: "native", input: "xtest", screen: "mit-shm", windows: "x11", clipboard: "x11", processes: "pincer-spawner" }
        : { set: "portable", input: "nut-js", screen: "nut-js", windows: "x11", clipboard: "x11", processes: "execa" },
    );
  });

  test("move puts the pointer where asked and reports it", async () => {
    const cursor = await daemon.env.mouse.move({ x: 321, y: 123 });
    expect(cursor).toEqual({ x: 321, y: 123 });
    expect(await daemon.env.mouse.position()).toEqual({ x: 321, y: 123 });
  });

  test("a left click lands at the requested point", async () => {
    const from = w.events.length;
    await daemon.env.mouse.click({ at: { x: 150, y: 160 } });
    await w.waitFor(() => since(from).some((e) => e.name === "ButtonRelease"));
    const press = since(from).find((e) => e.name === "ButtonPress")!;
    expect(press).toMatchObject({ detail: 1, rootX: 150, rootY: 160, x: 50, y: 60 });
  });

  test("right and middle buttons, and a double click as two presses", async () => {
    let from = w.events.length;
    await daemon.env.mouse.click({ at: { x: 200, y: 200 }, button: "right" });
    await w.waitFor(() => since(from).some((e) => e.name === "ButtonRelease"));
    expect(since(from).find((e) => e.name === "ButtonPress")!.detail).toBe(3);

    from = w.events.length;
    await daemon.env.mouse.click({ at: { x: 210, y: 200 }, button: "middle" });
    await w.waitFor(() => since(from).some((e) => e.name === "ButtonRelease"));
    expect(since(from).find((e) => e.name === "ButtonPress")!.detail).toBe(2);

    from = w.events.length;
    await daemon.env.mouse.click({ at: { x: 220, y: 210 }, count: 2 });
    await w.waitFor(() => since(from).filter((e) => e.name === "ButtonRelease").length === 2);
    const presses = since(from).filter((e) => e.name === "ButtonPress");
    expect(presses.map((e) => [e.detail, e.rootX, e.rootY])).toEqual([
      [1, 220, 210],
      [1, 220, 210],
    ]);
  });

  test("modifiers are held during the click", async () => {
    const from = w.events.length;
    await daemon.env.mouse.click({ at: { x: 300, y: 300 }, modifiers: ["ctrl", "shift"] });
    await w.waitFor(() => since(from).some((e) => e.name === "ButtonRelease"));
    const press = since(from).find((e) => e.name === "ButtonPress")!;
    expect(press.state & CONTROL).toBe(CONTROL);
    expect(press.state & SHIFT).toBe(SHIFT);
    // And released afterwards: a plain click now carries no modifier.
    const after = w.events.length;
    await daemon.env.mouse.click({ at: { x: 301, y: 300 } });
    await w.waitFor(() => since(after).some((e) => e.name === "ButtonRelease"));
    expect(since(after).find((e) => e.name === "ButtonPress")!.state & (CONTROL | SHIFT)).toBe(0);
  });

  test("scroll sends wheel buttons at the requested point: down 5, up 4, right 7", async () => {
    const from = w.events.length;
    await daemon.env.mouse.scroll({ dy: 3, at: { x: 250, y: 250 } });
    await daemon.env.mouse.scroll({ dy: -2 });
    await daemon.env.mouse.scroll({ dx: 1 });
    await w.waitFor(() => since(from).filter((e) => e.name === "ButtonRelease").length === 6);
    const presses = since(from).filter((e) => e.name === "ButtonPress");
    expect(presses.map((e) => e.detail)).toEqual([5, 5, 5, 4, 4, 7]);
    expect(presses[0]).toMatchObject({ rootX: 250, rootY: 250 });
  });

  test("drag presses at the first point and releases at the last", async () => {
    const from = w.events.length;
    await daemon.env.mouse.drag(
      [
        { x: 120, y: 120 },
        { x: 200, y: 180 },
        { x: 350, y: 300 },
      ],
      { stepDelayMs: 5 },
    );
    await w.waitFor(() => since(from).some((e) => e.name === "ButtonRelease"));
    expect(since(from).find((e) => e.name === "ButtonPress")).toMatchObject({ detail: 1, rootX: 120, rootY: 120 });
    expect(since(from).find((e) => e.name === "ButtonRelease")).toMatchObject({ detail: 1, rootX: 350, rootY: 300 });
  });

  test("button down and up are separate events", async () => {
    const from = w.events.length;
    await daemon.env.mouse.down("left", { at: { x: 400, y: 350 } });
    await w.waitFor(() => since(from).some((e) => e.name === "ButtonPress"));
    expect(since(from).some((e) => e.name === "ButtonRelease")).toBe(false);
    await daemon.env.mouse.up("left", { at: { x: 410, y: 360 } });
    await w.waitFor(() => since(from).some((e) => e.name === "ButtonRelease"));
    expect(since(from).find((e) => e.name === "ButtonRelease")).toMatchObject({ rootX: 410, rootY: 360 });
  });

  test("a chord holds its modifiers while the last key is pressed", async () => {
    await daemon.env.mouse.move({ x: 300, y: 200 });
    const from = w.events.length;
    await daemon.env.keyboard.press("ctrl+alt+t");
    await w.waitFor(() => since(from).filter((e) => e.name === "KeyRelease").length === 3);
    const presses = since(from).filter((e) => e.name === "KeyPress");
    expect(presses).toHaveLength(3);
    expect(presses[2]!.state & (CONTROL | ALT)).toBe(CONTROL | ALT);
    // Releases come in reverse order: t first, ctrl last.
    const releases = since(from)
      .filter((e) => e.name === "KeyRelease")
      .map((e) => e.detail);
    expect(releases).toEqual(presses.map((e) => e.detail).reverse());
  });

  test("agent key names resolve: enter, esc, ArrowLeft, PAGEDOWN, cmd, F5", async () => {
    for (const key of ["enter", "esc", "ArrowLeft", "PAGEDOWN", "F5", "Return", "super"]) {
      const from = w.events.length;
      await daemon.env.keyboard.press(key);
      await w.waitFor(() => since(from).some((e) => e.name === "KeyRelease"));
    }
  });

  test("key down holds a key until key up", async () => {
    const from = w.events.length;
    await daemon.env.keyboard.down("shift");
    await daemon.env.mouse.click({ at: { x: 330, y: 330 } });
    await daemon.env.keyboard.up("shift");
    await w.waitFor(() => since(from).some((e) => e.name === "ButtonRelease") && since(from).some((e) => e.name === "KeyRelease"));
    expect(since(from).find((e) => e.name === "ButtonPress")!.state & SHIFT).toBe(SHIFT);
  });
});
