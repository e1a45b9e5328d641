import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { computer13Calls, pyautoguiAction } from "../../packages/controller/src/actions/pyautogui/index.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { startXvfb, stopProcess, type XServer } from "../fixtures/xvfb.js";

// OSWorld's action spaces on a real daemon under Xvfb: pyautogui code and computer_13 actions,
// through the pyautogui action, move the real pointer, type into a real terminal, use the real
// clipboard and run commands; xev witnesses scrolls and drags.

const run = promisify(execFile);

let xs: XServer;
let daemon: RunningDaemon;
let dir: string;
let typedFile: string;
const children: ChildProcess[] = [];
let xevOut = "";

async function until<T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Runs code through the pyautogui action, as an agent's tool call would. */
const perform = (code: string) => pyautoguiAction.call({ code }, { env: daemon.env, signal: AbortSignal.timeout(20_000) });

/** Performs a computer_13 action: its tool call, then the pyautogui action it names. */
async function perform13(a: unknown): Promise<void> {
  const [call] = computer13Calls("desktop", a);
  expect(call).toMatchObject({ env: "desktop", action: "pyautogui" });
  await pyautoguiAction.call(call!.args as { code: string }, { env: daemon.env, signal: AbortSignal.timeout(20_000) });
}

/** The lines cat has written so far, once it has written more than `after`. */
const linesAfter = (after: number) =>
  until(
    () => {
      const lines = readFileSync(typedFile, "utf8").split("\n").slice(0, -1);
      return lines.length > after ? lines : undefined;
    },
    10_000,
    "a typed line to reach cat",
  );

/** xev's events after `from` chars of its output, once `pattern` shows up in them. */
const xevAfter = (from: number, pattern: RegExp) =>
  until(() => (pattern.test(xevOut.slice(from)) ? xevOut.slice(from) : undefined), 10_000, `xev to see ${pattern}`);

beforeAll(async () => {
  xs = await startXvfb({ width: 1024, height: 768 });
  daemon = await spawnDaemon({ display: xs.display });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  dir = mkdtempSync(join(tmpdir(), "pincer-pyautogui-"));
  typedFile = join(dir, "typed.txt");
  const xenv = { ...process.env, DISPLAY: xs.display, LANG: "C.UTF-8", LC_ALL: "C.UTF-8" };
  // A text field (xterm running cat into a file) at the top left, and xev at the bottom right.
  children.push(spawn("xterm", ["-u8", "-geometry", "80x15+0+0", "-e", "sh", "-c", `cat > ${typedFile}`], { env: xenv, stdio: "ignore" }));
  const xev = spawn("stdbuf", ["-oL", "xev", "-geometry", "300x200+600+450", "-event", "button", "-event", "mouse"], {
    env: xenv,
    stdio: ["ignore", "pipe", "ignore"],
  });
  xev.stdout!.on("data", (d: Buffer) => {
    xevOut += d.toString();
  });
  children.push(xev);
  for (const [by, what] of [
    ["--class", "xterm"],
    ["--name", "Event Tester"],
  ])
    await run("xdotool", ["search", "--sync", "--onlyvisible", by!, what!], { env: xenv, timeout: 15_000 });
  await until(() => (existsSync(typedFile) ? true : undefined), 10_000, "cat to open its output");
}, 60_000);

