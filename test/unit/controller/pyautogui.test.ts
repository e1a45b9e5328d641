import { afterEach, describe, expect, test, vi } from "vitest";
import { ActionArgumentsError, createBenchmark, createEnvironment, createMemoryEnv, createTask, evaluator, type MemoryEnv } from "@pincer/controller";
import { InvalidArgumentError } from "@pincer/shared";
import {
  computer13Calls,
  computer13Code,
  MAX_SLEEP_SECONDS,
  osworldSpecialCalls,
  parsePyautoguiCode,
  pyautoguiAction,
  pyautoguiActionCalls,
  runPyautoguiCode,
} from "../../../packages/controller/src/actions/pyautogui/index.js";
import { ROOT_ENVIRONMENT } from "../../../packages/controller/src/benchmark/environment.js";
import { FAIL_ACTION_NAME } from "../../../packages/controller/src/datasets/osworld/task.js";

// The pyautogui interpreter: OSWorld agents' code read whole, checked, then performed on `env`.

/** A memory machine with a clipboard and a process API that record what they are asked. */
function machine() {
  const mem = createMemoryEnv({ width: 1280, height: 800 });
  const state = { clipboard: "", runs: [] as (string[] | string)[], launched: [] as (string[] | string)[] };
  const extra: Record<string, unknown> = {
    clipboard: {
      get: async () => state.clipboard,
      set: async (text: string) => {
        state.clipboard = text;
      },
    },
    process: {
      run: async (cmd: string[] | string) => {
        state.runs.push(cmd);
        return { exitCode: 3, signal: null, stdout: "out\n", stderr: "", timedOut: false, durationMs: 1, pid: 1 };
      },
      launch: async (cmd: string[] | string) => {
        state.launched.push(cmd);
        return { pid: 2, window: null };
      },
    },
  };
  const env = new Proxy(mem, { get: (t, p, r) => (typeof p === "string" && p in extra ? extra[p] : Reflect.get(t, p, r)) }) as MemoryEnv;
  return { env, state };
}

const signal = () => new AbortController().signal;

async function run(code: string) {
  const m = machine();
  await runPyautoguiCode(m.env, code, signal(), { pause: 0 });
  return { events: m.env.events, typed: m.env.typed, ...m.state };
}

