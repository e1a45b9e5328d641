import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createComputerAction, type ComputerActionResult } from "@pincer/controller/agents";
import { DisplayMapping } from "../../packages/controller/src/agents/computerDisplay.js";
import type { Point, Screenshot } from "@pincer/controller";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { openWitnessWindow, type WitnessWindow, type XEventRecord } from "../fixtures/xwitness.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

// A 1920×1080 screen: computer-use models see it as 1366×768 (FWXGA), so every coordinate is scaled.
const SHIFT = 1;
const CONTROL = 4;
const WINDOW = { x: 480, y: 270, width: 960, height: 540, color: 0x00ff00 };

let xs: XServer;
let daemon: RunningDaemon;
let w: WitnessWindow;
const mapping = new DisplayMapping({ width: 1920, height: 1080 }, { width: 1366, height: 768 });
const anthropic = createComputerAction({ vocabulary: "anthropic" });
const openai = createComputerAction({ vocabulary: "openai" });

beforeAll(async () => {
  xs = await startXvfb({ width: 1920, height: 1080 });
  daemon = await spawnDaemon({ display: xs.display });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  w = await openWitnessWindow(xs.display, WINDOW);
});

afterAll(async () => {
  w?.close();
  await daemon?.close();
  await xs?.close();
});

const since = (from: number) => w.events.slice(from);
const presses = (from: number) => since(from).filter((e) => e.name === "ButtonPress");
const screen = (x: number, y: number): Point => mapping.toScreen({ x, y });
const claude = (input: Record<string, unknown>) => anthropic.call(input, { env: daemon.env }) as Promise<ComputerActionResult>;
const gpt = (input: Record<string, unknown>) => openai.call(input, { env: daemon.env }) as Promise<ComputerActionResult>;

/** Runs `act` and waits until the witness saw `n` events named `name` after it started. */
async function seen(act: () => Promise<unknown>, name: XEventRecord["name"], n = 1): Promise<XEventRecord[]> {
  const from = w.events.length;
  await act();
  await w.waitFor(() => since(from).filter((e) => e.name === name).length >= n);
  return since(from);
}