afterAll(async () => {
  for (const c of children) await stopProcess(c);
  await daemon?.close();
  await xs?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("pyautogui code", () => {
  test("a click at a point moves the real pointer there; a point off the screen stops at its edge", async () => {
    await perform("import pyautogui; pyautogui.click(412, 300)");
    expect(await daemon.env.mouse.position()).toEqual({ x: 412, y: 300 });
    await perform("x, y = pyautogui.position()\npyautogui.moveTo(x + 5000, y - 10)");
    expect(await daemon.env.mouse.position()).toEqual({ x: 1023, y: 290 });
  });

  test("typing into a terminal: write, press, a for loop, and '<' as written", async () => {
    // No window manager: focus follows the pointer.
    const before = readFileSync(typedFile, "utf8").split("\n").length - 1;
    await perform(`pyautogui.moveTo(200, 100)
pyautogui.write('hello <b>', interval=0.01)
pyautogui.press('enter')
for w in ['a', 'b', 'c']:
    pyautogui.typewrite(w)
    pyautogui.press('space')
for i in range(2): pyautogui.press('x')
pyautogui.press('enter')`);
    const lines = await linesAfter(before + 1);
    expect(lines.slice(before)).toEqual(["hello <b>", "a b c xx"]);
  });

  test("pyperclip.copy, then paste() through the real clipboard", async () => {
    const before = readFileSync(typedFile, "utf8").split("\n").length - 1;
    await perform(`import pyperclip
pyperclip.copy('Grüße 世界')
text = pyperclip.paste()
pyautogui.moveTo(200, 100)
pyautogui.write(text + '!'); pyautogui.press('enter')`);
    expect(await daemon.env.clipboard.get()).toBe("Grüße 世界");
    expect((await linesAfter(before)).slice(before)).toEqual(["Grüße 世界!"]);
  });

  test("subprocess.run and os.system run their commands on the machine", async () => {
    const x = join(dir, "x");
    const y = join(dir, "y");
    await perform(`import subprocess, os
subprocess.run(["sh", "-c", "echo hi > ${x}"])
os.system("echo there > ${y}")`);
    expect(readFileSync(x, "utf8")).toBe("hi\n");
    expect(readFileSync(y, "utf8")).toBe("there\n");
  });

  test("scroll (positive is up, wheel button 4) and a drag, seen by xev", async () => {
    let from = xevOut.length;
    await perform("pyautogui.scroll(2, x=700, y=500)");
    expect((await xevAfter(from, /ButtonRelease[\s\S]*button 4/)).match(/ButtonPress[^\n]*\n[^\n]*\n[^\n]*button (\d)/)?.[1]).toBe("4");
    from = xevOut.length;
    await perform("pyautogui.vscroll(-1)");
    expect(await xevAfter(from, /button 5/)).not.toMatch(/button 4/);
    from = xevOut.length;
    await perform("pyautogui.moveTo(650, 500)\npyautogui.dragTo(850, 600, duration=0.2)");
    const drag = await xevAfter(from, /ButtonRelease[\s\S]*root:\(850,600\)/);
    expect(drag).toMatch(/ButtonPress[\s\S]*root:\(650,500\)[\s\S]*MotionNotify[\s\S]*root:\(750,550\)[\s\S]*ButtonRelease/);
    expect(await daemon.env.mouse.position()).toEqual({ x: 850, y: 600 });
  });
});

describe("computer_13 actions, through the same action", () => {
  test("CLICK, TYPING, PRESS, HOTKEY, SCROLL and DRAG_TO do what the pyautogui code does", async () => {
    await perform13({ action_type: "CLICK", parameters: { x: 300, y: 120 } });
    expect(await daemon.env.mouse.position()).toEqual({ x: 300, y: 120 });
    const before = readFileSync(typedFile, "utf8").split("\n").length - 1;
    await perform13({ action_type: "TYPING", parameters: { text: "from computer_13 <ok>" } });
    await perform13({ action_type: "HOTKEY", parameters: { keys: ["shift", "a"] } });
    await perform13({ action_type: "PRESS", parameters: { key: "enter" } });
    expect((await linesAfter(before)).slice(before)).toEqual(["from computer_13 <ok>A"]);
    let from = xevOut.length;
    await perform13({ action_type: "MOVE_TO", parameters: { x: 700, y: 520 } });
    await perform13({ action_type: "SCROLL", parameters: { dx: 0, dy: -2 } });
    expect(await xevAfter(from, /button 5/)).not.toMatch(/button 4/);
    from = xevOut.length;
    await perform13({ action_type: "DRAG_TO", parameters: { x: 880, y: 640 } });
    expect(await xevAfter(from, /ButtonRelease[\s\S]*root:\(880,640\)/)).toMatch(/ButtonPress[\s\S]*root:\(700,520\)[\s\S]*MotionNotify/);
  });
});
