import { pyCompare, pyEqual, pyTypeName } from "../../../pycompat/pyValues.js";
import { pyFlagsFromNames, pyRegex } from "../../../pycompat/pyRegex.js";
import { pyFloat } from "../../../pycompat/pyNumbers.js";

/**
 * OSWorld's `_match_value_to_rule(value, rule)` (metrics/utils.py): `rule.method` is `re` (with
 * flags, `re.I.M`), `eq`/`ne`/`le`/`lt`/`ge`/`gt` (Python's operators), `approx:THRESHOLD`,
 * `range.XY` (`range.te`: ref[0] < value <= ref[1]), or `str_list_eq`/`str_set_eq` (the value, a
 * comma-separated string, as a list or set of strings). `spreadsheet_range` is not ported here (it
 * needs a spreadsheet's cell ranges). Another method raises NotImplementedError, as in Python.
 */

/** A rule as the task writes it. */
export interface ValueRule {
  method: string;
  ref?: unknown;
}

const OPERATORS: Record<string, (a: unknown, b: unknown) => boolean> = {
  eq: pyEqual,
  ne: (a, b) => !pyEqual(a, b),
  le: (a, b) => pyCompare(a, b) <= 0,
  lt: (a, b) => pyCompare(a, b) < 0,
  ge: (a, b) => pyCompare(a, b) >= 0,
  gt: (a, b) => pyCompare(a, b) > 0,
};

/** True when the rule's method names one this port cannot run (`spreadsheet_range`). */
export function ruleUnsupported(rule: ValueRule): boolean {
  return rule.method === "spreadsheet_range";
}

/**
 * Whether `value` matches the rule; throws where Python raises (a regex on a non-string, ordering
 * values Python cannot order), which OSWorld's callers turn into a score of 0.
 */
export function matchValueToRule(value: unknown, rule: ValueRule): boolean {
  const { method, ref } = rule;
  if (method.startsWith("re")) {
    if (typeof value !== "string") throw new TypeError(`expected string or bytes-like object, got '${pyTypeName(value)}'`);
    return pyRegex(String(ref), pyFlagsFromNames(method.split(".").slice(1))).test(value);
  }
  const op = OPERATORS[method];
  if (op) return op(value, ref);
  if (method.startsWith("approx")) {
    const threshold = Number(method.split(":")[1]);
    const v = pyFloat(value);
    return v !== undefined && Math.abs(v - Number(ref)) <= threshold;
  }
  if (method === "spreadsheet_range") throw new Error("_match_value_to_rule method spreadsheet_range is not supported");
  if (method.startsWith("range.")) {
    const [lo, hi] = ref as [unknown, unknown];
    const less = (c: string) => (c === "e" ? OPERATORS.le! : c === "t" ? OPERATORS.lt! : undefined);
    const left = less(method[6] ?? "");
    const right = less(method[7] ?? "");
    if (!left || !right) throw new Error(`_match_value_to_rule: unknown method ${method}`);
    return left(lo, value) && right(value, hi);
  }
  if (method === "str_list_eq" || method === "str_set_eq") return strContainerEq(value, ref, method === "str_set_eq");
  throw new NotImplementedError(`_match_value_to_rule: unknown method ${JSON.stringify(method)}`);
}

/** Python's NotImplementedError, which `_match_value_to_rule` raises for a method it does not know. */
export class NotImplementedError extends Error {}

/** `str_list_eq`/`str_set_eq`: `value.strip("\"'").split(",")` against `list(ref)` (or both as sets). */
function strContainerEq(value: unknown, ref: unknown, asSet: boolean): boolean {
  if (typeof value !== "string") throw new TypeError(`'${pyTypeName(value)}' object has no attribute 'strip'`);
  const items = value.replace(/^["']+|["']+$/g, "").split(",");
  const refs: unknown[] = typeof ref === "string" ? Array.from(ref) : Array.isArray(ref) ? ref : [];
  if (typeof ref !== "string" && !Array.isArray(ref)) throw new TypeError(`'${pyTypeName(ref)}' object is not iterable`);
  if (!asSet) return items.length === refs.length && items.every((s, i) => pyEqual(s, refs[i]));
  const has = (list: unknown[], x: unknown) => list.some((y) => pyEqual(x, y));
  return items.every((s) => has(refs, s)) && refs.every((r) => has(items, r));
}
