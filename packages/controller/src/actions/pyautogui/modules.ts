import { CommandExitError } from "@pincer/shared";
import { type Args, PyArgumentError } from "./args.js";
import { type CallSpec, MAX_STEPS, type Machine, sleepSeconds } from "./calls.js";
import type { PyValue } from "./tokens.js";

/** A command's default time limit, in seconds, when the script gives no `timeout`. */
export const COMMAND_TIMEOUT_SECONDS = 120;

const SUBPROCESS_PARAMS = [
  "args",
  "stdin",
  "input",
  "stdout",
  "stderr",
  "capture_output",
  "shell",
  "cwd",
  "timeout",
  "check",
  "text",
  "encoding",
  "universal_newlines",
];

/** The argv of a subprocess call: a list of strings, or a string run by `sh -c` with shell=True. */
function argvOf(a: Args): string[] {
  const cmd = a.get("args");
  if (typeof cmd === "string") return a.get("shell") === true ? ["sh", "-c", cmd] : [cmd];
  if (!Array.isArray(cmd) || cmd.length === 0 || cmd.some((c) => typeof c !== "string" && typeof c !== "number"))
    throw new PyArgumentError(`${a.fn}(): args must be a command line or a non-empty list of strings`);
  if (a.get("shell") === true) return ["sh", "-c", cmd.map(String).join(" ")];
  return cmd.map(String);
}

/** Runs a subprocess call's command; `result` picks what the call returns. */
function subprocess(result: "code" | "stdout", check: boolean): CallSpec {
  return {
    params: SUBPROCESS_PARAMS,
    async run(a, m) {
      const argv = argvOf(a);
      const input = a.get("input");
      const cwd = a.get("cwd");
      const timeout = a.seconds("timeout", COMMAND_TIMEOUT_SECONDS);
      if (m.dry) return result === "code" ? 0 : "";
      const r = await m.env.process.run(argv, {
        signal: m.signal,
        commandTimeoutMs: Math.round(timeout * 1000),
        ...(typeof input === "string" ? { stdin: input } : {}),
        ...(typeof cwd === "string" ? { cwd } : {}),
      });
      if ((check || a.get("check") === true) && r.exitCode !== 0)
        throw new CommandExitError(`${a.fn}: ${JSON.stringify(argv)} exited with ${r.exitCode ?? r.signal}: ${r.stderr.trim().slice(-300)}`, r);
      return result === "code" ? (r.exitCode ?? -1) : r.stdout;
    },
  };
}

const SUBPROCESS: Record<string, CallSpec> = {
  run: subprocess("code", false),
  call: subprocess("code", false),
  check_call: subprocess("code", true),
  check_output: subprocess("stdout", true),
  Popen: {
    params: SUBPROCESS_PARAMS,
    async run(a, m) {
      const argv = argvOf(a);
      if (!m.dry) await m.env.process.launch(argv, { signal: m.signal });
      return null;
    },
  },
};

const OS: Record<string, CallSpec> = {
  system: {
    params: ["command"],
    async run(a, m) {
      const cmd = a.str("command");
      if (m.dry) return 0;
      const r = await m.env.process.run(["sh", "-c", cmd], { signal: m.signal, commandTimeoutMs: COMMAND_TIMEOUT_SECONDS * 1000 });
      // os.system answers with the wait status: the exit code shifted by 8.
      return (r.exitCode ?? 1) * 256;
    },
  },
};

const PYPERCLIP: Record<string, CallSpec> = {
  copy: {
    params: ["text"],
    async run(a, m) {
      const v = a.get("text");
      const text = typeof v === "string" ? v : pyStr(v ?? null);
      if (!m.dry) await m.env.clipboard.set(text, { signal: m.signal });
      return null;
    },
  },
  paste: { params: [], run: async (_a, m) => (m.dry ? "" : m.env.clipboard.get({ signal: m.signal })) },
};

const TIME: Record<string, CallSpec> = {
  sleep: { params: ["secs"], run: (a, m) => sleepSeconds(a.seconds("secs"), m).then(() => null) },
};

/** Python's str() of a value. */
export function pyStr(v: PyValue): string {
  if (v === null) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "string") return v;
  if (typeof v === "number") return String(v);
  return `[${v.map((x) => (typeof x === "string" ? `'${x}'` : pyStr(x))).join(", ")}]`;
}

