import { PyFloat } from "./pyJson.js";

/**
 * Python's numbers as the ported code meets them: `repr(float)`, `float(x)`, `int(x)`, `round(x)`
 * and numpy's `round(x, decimals)`.
 */

/**
 * The whitespace `int()` and `float()` skip around a number: `str.isspace()` characters but for
 * U+001C-U+001F, which CPython's number parsers do not count (`int("7\x1c")` raises).
 */
const NUMBER_SPACE =
  /^[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;
const trimNumber = (s: string) => s.replace(NUMBER_SPACE, "");

/** Python's `repr(float)` (and `str(float)`): the shortest digits, in exponent form below 1e-4 and from 1e16; `-0.0`, `nan`, `inf`. */
export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mantissa, expText] = x.toExponential().split("e") as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 16) return `${mantissa}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  const s = String(x);
  return s.includes(".") ? s : `${s}.0`;
}

/**
 * Python's `float(v)` of a number (a {@link PyFloat} too), a bool or a string of ASCII digits (whitespace around, `_`
 * between digits, `inf`, `nan`); undefined where Python raises.
 */
export function pyFloat(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  if (v instanceof PyFloat) return v.value;
  if (typeof v === "boolean") return Number(v);
  if (typeof v !== "string") return undefined;
  const t = trimNumber(v).replaceAll(/(?<=\d)_(?=\d)/g, "");
  if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith("-") ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(t)) return Number.NaN;
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t) ? Number(t) : undefined;
}

/**
 * Python's `int(v)` of a bool, a finite number (a {@link PyFloat} too; truncated) or a string of ASCII digits (whitespace
 * around, a sign, `_` between digits); undefined where Python raises.
 */
export function pyInt(v: unknown): number | undefined {
  if (typeof v === "boolean") return Number(v);
  if (typeof v === "number" || v instanceof PyFloat) return Number.isFinite(Number(v)) ? Math.trunc(Number(v)) : undefined;
  if (typeof v !== "string") return undefined;
  const t = trimNumber(v);
  return /^[+-]?\d+(?:_\d+)*$/.test(t) ? Number.parseInt(t.replaceAll("_", ""), 10) : undefined;
}

/** Python's `round(x)`: to the nearest integer, halves to even. */
export function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** numpy's `round(x, decimals)`: scale, round half to even, unscale. */
export function npRound(x: number, decimals: number): number {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** decimals;
  return roundHalfEven(x * f) / f;
}
