import { InvalidArgumentError, sleep } from "@pincer/shared";
import type { Env } from "../../env/index.js";

/**
 * OSWorld's tasks drive the GUI in setup and postconfig with `python -c "import pyautogui; ..."`
 * one-liners, run by Python on its machines. Pincer ships no code to a machine: it reads such a
 * script and performs the same input through the daemon. The vocabulary is what the published tasks
 * use: `hotkey`, `press`, `click`, `doubleClick`, `rightClick`, `moveTo`, `mouseDown`, `mouseUp`,
 * `write`/`typewrite`, `scroll` and `time.sleep`. Anything else is an error naming the statement,
 * never skipped.
 */

type PyValue = string | number | boolean | null | PyValue[];
interface PyCall {
  name: string;
  args: PyValue[];
  kwargs: Record<string, PyValue>;
}

/** Whether an argv is a Python one-liner that uses pyautogui (`python -c "import pyautogui; ..."`). */
export function isPyautoguiCommand(command: string | readonly string[]): command is readonly string[] {
  return Array.isArray(command) && command.length === 3 && /^python3?$/.test(command[0]!) && command[1] === "-c" && /\bpyautogui\b/.test(command[2]!);
}

/** Splits Python source into statements at `;` and newlines outside strings and brackets. */
function statements(code: string): string[] {
  const out: string[] = [];
  let cur = "";
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < code.length; i++) {
    const c = code[i]!;
    if (quote) {
      cur += c;
      if (c === "\\") cur += code[++i] ?? "";
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if ("([{".includes(c)) depth++;
    else if (")]}".includes(c)) depth--;
    if ((c === ";" || c === "\n") && depth === 0) {
      out.push(cur.trim());
      cur = "";
    } else cur += c;
  }
  out.push(cur.trim());
  return out.filter((s) => s !== "");
}

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0" };

/** Parses a Python literal (string, number, bool, None, list or tuple) at `src[pos.i]`. */
function literal(src: string, pos: { i: number }): PyValue {
  const skip = () => {
    while (/\s/.test(src[pos.i] ?? "")) pos.i++;
  };
  skip();
  const c = src[pos.i];
  if (c === '"' || c === "'") {
    let s = "";
    pos.i++;
    while (pos.i < src.length && src[pos.i] !== c) {
      if (src[pos.i] === "\\") {
        pos.i++;
        s += ESCAPES[src[pos.i]!] ?? `\\${src[pos.i]}`;
      } else s += src[pos.i];
      pos.i++;
    }
    pos.i++;
    return s;
  }
  if (c === "[" || c === "(") {
    const close = c === "[" ? "]" : ")";
    pos.i++;
    const items: PyValue[] = [];
    for (skip(); src[pos.i] !== close; skip()) {
      items.push(literal(src, pos));
      skip();
      if (src[pos.i] === ",") pos.i++;
      skip();
      if (pos.i >= src.length) throw new InvalidArgumentError(`unclosed ${c} in ${src}`);
    }
    pos.i++;
    return items;
  }
  const word = /^(-?\d+(?:\.\d+)?|True|False|None)/.exec(src.slice(pos.i));
  if (!word) throw new InvalidArgumentError(`not a literal at ${JSON.stringify(src.slice(pos.i, pos.i + 20))}`);
  pos.i += word[0].length;
  return word[0] === "True" ? true : word[0] === "False" ? false : word[0] === "None" ? null : Number(word[0]);
}

/** Parses `module.func(arg, key=value, ...)` with literal arguments. */
function parseCall(stmt: string): PyCall {
  const m = /^([A-Za-z_][\w.]*)\s*\((.*)\)$/s.exec(stmt);
  if (!m) throw new InvalidArgumentError(`not a call: ${stmt}`);
  const src = m[2]!;
  const call: PyCall = { name: m[1]!, args: [], kwargs: {} };
  const pos = { i: 0 };
  while (pos.i < src.length) {
    while (/[\s,]/.test(src[pos.i] ?? "")) pos.i++;
    if (pos.i >= src.length) break;
    const kw = /^([A-Za-z_]\w*)\s*=(?!=)/.exec(src.slice(pos.i));
    if (kw) {
      pos.i += kw[0].length;
      call.kwargs[kw[1]!] = literal(src, pos);
    } else call.args.push(literal(src, pos));
  }
  return call;
}

const num = (v: PyValue | undefined): number | undefined => (typeof v === "number" ? v : undefined);
const keysOf = (args: PyValue[]): string[] => args.flatMap((a) => (Array.isArray(a) ? a.map(String) : [String(a)]));