async function rgbAt(shot: Screenshot, p: Point): Promise<[number, number, number]> {
  const { data, info } = await sharp(shot.data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (p.y * info.width + p.x) * 3;
  return [data[i]!, data[i + 1]!, data[i + 2]!];
}

describe("Anthropic's computer-use vocabulary on a real X server (1920×1080 seen as 1366×768)", () => {
  test("the display for this screen is 1366×768 (auto)", async () => {
    const m = await DisplayMapping.forEnv(daemon.env);
    expect(m.screen).toEqual({ width: 1920, height: 1080 });
    expect(m.display).toEqual({ width: 1366, height: 768 });
    expect(screen(683, 384)).toEqual({ x: 960, y: 540 });
  });

  test("left_click, right_click, middle_click land where the scaled coordinate says", async () => {
    for (const [action, button] of [
      ["left_click", 1],
      ["right_click", 3],
      ["middle_click", 2],
    ] as const) {
      const ev = await seen(() => claude({ action, coordinate: [500, 300] }), "ButtonRelease");
      const press = ev.find((e) => e.name === "ButtonPress")!;
      expect(press).toMatchObject({ detail: button, ...{ rootX: screen(500, 300).x, rootY: screen(500, 300).y } });
      // 500 × 1920/1366 ≈ 703, 300 × 1080/768 ≈ 422: the model's pixel, not the screen's.
      expect(press.rootX).toBe(703);
      expect(press.rootY).toBe(422);
    }
  });

  test("double_click and triple_click press two and three times; text holds modifiers", async () => {
    let from = w.events.length;
    await seen(() => claude({ action: "double_click", coordinate: [600, 400] }), "ButtonRelease", 2);
    expect(presses(from).map((e) => [e.detail, e.rootX, e.rootY])).toEqual([
      [1, 843, 563],
      [1, 843, 563],
    ]);
    from = w.events.length;
    await seen(() => claude({ action: "triple_click", coordinate: [610, 400] }), "ButtonRelease", 3);
    expect(presses(from)).toHaveLength(3);
    const ev = await seen(() => claude({ action: "left_click", coordinate: [620, 410], text: "shift" }), "ButtonRelease");
    expect(ev.find((e) => e.name === "ButtonPress")!.state & SHIFT).toBe(SHIFT);
  });

  test("mouse_move, left_mouse_down/up and cursor_position", async () => {
    await claude({ action: "mouse_move", coordinate: [700, 450] });
    expect(await claude({ action: "cursor_position" })).toEqual({ x: 700, y: 450 });
    const down = await seen(() => claude({ action: "left_mouse_down" }), "ButtonPress");
    expect(down.find((e) => e.name === "ButtonPress")).toMatchObject({ detail: 1, rootX: screen(700, 450).x, rootY: screen(700, 450).y });
    const up = await seen(() => claude({ action: "left_mouse_up", coordinate: [720, 460] }), "ButtonRelease");
    expect(up.find((e) => e.name === "ButtonRelease")).toMatchObject({ detail: 1, rootX: screen(720, 460).x, rootY: screen(720, 460).y });
  });

  test("left_click_drag presses at start_coordinate and releases at coordinate", async () => {
    const ev = await seen(() => claude({ action: "left_click_drag", start_coordinate: [400, 250], coordinate: [900, 500] }), "ButtonRelease");
    expect(ev.find((e) => e.name === "ButtonPress")).toMatchObject({ detail: 1, rootX: screen(400, 250).x, rootY: screen(400, 250).y });
    expect(ev.find((e) => e.name === "ButtonRelease")).toMatchObject({ detail: 1, rootX: screen(900, 500).x, rootY: screen(900, 500).y });
  });

  test("scroll turns the wheel at the coordinate, in the direction and amount asked", async () => {
    const from = w.events.length;
    await seen(() => claude({ action: "scroll", coordinate: [500, 350], scroll_direction: "down", scroll_amount: 2 }), "ButtonRelease", 2);
    await seen(() => claude({ action: "scroll", scroll_direction: "left", scroll_amount: 1 }), "ButtonRelease");
    expect(presses(from).map((e) => e.detail)).toEqual([5, 5, 6]);
    expect(presses(from)[0]).toMatchObject({ rootX: screen(500, 350).x, rootY: screen(500, 350).y });
  });

  test("key (xdotool chords, several in turn), type, hold_key and wait", async () => {
    await claude({ action: "mouse_move", coordinate: [683, 384] });
    let ev = await seen(() => claude({ action: "key", text: "ctrl+a Return" }), "KeyRelease", 3);
    const keyPresses = ev.filter((e) => e.name === "KeyPress");
    expect(keyPresses).toHaveLength(3);
    expect(keyPresses[1]!.state & CONTROL).toBe(CONTROL);
    expect(keyPresses[2]!.state & CONTROL).toBe(0);
    ev = await seen(() => claude({ action: "type", text: "hi" }), "KeyRelease", 2);
    expect(ev.filter((e) => e.name === "KeyPress").length).toBeGreaterThanOrEqual(2);
    const t0 = Date.now();
    const from = w.events.length;
    await claude({ action: "hold_key", text: "shift", duration: 0.3 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    await w.waitFor(() => since(from).some((e) => e.name === "KeyRelease"));
    expect(since(from).map((e) => e.name)).toEqual(["KeyPress", "KeyRelease"]);
    const t1 = Date.now();
    await claude({ action: "wait", duration: 0.2 });
    expect(Date.now() - t1).toBeGreaterThanOrEqual(190);
  });

  test("screenshot comes at the display size and shows the window where the display coordinates say", async () => {
    const shot = (await claude({ action: "screenshot" })) as Screenshot;
    expect(shot.mimeType).toBe("image/png");
    expect(Math.abs(shot.width - 1366)).toBeLessThanOrEqual(1);
    expect(shot.height).toBe(768);
    // The window spans screen x 480..1439, display x ≈ 341..1023.
    expect(await rgbAt(shot, { x: 683, y: 384 })).toEqual([0, 255, 0]);
    expect(await rgbAt(shot, { x: 335, y: 384 })).toEqual([0, 0, 0]);
    expect(await rgbAt(shot, { x: 348, y: 384 })).toEqual([0, 255, 0]);
  });

  test("zoom returns the region at screen resolution", async () => {
    // The window's top-left corner: display (341.3, 192) → a region across it.
    const shot = (await claude({ action: "zoom", region: [300, 150, 400, 250] })) as Screenshot;
    expect(shot.source).toEqual({
      x: screen(300, 150).x,
      y: screen(300, 150).y,
      width: screen(400, 250).x - screen(300, 150).x,
      height: screen(400, 250).y - screen(300, 150).y,
    });
    expect(shot.scale).toBe(1);
    expect(await rgbAt(shot, { x: 5, y: 5 })).toEqual([0, 0, 0]);
    expect(await rgbAt(shot, { x: shot.width - 5, y: shot.height - 5 })).toEqual([0, 255, 0]);
  });

  test("invalid input is an argument error; nothing runs", async () => {
    const from = w.events.length;
    await expect(claude({ action: "left_click_drag", coordinate: [1, 1] })).rejects.toThrow(/start_coordinate/);
    await expect(claude({ action: "fly" })).rejects.toThrow(/invalid arguments/);
    expect(since(from)).toEqual([]);
  });
});

describe("OpenAI's computer-use vocabulary on the same screen", () => {
  test("click with left, right and wheel buttons; double_click", async () => {
    for (const [button, detail] of [
      ["left", 1],
      ["right", 3],
      ["wheel", 2],
    ] as const) {
      const ev = await seen(() => gpt({ type: "click", x: 500, y: 300, button }), "ButtonRelease");
      expect(ev.find((e) => e.name === "ButtonPress")).toMatchObject({ detail, rootX: 703, rootY: 422 });
    }
    const from = w.events.length;
    await seen(() => gpt({ type: "double_click", x: 650, y: 420 }), "ButtonRelease", 2);
    expect(presses(from).map((e) => [e.rootX, e.rootY])).toEqual([
      [screen(650, 420).x, screen(650, 420).y],
      [screen(650, 420).x, screen(650, 420).y],
    ]);
  });

  test("drag along a path, move, scroll in pixels", async () => {
    const ev = await seen(
      () =>
        gpt({
          type: "drag",
          path: [
            { x: 400, y: 250 },
            { x: 600, y: 300 },
            { x: 800, y: 450 },
          ],
        }),
      "ButtonRelease",
    );
    expect(ev.find((e) => e.name === "ButtonPress")).toMatchObject({ rootX: screen(400, 250).x, rootY: screen(400, 250).y });
    expect(ev.find((e) => e.name === "ButtonRelease")).toMatchObject({ rootX: screen(800, 450).x, rootY: screen(800, 450).y });
    await gpt({ type: "move", x: 555, y: 333 });
    expect(await daemon.env.mouse.position()).toEqual(screen(555, 333));
    const from = w.events.length;
    // 300 px down = 3 notches; 100 px up = 1 notch.
    await seen(() => gpt({ type: "scroll", x: 500, y: 350, scroll_x: 0, scroll_y: 300 }), "ButtonRelease", 3);
    await seen(() => gpt({ type: "scroll", x: 500, y: 350, scroll_x: 0, scroll_y: -100 }), "ButtonRelease");
    expect(presses(from).map((e) => e.detail)).toEqual([5, 5, 5, 4]);
    expect(presses(from)[0]).toMatchObject({ rootX: screen(500, 350).x, rootY: screen(500, 350).y });
  });

  test("keypress (CTRL+A is ctrl+a), type, wait, screenshot", async () => {
    await gpt({ type: "move", x: 683, y: 384 });
    let ev = await seen(() => gpt({ type: "keypress", keys: ["CTRL", "A"] }), "KeyRelease", 2);
    const keys = ev.filter((e) => e.name === "KeyPress");
    expect(keys).toHaveLength(2);
    expect(keys[1]!.state & (CONTROL | SHIFT)).toBe(CONTROL);
    ev = await seen(() => gpt({ type: "type", text: "ok" }), "KeyRelease", 2);
    expect(ev.filter((e) => e.name === "KeyPress").length).toBeGreaterThanOrEqual(2);
    const t0 = Date.now();
    await gpt({ type: "wait", ms: 150 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    const shot = (await gpt({ type: "screenshot" })) as Screenshot;
    expect(shot.height).toBe(768);
    expect(await rgbAt(shot, { x: 683, y: 384 })).toEqual([0, 255, 0]);
  });
});
