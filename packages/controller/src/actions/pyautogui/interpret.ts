import { InvalidArgumentError } from "@pincer/shared";
import type { Env } from "../../env/index.js";
import { Args, PyArgumentError } from "./args.js";
import { type CallSpec, MAX_SLEEP_SECONDS, MAX_STEPS, type Machine, PYAUTOGUI_CALLS, sleepSeconds } from "./calls.js";
import { CONSTANTS, MODULE_CALLS } from "./modules.js";
import { type Expr, parseProgram, type Stmt, type Vocabulary } from "./parse.js";
import type { PyValue } from "./tokens.js";

/** Every call a script may make, by canonical name. */
const CALLS: Record<string, CallSpec> = {
  ...Object.fromEntries(Object.entries(PYAUTOGUI_CALLS).map(([k, v]) => [`pyautogui.${k}`, v])),
  ...MODULE_CALLS,
};

/** The vocabulary of the interpreter, for the parser. */
export const VOCABULARY: Vocabulary = {
  has: (name) => Object.hasOwn(CALLS, name),
  namesOf: (mod) =>
    Object.keys(CALLS)
      .filter((k) => k.startsWith(`${mod}.`))
      .map((k) => k.slice(mod.length + 1)),
  constant: (name) => (Object.hasOwn(CONSTANTS, name) ? CONSTANTS[name] : undefined),
  describe: () => Object.keys(CALLS).join(", "),
};

/** The default pyautogui.PAUSE: seconds after each pyautogui call. */
export const DEFAULT_PAUSE_SECONDS = 0.1;

/** A program the interpreter has read: its statements, checked against the vocabulary. */
export interface PyautoguiProgram {
  readonly source: string;
  readonly statements: readonly Stmt[];
}

/** Reads a script; throws an InvalidArgumentError naming the first statement it cannot read. */
export function parsePyautoguiCode(source: string): PyautoguiProgram {
  return { source, statements: parseProgram(source, VOCABULARY) };
}

const typeName = (v: PyValue) => (v === null ? "None" : Array.isArray(v) ? "list" : typeof v === "string" ? "str" : typeof v === "boolean" ? "bool" : "number");

function arithmetic(op: string, l: PyValue, r: PyValue): PyValue {
  if (op === "+" && typeof l === "string" && typeof r === "string") return l + r;
  if (op === "+" && Array.isArray(l) && Array.isArray(r)) return [...l, ...r];
  if (op === "*" && typeof l === "string" && typeof r === "number" && Number.isInteger(r)) return l.repeat(Math.max(0, r));
  const a = typeof l === "boolean" ? Number(l) : l;
  const b = typeof r === "boolean" ? Number(r) : r;
  if (typeof a !== "number" || typeof b !== "number") throw new PyArgumentError(`unsupported operand types for ${op}: ${typeName(l)} and ${typeName(r)}`);
  if ((op === "/" || op === "//" || op === "%") && b === 0) throw new PyArgumentError("division by zero");
  switch (op) {
    case "+":
      return a + b;
    case "-":
      return a - b;
    case "*":
      return a * b;
    case "/":
      return a / b;
    case "//":
      return Math.floor(a / b);
    default:
      return ((a % b) + b) % b;
  }
}

function index(v: PyValue, i: PyValue): PyValue {
  if ((typeof v !== "string" && !Array.isArray(v)) || typeof i !== "number" || !Number.isInteger(i))
    throw new PyArgumentError(`cannot index ${typeName(v)} with ${JSON.stringify(i)}`);
  const items = [...v];
  const at = i < 0 ? items.length + i : i;
  if (at < 0 || at >= items.length) throw new PyArgumentError(`index ${i} out of range`);
  return items[at]!;
}

/** Runs a program's statements on one machine (dry or real). */
class Interpreter {
  readonly vars = new Map<string, PyValue>();
  steps = 0;
  constructor(readonly m: Machine) {}

  async run(stmts: readonly Stmt[]): Promise<void> {
    for (const s of stmts) {
      try {
        await this.stmt(s);
      } catch (err) {
        if (err instanceof PyArgumentError) throw new InvalidArgumentError(`pyautogui script: ${JSON.stringify(s.src)}: ${err.message}`);
        throw err;
      }
    }
  }

  step(): void {
    if (++this.steps > MAX_STEPS) throw new PyArgumentError(`the script makes more than ${MAX_STEPS} calls and loop iterations`);
  }

