import { describe, expect, test } from "vitest";
import { callToScreen, resultText } from "../../../packages/controller/src/agents/common.js";
import { computerDisplaySize, DisplayMapping } from "../../../packages/controller/src/agents/computerDisplay.js";
import { planAnthropicComputerAction } from "../../../packages/controller/src/agents/computerCalls.js";
import { openaiKeysToChord, scrollNotches } from "../../../packages/controller/src/agents/openaiComputerUse.js";
import type { Screenshot, StepResult } from "../../../packages/controller/src/index.js";

/** What the runner observes of a 1920×1080 screen: a 1280×720 JPEG, scale 2/3, pointer at (900, 600). */
const shot: Screenshot = {
  data: Buffer.alloc(0),
  format: "jpeg",
  mimeType: "image/jpeg",
  width: 1280,
  height: 720,
  source: { x: 0, y: 0, width: 1920, height: 1080 },
  scale: 1280 / 1920,
  cursor: { x: 900, y: 600 },
  screen: { width: 1920, height: 1080 },
};
const desktopTools = new Set(
  ["click", "double_click", "right_click", "move", "drag", "scroll", "key", "type", "wait", "screenshot"].map((a) => `desktop__${a}`),
);
const plan = (input: unknown, tools = desktopTools) => planAnthropicComputerAction(input, "desktop", shot, tools);

describe("computer-use display sizes", () => {
  test("a screen of a target's aspect ratio scales to it; small screens stay; others fit 1280×800", () => {
    expect(computerDisplaySize({ width: 1920, height: 1080 })).toEqual({ width: 1366, height: 768 });
    expect(computerDisplaySize({ width: 2560, height: 1600 })).toEqual({ width: 1280, height: 800 });
    expect(computerDisplaySize({ width: 1600, height: 1200 })).toEqual({ width: 1024, height: 768 });
    expect(computerDisplaySize({ width: 1280, height: 800 })).toEqual({ width: 1280, height: 800 });
    expect(computerDisplaySize({ width: 3440, height: 1440 })).toEqual({ width: 1280, height: 536 });
    expect(computerDisplaySize({ width: 1920, height: 1080 }, "screen")).toEqual({ width: 1920, height: 1080 });
  });

  test("DisplayMapping maps both ways and keeps points on the screen", () => {
    const m = new DisplayMapping({ width: 1920, height: 1080 }, { width: 1366, height: 768 });
    expect(m.toScreen({ x: 683, y: 384 })).toEqual({ x: 960, y: 540 });
    expect(m.toScreen({ x: 5000, y: -3 })).toEqual({ x: 1919, y: 0 });
    expect(m.fromScreen({ x: 960, y: 540 })).toEqual({ x: 683, y: 384 });
  });
});

