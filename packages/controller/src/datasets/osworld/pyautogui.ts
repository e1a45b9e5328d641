import { type Expr, parsePyautoguiCode, type PyValue, runPyautoguiCode, type Stmt } from "../../actions/pyautogui/index.js";
import type { Env } from "../../env/index.js";

/**
 * OSWorld's tasks drive the GUI in setup and postconfig with `python -c "import pyautogui; ..."`
 * one-liners, run by Python on its machines. Pincer ships no code to a machine: the pyautogui
 * interpreter of the actions layer (actions/pyautogui) reads such a script and performs the same
 * input through the daemon. Anything outside its vocabulary is an error naming the statement,
 * never skipped. A bare `sleep(…)` is read as `time.sleep(…)`, as tasks write it.
 */

/** A call of a script: its canonical name and arguments, constants as values and the rest as expressions. */
export interface PyCall {
  name: string;
  args: (PyValue | Expr)[];
  kwargs: Record<string, PyValue | Expr>;
}

/** Whether an argv is a Python one-liner that uses pyautogui (`python -c "import pyautogui; ..."`). */
export function isPyautoguiCommand(command: string | readonly string[]): command is readonly string[] {
  return Array.isArray(command) && command.length === 3 && /^python3?$/.test(command[0]!) && command[1] === "-c" && /\bpyautogui\b/.test(command[2]!);
}

/** Task scripts call `sleep` without importing it. */
const withSleep = (code: string) => `from time import sleep\n${code}`;

const constant = (e: Expr): PyValue | Expr => (e.k === "lit" ? e.v : e.k === "neg" && e.e.k === "lit" && typeof e.e.v === "number" ? -e.e.v : e);

function callsOf(stmts: readonly Stmt[]): PyCall[] {
  return stmts.flatMap((s): PyCall[] => {
    if (s.k === "for") return callsOf(s.body);
    if (s.k !== "expr" || s.e.k !== "call") return [];
    return [{ name: s.e.fn, args: s.e.args.map(constant), kwargs: Object.fromEntries(s.e.kwargs.map(([k, v]) => [k, constant(v)])) }];
  });
}

/**
 * Reads a pyautogui script into its calls, failing on the first statement Pincer cannot perform
 * (so a task that needs one is reported before it runs, not half-run).
 */
export function parsePyautogui(code: string): PyCall[] {
  return callsOf(parsePyautoguiCode(withSleep(code)).statements);
}

/** Performs a pyautogui one-liner's input on the machine, after checking all of it. */
export async function runPyautogui(env: Env, code: string, signal: AbortSignal): Promise<void> {
  await runPyautoguiCode(env, withSleep(code), signal);
}