  bind(targets: string[], unpack: boolean, v: PyValue): void {
    if (!unpack) {
      this.vars.set(targets[0]!, v);
      return;
    }
    const items = typeof v === "string" ? [...v] : v;
    if (!Array.isArray(items) || items.length !== targets.length) throw new PyArgumentError(`cannot unpack ${JSON.stringify(v)} into ${targets.length} names`);
    for (const [i, t] of targets.entries()) this.vars.set(t, items[i]!);
  }

  async stmt(s: Stmt): Promise<void> {
    switch (s.k) {
      case "pass":
        return;
      case "expr":
        await this.eval(s.e);
        return;
      case "assign": {
        const v = await this.eval(s.e);
        this.bind(s.targets, s.unpack, s.op === "=" ? v : arithmetic(s.op.slice(0, -1), this.vars.get(s.targets[0]!)!, v));
        return;
      }
      case "setting": {
        const v = await this.eval(s.e);
        if (s.name === "pyautogui.PAUSE") {
          if (typeof v !== "number" || v < 0) throw new PyArgumentError("pyautogui.PAUSE must be a number of seconds ≥ 0");
          this.m.pause = Math.min(v, MAX_SLEEP_SECONDS);
        }
        return;
      }
      case "for": {
        const items = await this.eval(s.iter);
        if (typeof items !== "string" && !Array.isArray(items)) throw new PyArgumentError(`cannot loop over ${typeName(items)}`);
        for (const item of items) {
          this.step();
          this.bind(s.targets, s.unpack, item);
          await this.run(s.body);
        }
      }
    }
  }

  async eval(e: Expr): Promise<PyValue> {
    switch (e.k) {
      case "lit":
        return e.v;
      case "var":
        if (!this.vars.has(e.id)) throw new PyArgumentError(`name ${JSON.stringify(e.id)} is not defined`);
        return this.vars.get(e.id)!;
      case "seq": {
        const out: PyValue[] = [];
        for (const item of e.items) out.push(await this.eval(item));
        return out;
      }
      case "bin":
        return arithmetic(e.op, await this.eval(e.l), await this.eval(e.r));
      case "neg":
        return arithmetic("-", 0, await this.eval(e.e));
      case "index":
        return index(await this.eval(e.e), await this.eval(e.i));
      case "call":
        return this.call(e);
    }
  }

  async call(e: Extract<Expr, { k: "call" }>): Promise<PyValue> {
    this.step();
    const spec = CALLS[e.fn]!;
    const positional: PyValue[] = [];
    for (const a of e.args) positional.push(await this.eval(a));
    const kwargs: [string, PyValue][] = [];
    for (const [k, v] of e.kwargs) kwargs.push([k, await this.eval(v)]);
    const fn = e.fn.replace(/^pyautogui\./, "");
    const bound = spec.varargs ? new Args(fn, spec.params, [], kwargs, positional) : new Args(fn, spec.params, positional, kwargs);
    const value = await spec.run(bound, this.m);
    if (spec.input && this.m.pause > 0 && bound.get("_pause") !== false) await sleepSeconds(this.m.pause, this.m);
    return value;
  }
}

/** Options of {@link runPyautoguiCode}. */
export interface RunPyautoguiOptions {
  /** pyautogui.PAUSE at the start of the script. @default 0.1 */
  pause?: number;
}

/**
 * Performs a pyautogui script on `env`: reads it whole, runs it once dry (every call's arguments
 * checked, nothing performed), then for real. A script that cannot be read or has a wrong argument
 * anywhere fails with an InvalidArgumentError naming the statement, before any input.
 */
export async function runPyautoguiCode(env: Env, code: string | PyautoguiProgram, signal: AbortSignal, opts: RunPyautoguiOptions = {}): Promise<void> {
  const program = typeof code === "string" ? parsePyautoguiCode(code) : code;
  // Read when a call first needs them (a point to clamp, size(), a dry position()), once a run.
  const once = <T>(read: () => Promise<T>) => {
    let value: Promise<T> | undefined;
    return () => {
      value ??= read();
      return value;
    };
  };
  const screen = once(() => env.screen.size({ signal }));
  const start = once(() => env.mouse.position({ signal }));
  const machine = (dry: boolean): Machine => ({ env, signal, dry, screen, start, pause: opts.pause ?? DEFAULT_PAUSE_SECONDS });
  await new Interpreter(machine(true)).run(program.statements);
  await new Interpreter(machine(false)).run(program.statements);
}
