import { PyError, pyCellAt, readCellStyle, readCellValue, XmlValue } from "./cells.js";
import { describeSheet, parseSheetIdx, type TableContext } from "./context.js";
import { cellsOf, type Matchable, matchValueToRule, parseMultiRange } from "./match.js";
import { readExcelLikePandas } from "./pandas.js";
import { frameDifference, roundFrame } from "../../../pycompat/pandasExcel.js";
import { printedSheetLines } from "./textFiles.js";
import { pyLower, stripChars } from "../../../pycompat/pyStr.js";
import { cellStr, type PyVal, showVal } from "../../../pycompat/cellValues.js";
import { pyRepr } from "../../../pycompat/pyValues.js";
import { colLetter } from "./xlsx.js";
import { fuzzRatio } from "../../../pycompat/similarity.js";

/** A rule's verdict: undefined when it holds, else why not. */
export type RuleVerdict = string | undefined;

/** A rule as written in the task (`type` plus its own keys). */
// biome-ignore lint/suspicious/noExplicitAny: rules are free-form JSON, validated per type
export type Rule = { type: string } & Record<string, any>;

/** `sheet_name`: both workbooks list the same sheets in the same order. */
export function sheetNameRule(ctx: TableContext): RuleVerdict {
  if (!ctx.enames) return "there is no expected file to compare sheet names with";
  const same = ctx.rnames.length === ctx.enames.length && ctx.rnames.every((n, i) => n === ctx.enames![i]);
  return same ? undefined : `sheet names differ: the result has ${JSON.stringify(ctx.rnames)}, expected ${JSON.stringify(ctx.enames)}`;
}

/** `sheet_data`: the two sheets read by pandas, rounded to `precision` decimals, are equal. */
export async function sheetDataRule(r: Rule, ctx: TableContext): Promise<RuleVerdict> {
  const s1 = parseSheetIdx(r.sheet_idx0, ctx);
  const s2 = parseSheetIdx(r.sheet_idx1, ctx);
  const f1 = s1.book ? await readExcelLikePandas(s1.book, s1.name) : undefined;
  if (!f1) return `${describeSheet(s1)} (sheet_idx0 ${s1.label}) cannot be read`;
  const f2 = s2.book ? await readExcelLikePandas(s2.book, s2.name) : undefined;
  if (!f2) return `${describeSheet(s2)} (sheet_idx1 ${s2.label}) cannot be read`;
  const precision = typeof r.precision === "number" ? r.precision : 4;
  return frameDifference(roundFrame(f1, precision), roundFrame(f2, precision), describeSheet(s1), describeSheet(s2));
}

/** `sheet_print`: the CSV exports of the two sheets have the same lines (trailing blank lines aside). */
export async function sheetPrintRule(r: Rule, ctx: TableContext): Promise<RuleVerdict> {
  const s1 = parseSheetIdx(r.sheet_idx0, ctx);
  const s2 = parseSheetIdx(r.sheet_idx1, ctx);
  let l1 = s1.file ? await printedSheetLines(s1.file, s1.name) : undefined;
  if (!l1) return `the CSV export of ${describeSheet(s1)} is not there`;
  let l2 = s2.file ? await printedSheetLines(s2.file, s2.name) : undefined;
  if (!l2) return `the CSV export of ${describeSheet(s2)} is not there`;
  if (r.ignore_case) {
    l1 = l1.map(pyLower);
    l2 = l2.map(pyLower);
  }
  const n1 = l1.length;
  const n2 = l2.length;
  if (n1 !== n2) return `the CSV exports differ in length: ${n1} line(s) vs ${n2}`;
  // Lines are held last-first; report the first differing line from the top.
  for (let i = n1 - 1; i >= 0; i--) {
    if (l1[i] !== l2[i]) return `printed line ${n1 - i} differs: ${JSON.stringify(l1[i])} vs ${JSON.stringify(l2[i])}`;
  }
  return undefined;
}

