import { describe, expect, test } from "vitest";
import { ActionArgumentsError, complete, createDesktopActions, createMemoryEnv, desktopActions, FailedPreconditionError, submit } from "@pincer/controller";

describe("desktop actions over the env handle", () => {
  test("pixel coordinates go to the machine as given", async () => {
    const env = createMemoryEnv({ width: 1000, height: 500 });
    const a = desktopActions;
    expect(await a.click.call({ x: 10, y: 20, modifiers: ["ctrl"] }, { env })).toEqual({ x: 10, y: 20 });
    await a.double_click.call({ x: 11, y: 21 }, { env });
    await a.right_click.call({ x: 12, y: 22 }, { env });
    await a.move.call({ x: 13, y: 23 }, { env });
    await a.drag.call({ start_x: 1, start_y: 2, end_x: 30, end_y: 40 }, { env });
    await a.scroll.call({ dy: -3, x: 5, y: 6 }, { env });
    await a.key.call({ keys: "ctrl+shift+t", repeat: 2 }, { env });
    await a.type.call({ text: "hi ✓" }, { env });
    expect(env.events).toEqual([
      { type: "click", at: { x: 10, y: 20 }, button: "left", count: 1, modifiers: ["Control_L"] },
      { type: "click", at: { x: 11, y: 21 }, button: "left", count: 2, modifiers: [] },
      { type: "click", at: { x: 12, y: 22 }, button: "right", count: 1, modifiers: [] },
      { type: "move", to: { x: 13, y: 23 } },
      {
        type: "drag",
        path: [
          { x: 1, y: 2 },
          { x: 30, y: 40 },
        ],
        button: "left",
        modifiers: [],
      },
      { type: "scroll", at: { x: 5, y: 6 }, dx: 0, dy: -3, modifiers: [] },
      { type: "press", keys: ["Control_L", "Shift_L", "t"], repeat: 2 },
      { type: "type", text: "hi ✓" },
    ]);
    const shot = await a.screenshot.call({ max_width: 250 }, { env });
    expect(shot).toMatchObject({ width: 250, height: 125, scale: 0.25 });
  });

  test("normalized coordinates are fractions of the screen, mapped with its size at call time", async () => {
    const env = createMemoryEnv({ width: 1001, height: 501 });
    const a = createDesktopActions({ coordinates: "normalized" });
    expect(await a.click.call({ x: 0.5, y: 1 }, { env })).toEqual({ x: 0.5, y: 1 });
    expect(env.events[0]).toMatchObject({ at: { x: 500, y: 500 } });
    await a.drag.call({ start_x: 0, start_y: 0, end_x: 1, end_y: 0.5 }, { env });
    expect(env.events[1]).toMatchObject({
      path: [
        { x: 0, y: 0 },
        { x: 1000, y: 250 },
      ],
    });
    expect((await a.click.safeCall({ x: 1.5, y: 0 }, { env })).ok).toBe(false);
  });

  test("key names are checked before anything reaches the machine", async () => {
    const env = createMemoryEnv();
    const r = await desktopActions.key.safeCall({ keys: "ctrl+frobnicate" }, { env });
    expect(r.ok).toBe(false);
    expect(r.ok === false && r.error).toBeInstanceOf(ActionArgumentsError);
    expect(r.ok === false && r.error.message).toMatch(/unknown key name "frobnicate"/);
    expect((await desktopActions.click.safeCall({ x: 1, y: 1, modifiers: ["hyperspace"] }, { env })).ok).toBe(false);
    expect(env.events).toEqual([]);
  });

  test("wait honours its signal", async () => {
    const started = performance.now();
    // It rejects with the signal's reason (the runner's TimeoutError when a task's time runs out).
    await expect(desktopActions.wait.call({ seconds: 10 }, { signal: AbortSignal.timeout(30) })).rejects.toMatchObject({ name: "TimeoutError" });
    // Well before the 10 s, with room for a loaded machine.
    expect(performance.now() - started).toBeLessThan(4_000);
  });

  test("root actions need an episode", async () => {
    await expect(complete.call({})).rejects.toBeInstanceOf(FailedPreconditionError);
    await expect(submit.call({ content: "x" })).rejects.toThrow(/only meaningful inside a benchmark episode/);
  });
});