function range(a: Args): PyValue[] {
  const ints = a.rest.map((v) => {
    if (typeof v !== "number" || !Number.isInteger(v)) throw new PyArgumentError(`range(): arguments must be whole numbers, not ${JSON.stringify(v)}`);
    return v;
  });
  if (ints.length < 1 || ints.length > 3) throw new PyArgumentError("range() takes 1 to 3 arguments");
  const [start, stop, step] = ints.length === 1 ? [0, ints[0]!, 1] : [ints[0]!, ints[1]!, ints[2] ?? 1];
  if (step === 0) throw new PyArgumentError("range(): step must not be zero");
  const n = Math.max(0, Math.ceil((stop - start) / step));
  if (n > MAX_STEPS) throw new PyArgumentError(`range(): ${n} items is more than the ${MAX_STEPS} a script may loop over`);
  return Array.from({ length: n }, (_, i) => start + i * step);
}

const pure = (params: readonly string[], f: (a: Args) => PyValue, varargs = false): CallSpec => ({ params, varargs, run: async (a) => f(a) });

/** Python's round(), to even on a tie. */
function pyRound(x: number, digits: number): number {
  const f = 10 ** digits;
  const v = x * f;
  const r = Math.round(v);
  return (Math.abs(v % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r) / f;
}

const BUILTINS: Record<string, CallSpec> = {
  range: pure([], range, true),
  len: pure(["obj"], (a) => {
    const v = a.get("obj");
    if (typeof v !== "string" && !Array.isArray(v)) throw new PyArgumentError(`len(): ${JSON.stringify(v)} has no length`);
    return [...v].length;
  }),
  int: pure(["x"], (a) => {
    const v = a.get("x");
    const n = typeof v === "string" && /^\s*[-+]?\d+\s*$/.test(v) ? Number(v) : typeof v === "string" ? Number.NaN : Math.trunc(a.num("x"));
    if (Number.isNaN(n)) throw new PyArgumentError(`int(): invalid literal ${JSON.stringify(v)}`);
    return n;
  }),
  float: pure(["x"], (a) => (typeof a.get("x") === "string" ? Number(a.str("x")) : a.num("x"))),
  str: pure(["object"], (a) => pyStr(a.values.get("object") ?? "")),
  round: pure(["number", "ndigits"], (a) => pyRound(a.num("number"), a.count("ndigits", 0))),
  abs: pure(["x"], (a) => Math.abs(a.num("x"))),
  min: pure([], (a) => Math.min(...a.rest.map((_, i) => numAt(a, i))), true),
  max: pure([], (a) => Math.max(...a.rest.map((_, i) => numAt(a, i))), true),
  // Output goes nowhere an agent sees, as in OSWorld; it performs nothing.
  print: { params: ["sep", "end"], varargs: true, run: async () => null },
};

function numAt(a: Args, i: number): number {
  const v = a.rest[i];
  if (typeof v !== "number") throw new PyArgumentError(`${a.fn}(): ${JSON.stringify(v)} is not a number`);
  return v;
}

/** Calls outside pyautogui, by canonical name. */
export const MODULE_CALLS: Record<string, CallSpec> = Object.fromEntries([
  ...Object.entries(TIME).map(([k, v]) => [`time.${k}`, v] as const),
  ...Object.entries(PYPERCLIP).map(([k, v]) => [`pyperclip.${k}`, v] as const),
  ...Object.entries(SUBPROCESS).map(([k, v]) => [`subprocess.${k}`, v] as const),
  ...Object.entries(OS).map(([k, v]) => [`os.${k}`, v] as const),
  ...Object.entries(BUILTINS),
]);

/** Module constants a script may name as values. */
export const CONSTANTS: Record<string, PyValue> = {
  "subprocess.PIPE": -1,
  "subprocess.STDOUT": -2,
  "subprocess.DEVNULL": -3,
  "pyautogui.LEFT": "left",
  "pyautogui.RIGHT": "right",
  "pyautogui.MIDDLE": "middle",
  "pyautogui.PRIMARY": "primary",
  "pyautogui.SECONDARY": "secondary",
  ...Object.fromEntries(["linear", "easeInQuad", "easeOutQuad", "easeInOutQuad", "easeInBounce", "easeInElastic"].map((t) => [`pyautogui.${t}`, t])),
};

export type { Machine };