/** One `sheet_fuzzy` sub-rule's normalisation of a cell's text. */
function normalise(value: string, rl: Rule): string {
  let v = value;
  for (const [from, to] of (rl.normalization ?? []) as [string, string][]) v = v.split(from).join(to);
  if ("trim_leadings" in rl) v = stripChars(v, String(rl.trim_leadings), "left");
  if ("trim_trailings" in rl) v = stripChars(v, String(rl.trim_trailings), "right");
  if ("ignore_chars" in rl) {
    const ignore = new Set(Array.from(String(rl.ignore_chars)));
    v = Array.from(v)
      .filter((ch) => !ignore.has(ch))
      .join("");
  }
  return rl.ignore_case ? pyLower(v) : v;
}

/** Python's `str()` of what `read_cell_value` gave. */
const valueStr = (v: PyVal | XmlValue): string => (v instanceof XmlValue ? pyRepr(v.value) : cellStr(v));

/** A value for a reason. */
const valueShown = (v: PyVal | XmlValue): string => (v instanceof XmlValue ? pyRepr(v.value) : showVal(v));

/** `sheet_fuzzy`: cells of the given ranges compared as text, exactly, by inclusion or fuzzily. */
export async function sheetFuzzyRule(r: Rule, ctx: TableContext): Promise<RuleVerdict> {
  const s1 = parseSheetIdx(r.sheet_idx0, ctx);
  const s2 = parseSheetIdx(r.sheet_idx1, ctx);
  if (!s1.book || !s2.book) return "there is no expected file to compare with";
  const failures: string[] = [];
  for (const rl of r.rules as Rule[]) {
    for (const range of parseMultiRange(rl.range)) {
      for (const [row, col] of cellsOf(range)) {
        const coord = `${colLetter(col)}${row}`;
        const v1 = normalise(valueStr(await readCellValue(s1.book, s1.name, coord)), rl);
        const v2 = normalise(valueStr(await readCellValue(s2.book, s2.name, coord)), rl);
        let ok: boolean;
        if (rl.type === "includes") ok = v1.includes(v2);
        else if (rl.type === "included_by") ok = v2.includes(v1);
        else if (rl.type === "fuzzy_match")
          ok = fuzzRatio(v1, v2) >= (rl.threshold === undefined ? 85 : Number(rl.threshold)); // True is 1
        else if (rl.type === "exact_match") ok = v1 === v2;
        else throw new Error(`unknown sheet_fuzzy match type ${JSON.stringify(rl.type)}`);
        if (!ok) failures.push(`${coord}: ${JSON.stringify(v1)} vs ${JSON.stringify(v2)} (${rl.type})`);
      }
    }
  }
  if (!failures.length) return undefined;
  return `${failures.length} cell(s) do not match: ${failures.slice(0, 3).join("; ")}${failures.length > 3 ? "; …" : ""}`;
}

/**
 * `check_cell`: a cell's value and style props each satisfy their `{method, ref}` rule. OSWorld runs
 * the whole check in a `try` that scores 0 on any exception: a coordinate that is not one, a value
 * a rule cannot compare, an unknown method.
 */
export async function checkCellRule(r: Rule, ctx: TableContext): Promise<RuleVerdict> {
  const s = parseSheetIdx(r.sheet_idx, ctx);
  const coord = String(r.coordinate);
  try {
    const sheet = s.book ? await s.book.sheet(s.name) : undefined;
    if (!s.book || !sheet) return `${describeSheet(s)} is not there`;
    const cell = pyCellAt(s.book, sheet, coord);
    for (const [prop, rule] of Object.entries(r.props as Record<string, { method: string; ref?: unknown }>)) {
      let val: PyVal | XmlValue;
      // OSWorld reads the value in a try of its own: an exception there makes it None.
      if (prop === "value") val = await readCellValue(s.book, s.name, coord).catch(() => null);
      else {
        try {
          val = readCellStyle(s.book, prop, cell);
        } catch (e) {
          if (!(e instanceof PyError)) throw e;
          val = null;
        }
      }
      const matched = matchValueToRule(val as Matchable, rule);
      if (!matched) return `${s.name}!${coord} ${prop} is ${valueShown(val)}, wanted ${rule.method} ${JSON.stringify(rule.ref)}`;
    }
  } catch (e) {
    return `${coord}: ${(e as Error).message} (OSWorld's check_cell scores 0 when it raises)`;
  }
  return undefined;
}