/** Runs code expected to fail; returns the error and what was performed. */
async function failing(code: string) {
  const m = machine();
  const err = await runPyautoguiCode(m.env, code, signal(), { pause: 0 }).then(
    () => undefined,
    (e: Error) => e,
  );
  expect(err).toBeInstanceOf(InvalidArgumentError);
  return { message: err!.message, events: m.env.events, runs: m.state.runs, clipboard: m.state.clipboard };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("pyautogui calls become env calls", () => {
  test("clicks: a point, a tuple, clicks and button, double, triple, right and middle; a point off the screen is clamped to it", async () => {
    const { events } = await run(`import pyautogui
pyautogui.click(100, 200)
pyautogui.click(x=10, y=20, clicks=2, button='right')
pyautogui.click((7, 8))
pyautogui.doubleClick(5, 5)
pyautogui.tripleClick()
pyautogui.rightClick(30, 40)
pyautogui.middleClick()
pyautogui.click(5000, -3)
pyautogui.click(clicks=2, interval=0.01)
pyautogui.click(3, 4, clicks=0)`);
    expect(events).toEqual([
      { type: "click", at: { x: 100, y: 200 }, button: "left", count: 1, modifiers: [] },
      { type: "click", at: { x: 10, y: 20 }, button: "right", count: 2, modifiers: [] },
      { type: "click", at: { x: 7, y: 8 }, button: "left", count: 1, modifiers: [] },
      { type: "click", at: { x: 5, y: 5 }, button: "left", count: 2, modifiers: [] },
      { type: "click", at: { x: 5, y: 5 }, button: "left", count: 3, modifiers: [] },
      { type: "click", at: { x: 30, y: 40 }, button: "right", count: 1, modifiers: [] },
      { type: "click", at: { x: 30, y: 40 }, button: "middle", count: 1, modifiers: [] },
      { type: "click", at: { x: 1279, y: 0 }, button: "left", count: 1, modifiers: [] },
      // clicks with an interval: one click at a time.
      { type: "click", at: { x: 1279, y: 0 }, button: "left", count: 1, modifiers: [] },
      { type: "click", at: { x: 1279, y: 0 }, button: "left", count: 1, modifiers: [] },
      // No clicks: it still moves there.
      { type: "move", to: { x: 3, y: 4 } },
    ]);
  });

  test("moves, relative moves, drags (through points in between when given a duration), mouseDown and mouseUp", async () => {
    const { events } = await run(`pyautogui.moveTo(10, 10)
pyautogui.moveRel(5, -5)
pyautogui.dragTo(115, 105, duration=0.02)
pyautogui.dragRel(-15, 0, button='right')
pyautogui.mouseDown(50, 60, button='right')
pyautogui.mouseUp()
pyautogui.dragTo(1, 1, mouseDownUp=False)`);
    expect(events[0]).toEqual({ type: "move", to: { x: 10, y: 10 } });
    expect(events[1]).toEqual({ type: "move", to: { x: 15, y: 5 } });
    expect(events[2]).toMatchObject({ type: "drag", button: "left" });
    const path = (events[2] as { path: { x: number; y: number }[] }).path;
    expect(path).toHaveLength(11);
    expect([path[0], path[5], path[10]]).toEqual([
      { x: 15, y: 5 },
      { x: 65, y: 55 },
      { x: 115, y: 105 },
    ]);
    expect(events[3]).toEqual({
      type: "drag",
      button: "right",
      path: [
        { x: 115, y: 105 },
        { x: 100, y: 105 },
      ],
      modifiers: [],
    });
    expect(events.slice(4)).toEqual([
      { type: "buttonDown", at: { x: 50, y: 60 }, button: "right" },
      { type: "buttonUp", at: { x: 50, y: 60 }, button: "left" },
      { type: "move", to: { x: 1, y: 1 } },
    ]);
  });

  test("keyboard: write and typewrite (text or key lists), press with presses, hotkey, keyDown/keyUp; pyautogui key names map to Pincer's", async () => {
    const { events, typed } = await run(`pyautogui.write('hello')
pyautogui.typewrite(['a', 'enter'], interval=0.01)
pyautogui.press('Enter', presses=3)
pyautogui.press(['tab', 'pgdn', 'num5', 'ctrlleft', 'A'])
pyautogui.hotkey('ctrl', 'shift', 't')
pyautogui.hotkey(['alt', 'f4'])
pyautogui.keyDown('shift'); pyautogui.keyUp('shift')`);
    expect(typed).toBe("hello");
    expect(events.slice(1)).toEqual([
      { type: "press", keys: ["a"], repeat: 1 },
      { type: "press", keys: ["Return"], repeat: 1 },
      { type: "press", keys: ["Return"], repeat: 3 },
      { type: "press", keys: ["Tab"], repeat: 1 },
      { type: "press", keys: ["Next"], repeat: 1 },
      { type: "press", keys: ["KP_5"], repeat: 1 },
      { type: "press", keys: ["Control_L"], repeat: 1 },
      { type: "press", keys: ["A"], repeat: 1 },
      { type: "press", keys: ["Control_L", "Shift_L", "t"], repeat: 1 },
      { type: "press", keys: ["Alt_L", "F4"], repeat: 1 },
      { type: "keyDown", key: "Shift_L" },
      { type: "keyUp", key: "Shift_L" },
    ]);
  });

  test('"<" is typed as written (what OSWorld\'s rewrite into hotkey("shift", ",") achieves), also spelled \\u003c', async () => {
    const { events, typed } = await run(`pyautogui.typewrite("a<b"); pyautogui.write('\\u003c/p>'); pyautogui.press('<')`);
    expect(typed).toBe("a<b</p>");
    expect(events[2]).toEqual({ type: "press", keys: ["<"], repeat: 1 });
  });

  test("scroll and vscroll (positive is up), hscroll (positive is right), at a point or where the pointer is", async () => {
    const { events } = await run("pyautogui.scroll(3); pyautogui.scroll(-2, x=10, y=20); pyautogui.vscroll(-1); pyautogui.hscroll(4); pyautogui.scroll(0)");
    expect(events).toEqual([
      { type: "scroll", at: { x: 640, y: 400 }, dx: 0, dy: -3, modifiers: [] },
      { type: "scroll", at: { x: 10, y: 20 }, dx: 0, dy: 2, modifiers: [] },
      { type: "scroll", at: { x: 10, y: 20 }, dx: 0, dy: 1, modifiers: [] },
      { type: "scroll", at: { x: 10, y: 20 }, dx: 4, dy: 0, modifiers: [] },
    ]);
  });

  test("position() and size() in assignments, with arithmetic, indexing and augmented assignment", async () => {
    const { events } = await run(`x, y = pyautogui.position()
pyautogui.click(x + 10, y)
w, h = pyautogui.size()
pyautogui.moveTo(w / 2, h // 4)
p = pyautogui.position()
dx = 5
dx += 2 * 3
pyautogui.click(p[0] - dx, p[-1] % 7)`);
    expect(events).toEqual([
      { type: "click", at: { x: 650, y: 400 }, button: "left", count: 1, modifiers: [] },
      { type: "move", to: { x: 640, y: 200 } },
      { type: "click", at: { x: 629, y: 4 }, button: "left", count: 1, modifiers: [] },
    ]);
  });

  test("imports: aliases, from-imports, from pyautogui import *, and settings (FAILSAFE, PAUSE)", async () => {
    const { events } = await run(`import pyautogui as pg, time
from pyautogui import click, press as p
from time import sleep
pyautogui.FAILSAFE = False
pg.PAUSE = 0
pg.click(1, 1); click(2, 2); p('a'); sleep(0)
from pyautogui import *
hotkey('ctrl', 'a')`);
    expect(events.map((e) => e.type)).toEqual(["click", "click", "press", "press"]);
  });

  test("for loops over lists, tuples and range, with indented or same-line bodies, nested, and unpacking", async () => {
    const { events } = await run(`for key in ['a', 'b']:
    pyautogui.press(key)
for i in range(3):
    pyautogui.click(10 * i + 1, 5)

    # a comment and a blank line inside the body
    pyautogui.press('tab')
for i in range(2): pyautogui.press('x'); pyautogui.press('y')
for x, y in [(1, 2), (3, 4)]:
    for n in range(1, 3):
        pyautogui.click(x, y * n)
pyautogui.press('z')`);
    const summary = events.map((e) => (e.type === "press" ? e.keys[0] : e.type === "click" ? `${e.at.x},${e.at.y}` : e.type));
    expect(summary).toEqual(["a", "b", "1,5", "Tab", "11,5", "Tab", "21,5", "Tab", "x", "y", "x", "y", "1,2", "1,4", "3,4", "3,8", "z"]);
  });

  test("pyperclip.copy and paste go through env.clipboard", async () => {
    const r = await run(`import pyperclip
pyperclip.copy('héllo <wörld>')
text = pyperclip.paste()
pyautogui.write(text + '!')`);
    expect(r.clipboard).toBe("héllo <wörld>");
    expect(r.typed).toBe("héllo <wörld>!");
  });

  test("subprocess and os.system run commands through env.process (sh -c for a shell line); Popen launches", async () => {
    const r = await run(`import subprocess, os
subprocess.run(['touch', '/tmp/x'])
code = os.system('echo hi > /tmp/y')
out = subprocess.check_output(['echo', 'x'], text=True) if False else 'x'`).catch((e: Error) => e);
    // A conditional expression is not in the vocabulary: named, nothing run.
    expect((r as Error).message).toMatch(/cannot read "out = subprocess.check_output/);
    const ok = await run(`import subprocess, os
subprocess.run(['touch', '/tmp/x'], check=False)
code = os.system('echo hi > /tmp/y')
subprocess.call("ls -l", shell=True)
subprocess.Popen(["xterm"], stdout=subprocess.DEVNULL)
pyautogui.write(str(code))`);
    expect(ok.runs).toEqual([
      ["touch", "/tmp/x"],
      ["sh", "-c", "echo hi > /tmp/y"],
      ["sh", "-c", "ls -l"],
    ]);
    expect(ok.launched).toEqual([["xterm"]]);
    // os.system answers with the wait status (exit 3 → 768), as in Python.
    expect(ok.typed).toBe("768");
    const checked = machine();
    await expect(runPyautoguiCode(checked.env, "import subprocess\nsubprocess.check_output(['false'])", signal(), { pause: 0 })).rejects.toThrow(
      /exited with 3/,
    );
  });

  test("source forms: comments, a backslash continuation, a call over several lines, triple quotes, escapes, adjacent strings", async () => {
    const { typed, events } = await run(`import pyautogui  # the mouse
pyautogui.write('a\\tb\\n' \\
    "c")
pyautogui.click(
    100,   # x
    200,
)
pyautogui.write("""x
y""")
pyautogui.write(r'\\d' 'e')`);
    expect(typed).toBe("a\tb\ncx\ny\\de");
    expect(events.filter((e) => e.type === "click")).toHaveLength(1);
  });

  test("time.sleep waits, at most MAX_SLEEP_SECONDS a call, and stops when the signal fires", async () => {
    vi.useFakeTimers();
    const m = machine();
    let done = false;
    const p = runPyautoguiCode(m.env, "time.sleep(3600); pyautogui.press('a')", signal(), { pause: 0 }).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(MAX_SLEEP_SECONDS * 1000 - 10);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(20);
    await p;
    expect(m.env.events).toHaveLength(1);
    vi.useRealTimers();
    const ac = new AbortController();
    const started = Date.now();
    const slow = runPyautoguiCode(machine().env, "time.sleep(5)", ac.signal);
    setTimeout(() => ac.abort(new Error("stop")), 30);
    await expect(slow).rejects.toThrow("stop");
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test("pyautogui's PAUSE (0.1 s by default) follows each pyautogui call", async () => {
    const m = machine();
    const started = Date.now();
    await runPyautoguiCode(m.env, "pyautogui.press('a'); pyautogui.press('b'); x = pyautogui.size()", signal());
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    const quick = Date.now();
    await runPyautoguiCode(m.env, "pyautogui.PAUSE = 0\npyautogui.press('a'); pyautogui.press('b')", signal());
    expect(Date.now() - quick).toBeLessThan(150);
  });
});

describe("anything outside the vocabulary is an error naming the statement, raised before any input", () => {
  test.each([
    ["pyautogui.click(1, 1)\npyautogui.locateOnScreen('a.png')", /pyautogui\.locateOnScreen\(\.\.\.\) is not a call Pincer performs/],
    ["pyautogui.click(1, 1)\nimport numpy", /cannot read "import numpy": module numpy is not one Pincer interprets/],
    ["pyautogui.click(1, 1)\npyautogui.click(nowhere, 3)", /cannot read "pyautogui.click\(nowhere, 3\)": name "nowhere" is not defined/],
    ["pyautogui.click(1, 1)\nx = 1 +", /cannot read "x = 1 \+": expected a value at the end/],
    ["pyautogui.click(1, 1)\nif True:\n    pass", /cannot read "if True:": if statements are not supported/],
    ["pyautogui.click(1, 1)\npyautogui.write(f'{x}')", /cannot read "pyautogui.write\(f'\{x\}'\)": f-strings are not supported/],
    ["pyautogui.click(1, 1)\nos.system('ls')", /cannot read "os.system\('ls'\)": name "os" is not defined \(import os first\)/],
    ["pyautogui.click(1, 1)\npyautogui.x = 3", /cannot read "pyautogui.x = 3": only pyautogui.PAUSE and pyautogui.FAILSAFE/],
    ["pyautogui.click(1, 1)\npyautogui.click(1, 2).x", /attributes of values are not supported/],
    ["pyautogui.click(1, 1)\nfor i in range(3):\npyautogui.press('a')", /cannot read "for i in range\(3\):": expected an indented block/],
    ["pyautogui.click(1, 1)\n  pyautogui.press('a')", /cannot read "pyautogui.press\('a'\)": unexpected indentation/],
    ["pyautogui.click(1, 1)\npyautogui.write('open", /cannot read "pyautogui.write\('open": unterminated string/],
    ["pyautogui.click(1, 1)\npyautogui.hotkey(*keys)", /argument unpacking/],
  ])("parse: %j", async (code, message) => {
    expect(() => parsePyautoguiCode(code)).toThrow(InvalidArgumentError);
    const r = await failing(code);
    expect(r.message).toMatch(message);
    expect(r.events).toEqual([]);
  });

  test.each([
    ["pyautogui.click(1, 1)\npyautogui.press('nokey')", /"pyautogui.press\('nokey'\)": press\(\): "nokey" is not a key name/],
    ["pyautogui.click(1, 1)\npyautogui.click(1, 2, 3, 4, 5, 6, 7, 8)", /click\(\) takes at most 7 positional arguments, got 8/],
    ["pyautogui.click(1, 1)\npyautogui.click(1, 2, speed=3)", /click\(\) got an unexpected keyword argument "speed"/],
    ["pyautogui.click(1, 1)\npyautogui.click('button.png')", /locating an image on the screen .* is not supported/],
    ["pyautogui.click(1, 1)\npyautogui.click(1, 2, button='fourth')", /button must be left, right or middle/],
    ["pyautogui.click(1, 1)\ntime.sleep(-1)", /"time.sleep\(-1\)": time\.sleep\(\): secs must not be negative/],
    ["pyautogui.click(1, 1)\nfor i in range(20000):\n    pass", /range\(\): 20000 items is more than/],
    ["pyautogui.click(1, 1)\nx, y = pyautogui.size()\npyautogui.click(x + 'a', y)", /unsupported operand types for \+: number and str/],
    ["pyautogui.click(1, 1)\nx, y, z = pyautogui.position()", /cannot unpack \[\d+,\d+\] into 3 names/],
    [
      "import pyperclip\npyperclip.copy('a')\nfor k in ['a', 'b']:\n    pyautogui.press(k)\n    pyautogui.press(k * 2)",
      /"pyautogui.press\(k \* 2\)": press\(\): "aa" is not a key name/,
    ],
    ["import subprocess\nsubprocess.run([])\npyautogui.press('a')", /args must be a command line or a non-empty list of strings/],
  ])("checked in a dry run before anything is performed: %j", async (code, message) => {
    const r = await failing(code);
    expect(r.message).toMatch(message);
    expect(r.events).toEqual([]);
    expect(r.runs).toEqual([]);
    expect(r.clipboard).toBe("");
  });
});

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
