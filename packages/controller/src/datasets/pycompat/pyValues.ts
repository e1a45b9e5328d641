import { PyFloat } from "./pyJson.js";
import { floatRepr } from "./pyNumbers.js";

/**
 * Python's semantics for the values the ported metrics compare (JSON values as Python sees them):
 * `==`, `in`, ordering, `sorted()`, truthiness, `type()`, `repr()` and `str()`.
 */

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

/** Python's `bool(v)` of a JSON-like value: None, False, 0, "", [] and {} are false. */
export function pyTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === "") return false;
  if (v instanceof PyFloat) return v.value !== 0;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") return Object.keys(v).length > 0;
  return true;
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
