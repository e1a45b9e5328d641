import { readFile } from "node:fs/promises";
import { PyFloat } from "./pyJson.js";

/**
 * Python's semantics for the values OSWorld's metrics compare (JSON values as Python sees them):
 * `==`, `in`, ordering, `str()`, `str.strip()`, `str.splitlines()` and reading a file in text mode.
 */

/** Python's whitespace (`str.isspace()`), as a regex character-class body. */
export const PY_WS = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const STRIP = new RegExp(`^[${PY_WS}]+|[${PY_WS}]+$`, "g");

/** Python's `str.strip()` (no argument). */
export function pyStrip(s: string): string {
  return s.replace(STRIP, "");
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: Python's line boundaries include these control characters
const LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

/** Python's `str.splitlines()`: splits on every line boundary Python knows; no trailing empty line. */
export function pySplitlines(s: string): string[] {
  if (s === "") return [];
  const lines = s.split(LINE_BREAK);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** A file's text as Python's `open(path).read()` gives it: strict UTF-8 (BOM kept), universal newlines. */
export async function readPyText(path: string): Promise<string> {
  const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(await readFile(path));
  return text.replace(/\r\n?/g, "\n");
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** A Python int or float (a whole float read from JSON as a PyFloat included), or a bool (an int in Python). */
const isNumeric = (v: unknown) => typeof v === "number" || typeof v === "boolean" || v instanceof PyFloat;

/** Python's `a == b` for JSON-like values (`True == 1`, dicts compared regardless of key order). */
export function pyEqual(a: unknown, b: unknown): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  if (isNumeric(a) && isNumeric(b)) return Number(a) === Number(b);
  if (typeof a === "string" || typeof b === "string") return a === b;
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => pyEqual(x, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && pyEqual(a[k], b[k]));
  }
  return false;
}

/** Python's type name of a JSON-like value, for error messages. */
export function pyTypeName(v: unknown): string {
  if (v === null || v === undefined) return "NoneType";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  if (v instanceof PyFloat) return "float";
  if (typeof v === "string") return "str";
  if (Array.isArray(v)) return "list";
  return "dict";
}

/** Python's `item in container`; throws (as Python raises TypeError) where Python cannot answer. */
export function pyContains(container: unknown, item: unknown): boolean {
  if (typeof container === "string") {
    if (typeof item !== "string") throw new TypeError(`'in <string>' requires string as left operand, not ${pyTypeName(item)}`);
    return container.includes(item);
  }
  if (Array.isArray(container)) return container.some((x) => pyEqual(x, item));
  if (isPlainObject(container)) {
    if (Array.isArray(item) || isPlainObject(item)) throw new TypeError(`unhashable type: '${pyTypeName(item)}'`);
    return typeof item === "string" && Object.hasOwn(container, item);
  }
  throw new TypeError(`argument of type '${pyTypeName(container)}' is not iterable`);
}

function compareCodePoints(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** Python's ordering of two values (negative, 0, positive); throws where Python raises TypeError. */
export function pyCompare(a: unknown, b: unknown): number {
  if (isNumeric(a) && isNumeric(b)) return Number(a) - Number(b);
  if (typeof a === "string" && typeof b === "string") return compareCodePoints(a, b);
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (!pyEqual(a[i], b[i])) return pyCompare(a[i], b[i]);
    return a.length - b.length;
  }
  throw new TypeError(`'<' not supported between instances of '${pyTypeName(a)}' and '${pyTypeName(b)}'`);
}

/** Python's `sorted(v)`: a list or string sorted, a dict's keys sorted; throws for what is not iterable or not comparable. */
export function pySorted(v: unknown): unknown[] {
  let items: unknown[];
  if (typeof v === "string") items = Array.from(v);
  else if (Array.isArray(v)) items = [...v];
  else if (isPlainObject(v)) items = Object.keys(v);
  else throw new TypeError(`'${pyTypeName(v)}' object is not iterable`);
  return items.sort(pyCompare);
}

/** Python's `repr()` of a float: the shortest digits, in exponent form below 1e-4 and from 1e16. */
function floatRepr(v: number): string {
  if (Number.isNaN(v)) return "nan";
  if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
  const [mantissa, expText] = v.toExponential().split("e") as [string, string];
  const exp = Number(expText);
  if (exp >= -4 && exp < 16) return Number.isInteger(v) ? `${v}.0` : String(v);
  return `${mantissa}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
}

function strRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  const body = s.replace(/[\\\n\r\t]/g, (c) => ({ "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" })[c]!);
  return quote + (quote === "'" ? body.replaceAll("'", "\\'") : body) + quote;
}

/** Python's `repr()` of a JSON-like value (a whole number prints as an int unless it is a PyFloat). */
export function pyRepr(v: unknown): string {
  if (typeof v === "string") return strRepr(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  if (isPlainObject(v))
    return `{${Object.entries(v)
      .map(([k, x]) => `${strRepr(k)}: ${pyRepr(x)}`)
      .join(", ")}}`;
  return pyStr(v);
}

/** Python's `str()` of a JSON-like value (a whole number prints as an int unless it is a PyFloat: `5.0`). */
export function pyStr(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (v instanceof PyFloat) return floatRepr(v.value);
  if (typeof v === "number") return Number.isInteger(v) && Math.abs(v) < 1e16 ? String(v) : floatRepr(v);
  if (typeof v === "string") return v;
  if (v instanceof Date) return v.toISOString();
  return pyRepr(v);
}
