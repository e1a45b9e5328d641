import { readFile, stat } from "node:fs/promises";
import type { MetricResult } from "../../metric.js";

/** A failing score with the reason a researcher reads. */
export function fail(reason: string): MetricResult {
  return { score: 0, reason };
}

/** Score 1, or 0 with `reason` (OSWorld's metrics here are all pass/fail). */
export function passIf(ok: boolean, reason: string): MetricResult {
  return ok ? 1 : fail(reason);
}

/** A local path as a getter gives it: a non-empty string, or null when the getter had nothing (missing file). */
export function pathOf(x: unknown): string | null {
  return typeof x === "string" && x !== "" ? x : null;
}

/** The file's bytes, or null when it does not exist (OSWorld would fail opening it; the metric scores 0). */
export async function readBytes(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "EISDIR") return null;
    throw e;
  }
}

/** The file's size in bytes (`os.path.getsize`), or null when it does not exist. */
export async function fileSize(path: string): Promise<number | null> {
  try {
    return (await stat(path)).size;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
}

/**
 * The file as Python's `open(path).read()` gives it (UTF-8, universal newlines: `\r\n` and `\r`
 * become `\n`), or null when it does not exist or is not valid UTF-8 (where Python raises).
 */
export async function readText(path: string, universalNewlines = true): Promise<string | null> {
  const bytes = await readBytes(path);
  if (bytes === null) return null;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
  return universalNewlines ? text.replace(/\r\n?/g, "\n") : text;
}

/** The lines of a text as Python iterates a file (`for l in f`, `readlines()`): each keeps its `\n`. */
export function pyLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** Python's `a == b` on JSON values: `True == 1`, lists and dicts compared deeply. */
export function pyEq(a: unknown, b: unknown): boolean {
  const num = (x: unknown) => (typeof x === "boolean" ? Number(x) : x);
  const x = num(a);
  const y = num(b);
  if (typeof x === "number" || typeof y === "number") return x === y;
  if (x === null || y === null || typeof x !== "object" || typeof y !== "object") return x === y;
  if (Array.isArray(x) || Array.isArray(y)) {
    if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
    return x.every((v, i) => pyEq(v, y[i]));
  }
  const xo = x as Record<string, unknown>;
  const yo = y as Record<string, unknown>;
  const keys = Object.keys(xo);
  if (keys.length !== Object.keys(yo).length) return false;
  return keys.every((k) => Object.hasOwn(yo, k) && pyEq(xo[k], yo[k]));
}

/** Python's `str(v)` for the JSON scalars rule values are (`True`, `None`, `1`, `'s'` as `s`). */
export function pyStr(v: unknown): string {
  if (v === true) return "True";
  if (v === false) return "False";
  if (v === null || v === undefined) return "None";
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : JSON.stringify(v);
}

/** A short quoted rendering of a value for reasons. */
export function show(v: unknown, max = 80): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** The `rules` object a `rule` getter gave, or an error naming the metric (the task is malformed). */
export function rulesOf(metric: string, expected: unknown): Record<string, unknown> {
  if (expected === null || typeof expected !== "object" || Array.isArray(expected)) {
    throw new Error(`${metric}: expected a rules object, got ${show(expected)}`);
  }
  return expected as Record<string, unknown>;
}