/** The point a click/move names (`x, y` or `x=, y=`), if any. */
function pointOf(call: PyCall): { x: number; y: number } | undefined {
  const x = num(call.kwargs.x ?? call.args[0]);
  const y = num(call.kwargs.y ?? call.args[1]);
  return x !== undefined && y !== undefined ? { x: Math.round(x), y: Math.round(y) } : undefined;
}

const KNOWN = new Set(
  ["hotkey", "press", "write", "typewrite", "click", "doubleClick", "rightClick", "moveTo", "mouseDown", "mouseUp", "scroll"].map((n) => `pyautogui.${n}`),
).add("time.sleep");

/** Performs one pyautogui call through the daemon. */
async function perform(env: Env, call: PyCall, signal: AbortSignal): Promise<void> {
  const o = { signal };
  const at = pointOf(call);
  const button = (typeof call.kwargs.button === "string" ? call.kwargs.button : "left") as "left" | "right" | "middle";
  switch (call.name) {
    case "time.sleep":
      await sleep((num(call.args[0]) ?? 0) * 1000, signal);
      return;
    case "pyautogui.hotkey":
      await env.keyboard.press(keysOf(call.args), o);
      return;
    case "pyautogui.press":
      for (const key of keysOf(call.args.slice(0, 1))) await env.keyboard.press(key, { ...o, repeat: num(call.kwargs.presses ?? call.args[1]) ?? 1 });
      return;
    case "pyautogui.write":
    case "pyautogui.typewrite": {
      const text = call.args[0] ?? call.kwargs.message;
      if (Array.isArray(text)) for (const key of text) await env.keyboard.press(String(key), o);
      else await env.keyboard.type(String(text ?? ""), { ...o, charDelayMs: Math.round((num(call.kwargs.interval) ?? 0) * 1000) });
      return;
    }
    case "pyautogui.click":
      await env.mouse.click({ ...o, button, count: num(call.kwargs.clicks) ?? 1, ...(at ? { at } : {}) });
      return;
    case "pyautogui.doubleClick":
    case "pyautogui.rightClick":
      await env.mouse.click({
        ...o,
        button: call.name.endsWith("rightClick") ? "right" : button,
        count: call.name.endsWith("doubleClick") ? 2 : 1,
        ...(at ? { at } : {}),
      });
      return;
    case "pyautogui.moveTo":
      if (!at) throw new InvalidArgumentError("pyautogui.moveTo needs x and y");
      await env.mouse.move(at, o);
      return;
    case "pyautogui.mouseDown":
    case "pyautogui.mouseUp":
      await (call.name.endsWith("Down") ? env.mouse.down : env.mouse.up)(button, { ...o, ...(at ? { at } : {}) });
      return;
    case "pyautogui.scroll": {
      // pyautogui scrolls up for positive clicks; Pincer's dy is notches down.
      const clicks = num(call.args[0] ?? call.kwargs.clicks) ?? 0;
      if (clicks !== 0) await env.mouse.scroll({ ...o, dy: -Math.sign(clicks) * Math.min(Math.abs(clicks), 100), ...(at ? { at } : {}) });
      return;
    }
    default:
      throw new InvalidArgumentError(`${call.name}(...) is not a pyautogui call Pincer performs`);
  }
}

/**
 * Reads a pyautogui script into calls, failing on the first statement Pincer cannot perform (so a
 * task that needs one is reported before it runs, not half-run).
 */
export function parsePyautogui(code: string): PyCall[] {
  const calls: PyCall[] = [];
  for (const stmt of statements(code)) {
    if (/^import\s+(pyautogui|time)(\s*,\s*(pyautogui|time))*$/.test(stmt) || /^from\s+time\s+import\s+sleep$/.test(stmt)) continue;
    let call: PyCall;
    try {
      call = parseCall(stmt.replace(/^sleep\s*\(/, "time.sleep("));
    } catch (err) {
      throw new InvalidArgumentError(`pyautogui script: cannot read ${JSON.stringify(stmt)}: ${(err as Error).message}`);
    }
    if (!KNOWN.has(call.name))
      throw new InvalidArgumentError(`pyautogui script: ${call.name}(...) is not a call Pincer performs (it performs ${[...KNOWN].join(", ")})`);
    calls.push(call);
  }
  return calls;
}

/** Performs a pyautogui one-liner's input on the machine, statement by statement. */
export async function runPyautogui(env: Env, code: string, signal: AbortSignal): Promise<void> {
  for (const call of parsePyautogui(code)) await perform(env, call, signal);
}
