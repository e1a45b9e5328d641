import { pyFlagsFromNames, pyRegex } from "../../../pycompat/pyRegex.js";
import { pyCompare, pyEqual } from "../../../pycompat/pyValues.js";
import type { PyVal } from "../../../pycompat/cellValues.js";
import { parseRef } from "./xlsx.js";
import { pyFloat } from "../../../pycompat/pyNumbers.js";

/** OSWorld's `_match_value_to_rule` and the cell ranges (`MultiCellRange`) it compares. */

/** A rectangle of cells, 1-based and inclusive. */
export interface CellRange {
  minRow: number;
  minCol: number;
  maxRow: number;
  maxCol: number;
}

/** openpyxl's `MultiCellRange("A1:B2 C3")` (also from a list of range strings). */
export function parseMultiRange(spec: string | string[]): CellRange[] {
  const parts = (Array.isArray(spec) ? spec : [spec]).flatMap((s) => String(s).split(/\s+/)).filter(Boolean);
  return parts.map((p) => {
    const [a, b = a] = p.replace(/^.*!/, "").split(":");
    const from = parseRef(a!);
    const to = parseRef(b!);
    if (!from || !to) throw new Error(`not a cell range: ${JSON.stringify(p)}`);
    return {
      minRow: Math.min(from[0], to[0]),
      minCol: Math.min(from[1], to[1]),
      maxRow: Math.max(from[0], to[0]),
      maxCol: Math.max(from[1], to[1]),
    };
  });
}

const within = (a: CellRange, b: CellRange) => a.minRow >= b.minRow && a.maxRow <= b.maxRow && a.minCol >= b.minCol && a.maxCol <= b.maxCol;

/** Every range of `sub` lies within one range of `sup`. */
export const containedBy = (sub: CellRange[], sup: CellRange[]) => sub.every((r) => sup.some((s) => within(r, s)));

/** The cells of a range, row by row. */
export function* cellsOf(r: CellRange): Generator<[number, number]> {
  for (let row = r.minRow; row <= r.maxRow; row++) for (let col = r.minCol; col <= r.maxCol; col++) yield [row, col];
}

/**
 * What `xmltodict` made of a part of a cell that `read_cell_value` returns as it is (cells.ts): a
 * dict (an inline string's `<t xml:space="preserve">` with its attribute) or a list (several
 * `<t>`). Python compares and prints it as that dict or list (`str()` gives its repr).
 */
export class XmlValue {
  constructor(readonly value: Record<string, unknown> | unknown[]) {}
}

/** A value a rule can be matched against. */
export type Matchable = PyVal | CellRange[] | XmlValue | undefined;

/** Python's `a < b` (`op`) on cell values: numbers, bools and text compare; a range, a list or a date raises TypeError. */
export function pyCompareOp(a: Matchable, b: unknown, op: "lt" | "le" | "gt" | "ge"): boolean {
  if (Array.isArray(a) || Array.isArray(b)) throw new TypeError(`'${op}' not supported between ${JSON.stringify(a)} and ${JSON.stringify(b)}`);
  const c = pyCompare(a ?? null, b);
  return op === "lt" ? c < 0 : op === "le" ? c <= 0 : op === "gt" ? c > 0 : c >= 0;
}

function eq(a: Matchable, b: unknown): boolean {
  if (a instanceof XmlValue) return pyEqual(a.value, b);
  if (Array.isArray(a)) return false;
  if (Array.isArray(b) || (b !== null && typeof b === "object")) return false;
  return pyEqual(a ?? null, (b ?? null) as PyVal);
}

/** A rule `{method, ref}` as OSWorld's `_match_value_to_rule` applies it; throws where Python raises. */
export function matchValueToRule(value: Matchable, rule: { method: string; ref?: unknown }): boolean {
  const { method, ref } = rule;
  if (method.startsWith("re")) {
    // Python's re (named groups, \Z, its flags), as the other metrics run it.
    const flags = pyFlagsFromNames(method.split(".").slice(1));
    if (typeof value !== "string") throw new TypeError(`expected string for re.search, got ${JSON.stringify(value)}`);
    return pyRegex(String(ref), flags).test(value);
  }
  if (method === "eq") return eq(value, ref);
  if (method === "ne") return !eq(value, ref);
  if (method === "lt" || method === "le" || method === "gt" || method === "ge") return pyCompareOp(value, ref, method);
  if (method.startsWith("approx")) {
    const threshold = Number(method.split(":")[1]);
    const v = pyFloat(value);
    return v !== undefined && Math.abs(v - Number(ref)) <= threshold;
  }
  if (method === "spreadsheet_range") {
    const [sub, sup] = ref as [string, string];
    if (!Array.isArray(value)) throw new TypeError("spreadsheet_range needs a range value");
    return containedBy(parseMultiRange(sub), value) && containedBy(value, parseMultiRange(sup));
  }
  if (method.startsWith("range.")) {
    const [lo, hi] = ref as [unknown, unknown];
    if (!/^range\.[et][et]$/.test(method)) throw new Error(`unknown rule method ${JSON.stringify(method)}`);
    const op = (e: string) => `l${e}` as "lt" | "le";
    return pyCompareOp(lo as Matchable, value, op(method[6]!)) && pyCompareOp(value, hi, op(method[7]!));
  }
  if (method === "str_list_eq" || method === "str_set_eq") {
    if (typeof value !== "string") throw new TypeError(`${method} needs a string value, got ${JSON.stringify(value)}`);
    const items = value.replace(/^["']+|["']+$/g, "").split(",");
    const refs = (ref as unknown[]).map((r) => r as PyVal);
    if (method === "str_list_eq") return items.length === refs.length && items.every((s, i) => s === refs[i]);
    const a = new Set(items);
    const b = new Set(refs);
    return a.size === b.size && [...a].every((s) => b.has(s));
  }
  throw new Error(`unknown rule method ${JSON.stringify(method)}`);
}
