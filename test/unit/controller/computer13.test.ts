import { describe, expect, test } from "vitest";
import { ActionArgumentsError, createBenchmark, createEnvironment, createTask, evaluator } from "@pincer/controller";
import { InvalidArgumentError } from "@pincer/shared";
import {
  computer13Calls,
  computer13Code,
  osworldSpecialCalls,
  parsePyautoguiCode,
  pyautoguiAction,
  pyautoguiActionCalls,
} from "../../../packages/controller/src/actions/pyautogui/index.js";
import { ROOT_ENVIRONMENT } from "../../../packages/controller/src/benchmark/environment.js";
import { FAIL_ACTION_NAME } from "../../../packages/controller/src/datasets/osworld/task.js";
import { machine, run, signal } from "../../fixtures/pyautoguiMachine.js";

// The pyautogui action, computer_13 and WAIT / DONE / FAIL: the same code, the same env calls.

describe("the pyautogui action", () => {
  test("named pyautogui with params { code }; code it cannot read is an argument error and nothing runs", async () => {
    expect(pyautoguiAction.name).toBe("pyautogui");
    expect(pyautoguiAction.inputSchema()).toMatchObject({ type: "object", required: ["code"], properties: { code: { type: "string" } } });
    const m = machine();
    const bad = await pyautoguiAction.safeCall({ code: "pyautogui.click(1, 1); pyautogui.screenshot()" }, { env: m.env });
    expect(bad).toMatchObject({ ok: false, stage: "arguments" });
    expect((bad as { error: Error }).error).toBeInstanceOf(ActionArgumentsError);
    expect((bad as { error: Error }).error.message).toMatch(/pyautogui\.screenshot\(\.\.\.\) is not a call Pincer performs/);
    await pyautoguiAction.call({ code: "import pyautogui; pyautogui.click(412, 300)" }, { env: m.env, signal: signal() });
    expect(m.env.events).toEqual([{ type: "click", at: { x: 412, y: 300 }, button: "left", count: 1, modifiers: [] }]);
  });
});

