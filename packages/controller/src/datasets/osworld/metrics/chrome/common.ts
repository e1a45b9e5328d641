import { pyTypeName } from "../../../pycompat/pyValues.js";
import { show } from "../common/outcome.js";
import { fail } from "../../../../evaluators/verdict.js";

/** What the Chrome metrics share: Python's indexing on the getters' JSON values. */

/** A plain object (a Python dict). */
export function isDict(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * A thing Python's subscript would raise on in the agent's result (a missing key, `None[...]`):
 * OSWorld's metric errors out there; Pincer scores 0 with this reason.
 */
export class ResultWouldRaise extends Error {}

/** `v[key]` of a dict in the result; raises {@link ResultWouldRaise} where Python raises. */
export function resultKey(v: unknown, key: string): unknown {
  if (!isDict(v)) throw new ResultWouldRaise(`${pyTypeName(v)} is not subscriptable by ${show(key)}`);
  if (!Object.hasOwn(v, key)) throw new ResultWouldRaise(`KeyError: ${show(key)}`);
  return v[key];
}

/** Runs a metric body; a {@link ResultWouldRaise} becomes score 0 with its reason. */
export async function scoring(metric: string, body: () => Promise<number | { score: number; reason: string }> | number | { score: number; reason: string }) {
  try {
    return await body();
  } catch (e) {
    if (e instanceof ResultWouldRaise) return fail(`OSWorld's ${metric} raises on this result: ${e.message}`);
    throw e;
  }
}

/** Python iterates a string by characters and a list by items; anything else raises TypeError. */
export function pyIter(metric: string, v: unknown): unknown[] {
  if (typeof v === "string") return Array.from(v);
  if (Array.isArray(v)) return v;
  if (isDict(v)) return Object.keys(v);
  throw new Error(`${metric}: ${pyTypeName(v)} is not iterable`);
}