describe("Anthropic computer-use actions planned onto the desktop actions", () => {
  test("clicks, moves, drags and scrolls are scaled from the screenshot to the screen", () => {
    expect(plan({ action: "left_click", coordinate: [640, 360] })).toEqual({ calls: [{ tool: "desktop__click", args: { x: 960, y: 540 } }] });
    expect(plan({ action: "right_click", coordinate: [100, 50], text: "shift" })).toEqual({
      calls: [{ tool: "desktop__right_click", args: { x: 150, y: 75, modifiers: ["Shift_L"] } }],
    });
    expect(plan({ action: "double_click" })).toEqual({ calls: [{ tool: "desktop__double_click", args: { x: 900, y: 600 } }] });
    expect(plan({ action: "mouse_move", coordinate: [10, 10] })).toEqual({ calls: [{ tool: "desktop__move", args: { x: 15, y: 15 } }] });
    expect(plan({ action: "left_click_drag", start_coordinate: [0, 0], coordinate: [200, 100] })).toEqual({
      calls: [{ tool: "desktop__drag", args: { start_x: 0, start_y: 0, end_x: 300, end_y: 150 } }],
    });
    expect(plan({ action: "scroll", coordinate: [200, 200], scroll_direction: "up", scroll_amount: 5 })).toEqual({
      calls: [{ tool: "desktop__scroll", args: { dx: 0, dy: -5, x: 300, y: 300 } }],
    });
  });

  test("keys (several chords in turn), text, waits; screenshot and cursor_position are answered by the next observation", () => {
    expect(plan({ action: "key", text: "ctrl+a BackSpace" })).toEqual({
      calls: [
        { tool: "desktop__key", args: { keys: "ctrl+a" } },
        { tool: "desktop__key", args: { keys: "BackSpace" } },
      ],
    });
    expect(plan({ action: "type", text: "héllo" })).toEqual({ calls: [{ tool: "desktop__type", args: { text: "héllo" } }] });
    expect(plan({ action: "wait", duration: 2 })).toEqual({ calls: [{ tool: "desktop__wait", args: { seconds: 2 } }] });
    expect(plan({ action: "screenshot" })).toEqual({ calls: [{ tool: "desktop__wait", args: { seconds: 0 } }], answer: "screenshot" });
    expect(plan({ action: "cursor_position" })).toEqual({ calls: [{ tool: "desktop__wait", args: { seconds: 0 } }], answer: "cursor" });
  });

  test("without a computer action, actions the desktop set lacks are errors that say what to use; with one, they are forwarded in screen pixels", () => {
    for (const action of ["middle_click", "triple_click", "left_mouse_down", "left_mouse_up"]) {
      expect(plan({ action })).toMatchObject({ error: expect.stringMatching(/not available on desktop.*no computer action/) });
    }
    const withComputer = new Set([...desktopTools, "desktop__computer"]);
    expect(plan({ action: "triple_click", coordinate: [640, 360] }, withComputer)).toEqual({
      calls: [{ tool: "desktop__computer", args: { action: "triple_click", coordinate: [960, 540] } }],
    });
    expect(plan({ action: "zoom", region: [0, 0, 640, 360] }, withComputer)).toEqual({
      calls: [{ tool: "desktop__computer", args: { action: "zoom", region: [0, 0, 960, 540] } }],
    });
  });

  test("invalid input is an error, not a call", () => {
    expect(plan({ action: "teleport" })).toMatchObject({ error: expect.stringMatching(/invalid computer action/) });
    expect(plan({ action: "left_click", text: "notakey" })).toMatchObject({ error: expect.stringMatching(/unknown key name/) });
  });
});

describe("coordinates of the standard tools", () => {
  test("pointer tool arguments go from screenshot to screen pixels; other tools pass unchanged", () => {
    const shots = { desktop: shot };
    expect(callToScreen("desktop__click", { x: 640, y: 360 }, shots)).toEqual({ x: 960, y: 540 });
    expect(callToScreen("desktop__drag", { start_x: 2, start_y: 2, end_x: 4, end_y: 4 }, shots)).toEqual({ start_x: 3, start_y: 3, end_x: 6, end_y: 6 });
    expect(callToScreen("desktop__type", { text: "x" }, shots)).toEqual({ text: "x" });
    expect(callToScreen("server__click", { x: 1, y: 1 }, shots)).toEqual({ x: 1, y: 1 });
  });

  test("results read by the model: pointer positions in screenshot pixels, errors with their type", () => {
    const base = { step: 1, env: "desktop", action: "click", evaluation: {} as never, terminated: false, truncated: false, reason: null, durationMs: 1 };
    expect(resultText({ ...base, tool: "desktop__click", ok: true, result: { x: 960, y: 540 } }, shot)).toBe('ok: {"x":640,"y":360}');
    expect(resultText({ ...base, tool: "desktop__key", ok: true, result: undefined } as StepResult)).toBe("ok");
    expect(resultText({ ...base, tool: "desktop__click", ok: false, error: { type: "ActionArgumentsError", message: "click: invalid arguments" } })).toBe(
      "error (ActionArgumentsError): click: invalid arguments",
    );
  });
});

describe("OpenAI computer-use vocabulary helpers", () => {
  test("key names and scroll distances", () => {
    expect(openaiKeysToChord(["CTRL", "A"])).toBe("CTRL+a");
    expect(openaiKeysToChord(["A"])).toBe("A");
    expect(openaiKeysToChord(["ENTER"])).toBe("ENTER");
    expect([scrollNotches(0), scrollNotches(30), scrollNotches(-250), scrollNotches(undefined)]).toEqual([0, 1, -3, 0]);
  });
});