describe("computer_13 and the special actions", () => {
  test.each([
    [{ action_type: "MOVE_TO", parameters: { x: 10, y: 20.5 } }, "pyautogui.moveTo(10, 20.5)"],
    [{ action_type: "CLICK", parameters: { button: "right", x: 1, y: 2, num_clicks: 2 } }, 'pyautogui.click(button="right", x=1, y=2, clicks=2)'],
    [{ action_type: "CLICK" }, "pyautogui.click()"],
    [{ action_type: "CLICK", x: 5, y: 6 }, "pyautogui.click(x=5, y=6)"],
    [{ action_type: "MOUSE_DOWN", parameters: {} }, "pyautogui.mouseDown()"],
    [{ action_type: "MOUSE_UP", parameters: { button: "middle" } }, 'pyautogui.mouseUp(button="middle")'],
    [{ action_type: "RIGHT_CLICK", parameters: { x: 3, y: 4 } }, "pyautogui.rightClick(x=3, y=4)"],
    [{ action_type: "DOUBLE_CLICK", parameters: {} }, "pyautogui.doubleClick()"],
    [{ action_type: "DRAG_TO", parameters: { x: 30, y: 40 } }, "pyautogui.dragTo(30, 40, duration=1.0, button='left', mouseDownUp=True)"],
    [{ action_type: "SCROLL", parameters: { dx: 2, dy: -3 } }, "pyautogui.hscroll(2)\npyautogui.vscroll(-3)"],
    [{ action_type: "SCROLL", parameters: { dy: 5 } }, "pyautogui.vscroll(5)"],
    [{ action_type: "TYPING", parameters: { text: 'it\'s "a"\n<b>' } }, 'pyautogui.typewrite("it\'s \\"a\\"\\n<b>")'],
    [{ action_type: "PRESS", parameters: { key: "enter" } }, 'pyautogui.press("enter")'],
    [{ action_type: "KEY_DOWN", parameters: { key: "shift" } }, 'pyautogui.keyDown("shift")'],
    [{ action_type: "KEY_UP", parameters: { key: "shift" } }, 'pyautogui.keyUp("shift")'],
    [{ action_type: "HOTKEY", parameters: { keys: ["ctrl", "c"] } }, 'pyautogui.hotkey("ctrl", "c")'],
  ])("%j is the code OSWorld's execute_action sends", (a, code) => {
    expect(computer13Code(a)).toEqual({ code });
    expect(() => parsePyautoguiCode(code)).not.toThrow();
    expect(computer13Calls("desktop", a)).toEqual([{ env: "desktop", action: "pyautogui", args: { code } }]);
  });

  test("computer_13 actions perform what the same pyautogui code does", async () => {
    const actions = [
      { action_type: "CLICK", parameters: { x: 100, y: 50 } },
      { action_type: "TYPING", parameters: { text: "a<b" } },
      { action_type: "HOTKEY", parameters: { keys: ["ctrl", "s"] } },
      { action_type: "SCROLL", parameters: { dx: 0, dy: -2 } },
      { action_type: "DRAG_TO", parameters: { x: 200, y: 60 } },
    ];
    const viaComputer13 = machine();
    for (const a of actions) {
      const [call] = computer13Calls("desktop", a);
      await pyautoguiAction.call(call!.args as { code: string }, { env: viaComputer13.env, signal: signal() });
    }
    const direct = await run(
      "pyautogui.click(100, 50); pyautogui.write('a<b'); pyautogui.hotkey('ctrl', 's'); " +
        "pyautogui.hscroll(0); pyautogui.vscroll(-2); pyautogui.dragTo(200, 60, duration=1)",
    );
    expect(viaComputer13.env.events).toEqual(direct.events);
  }, 20_000);

  test("a wrong computer_13 action is an InvalidArgumentError naming the field", () => {
    const cases: [unknown, RegExp][] = [
      [{ action_type: "CLICK", parameters: { x: "a", y: 1 } }, /computer_13 CLICK: parameters\.x: /],
      [{ action_type: "CLICK", parameters: { x: 1 } }, /parameters\.x: give both x and y, or neither/],
      [{ action_type: "PRESS", parameters: { key: "nokey" } }, /parameters\.key: not a key name/],
      [{ action_type: "HOTKEY", parameters: { keys: "ctrl" } }, /parameters\.keys: /],
      [{ action_type: "TYPING", parameters: {} }, /parameters\.text: /],
      [{ action_type: "MOVE_TO", parameters: { x: 1, y: 2, z: 3 } }, /parameters: .*z/],
      [{ action_type: "SCROLL", parameters: {} }, /parameters\.dy: give dx, dy or both/],
      [{ action_type: "JUMP" }, /action_type: "JUMP" is not one of MOVE_TO, CLICK/],
      [{ parameters: {} }, /computer_13 action: action_type: /],
      ["CLICK", /computer_13 action: /],
    ];
    for (const [a, message] of cases) {
      expect(() => computer13Calls("desktop", a)).toThrow(InvalidArgumentError);
      expect(() => computer13Calls("desktop", a)).toThrow(message);
    }
  });

  test("WAIT, DONE and FAIL become the root's wait (OSWorld's pause), complete, and the OSWorld format's fail", () => {
    expect(osworldSpecialCalls("WAIT")).toEqual([{ env: ROOT_ENVIRONMENT, action: "wait", args: { seconds: 2 } }]);
    expect(osworldSpecialCalls("WAIT", 0.5)).toEqual([{ env: "root", action: "wait", args: { seconds: 0.5 } }]);
    expect(osworldSpecialCalls("DONE")).toEqual([{ env: ROOT_ENVIRONMENT, action: "complete" }]);
    expect(osworldSpecialCalls("FAIL")).toEqual([{ env: ROOT_ENVIRONMENT, action: FAIL_ACTION_NAME }]);
    expect(computer13Calls("desktop", { action_type: "DONE" })).toEqual(osworldSpecialCalls("DONE"));
    expect(computer13Calls("desktop", { action_type: "FAIL", parameters: {} })).toEqual(osworldSpecialCalls("FAIL"));
    // The pyautogui action space: code, the special strings, or a dict with command or action_type.
    expect(pyautoguiActionCalls("desktop", "WAIT")).toEqual(osworldSpecialCalls("WAIT"));
    expect(pyautoguiActionCalls("desktop", { action_type: "DONE" })).toEqual(osworldSpecialCalls("DONE"));
    expect(pyautoguiActionCalls("desktop", "pyautogui.click(1, 2)")).toEqual([
      { env: "desktop", action: "pyautogui", args: { code: "pyautogui.click(1, 2)" } },
    ]);
    expect(pyautoguiActionCalls("vm", { command: "pyautogui.press('a')" })).toEqual([
      { env: "vm", action: "pyautogui", args: { code: "pyautogui.press('a')" } },
    ]);
    expect(() => pyautoguiActionCalls("vm", 42)).toThrow(InvalidArgumentError);
  });
});

test("the calls run in a benchmark whose environment offers the pyautogui action: computer_13, pyautogui code, WAIT and DONE", async () => {
  const m = machine();
  // Never passes, so only DONE ends the episode.
  const never = evaluator({ name: "never", description: "never passes", local: true, run: () => false });
  const bench = createBenchmark({
    environments: [createEnvironment({ name: "desktop", env: m.env, actions: [pyautoguiAction] })],
    tasks: [createTask({ id: "t", description: "Type hi.", evaluator: never })],
  });
  await bench.start("t");
  const calls = [
    ...computer13Calls("desktop", { action_type: "CLICK", parameters: { x: 10, y: 20 } }),
    ...pyautoguiActionCalls("desktop", "pyautogui.write('hi')"),
    ...computer13Calls("desktop", { action_type: "WAIT" }, 0.01),
    ...pyautoguiActionCalls("desktop", "DONE"),
  ];
  const results = [];
  for (const call of calls) results.push(await bench.step(call));
  await bench.close();
  expect(results.map((r) => [r.tool, r.ok])).toEqual([
    ["desktop__pyautogui", true],
    ["desktop__pyautogui", true],
    ["root__wait", true],
    ["root__complete", true],
  ]);
  expect(results.map((r) => r.reason)).toEqual([null, null, null, "agent_complete"]);
  expect(m.env.events.map((e) => e.type)).toEqual(["click", "type"]);
});
