import { afterEach, describe, expect, test, vi } from "vitest";
import { InvalidArgumentError } from "@pincer/shared";
import { MAX_SLEEP_SECONDS, parsePyautoguiCode, runPyautoguiCode } from "../../../packages/controller/src/actions/pyautogui/index.js";

import { failing, machine, run, signal } from "../../fixtures/pyautoguiMachine.js";

// The pyautogui interpreter: OSWorld agents' code read whole, checked, then performed on `env`.

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
