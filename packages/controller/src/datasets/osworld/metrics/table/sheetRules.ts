import { describeSheet, parseSheetIdx, type SheetRef, type TableContext } from "./context.js";
import type { Rule, RuleVerdict } from "./dataRules.js";
import { type CellRange, type Matchable, matchValueToRule, parseMultiRange } from "./match.js";
import { openpyxlBool } from "./values.js";
import { attr, textOf, type XNode } from "./xlsx.js";

/** The sheet-level rules of `compare_table`: freeze, zoom, data_validation, row_props. */

async function rawSheet(s: SheetRef) {
  return s.book ? await s.book.sheet(s.name) : undefined;
}

const firstView = (root: XNode): XNode => root?.sheetViews?.sheetView?.[0];

/** OSWorld's `_freeze_compare_key`: frozen panes by their split, other panes also by their top-left cell. */
function freezeKey(root: XNode): string {
  const pane = firstView(root)?.pane;
  if (pane === undefined) return "no frozen panes";
  const state = String(attr(pane, "state") ?? "split").toLowerCase();
  const xs = Math.trunc(Number(attr(pane, "xSplit") ?? 0));
  const ys = Math.trunc(Number(attr(pane, "ySplit") ?? 0));
  if (state === "frozen" || state === "frozensplit") return `frozen ${xs} column(s) and ${ys} row(s)`;
  return `a ${state} pane at ${xs}/${ys}, top-left ${attr(pane, "topLeftCell") ?? "None"}`;
}

/** `freeze`: both sheets freeze the same rows and columns. */
export async function freezeRule(r: Rule, ctx: TableContext): Promise<RuleVerdict> {
  const s1 = parseSheetIdx(r.sheet_idx0, ctx);
  const s2 = parseSheetIdx(r.sheet_idx1, ctx);
  const a = await rawSheet(s1);
  if (!a) return `${describeSheet(s1)} is not there`;
  const b = await rawSheet(s2);
  if (!b) return `${describeSheet(s2)} is not there`;
  const k1 = freezeKey(a.root);
  const k2 = freezeKey(b.root);
  return k1 === k2 ? undefined : `${describeSheet(s1)} has ${k1}, ${describeSheet(s2)} has ${k2}`;
}

/** `zoom`: the sheet's zoom (100 when unset) satisfies `{method, ref}`. */
export async function zoomRule(r: Rule, ctx: TableContext): Promise<RuleVerdict> {
  const s = parseSheetIdx(r.sheet_idx, ctx);
  const sheet = await rawSheet(s);
  if (!sheet) return `${describeSheet(s)} is not there`;
  const z = Number(attr(firstView(sheet.root), "zoomScale") ?? 0);
  const zoom = z || 100;
  return matchValueToRule(zoom, { method: r.method, ref: r.ref }) ? undefined : `the zoom is ${zoom}%, wanted ${r.method} ${JSON.stringify(r.ref)}`;
}

const DV_BOOLS = ["allowBlank", "showDropDown", "showInputMessage", "showErrorMessage"];
const DV_TEXT = ["type", "operator", "errorStyle", "imeMode", "error", "errorTitle", "prompt", "promptTitle"];
/** The data-validation attributes Pincer reads. */
export const DV_ATTRIBUTES = new Set(["ranges", "sqref", "formula1", "formula2", ...DV_BOOLS, ...DV_TEXT]);

/** An openpyxl `DataValidation` attribute. */
function dvAttribute(dv: XNode, name: string): Matchable | CellRange[] {
  if (name === "ranges" || name === "sqref") return parseMultiRange(String(attr(dv, "sqref") ?? ""));
  if (name === "formula1" || name === "formula2") return dv[name] === undefined ? null : (textOf(dv[name]) ?? null);
  if (DV_BOOLS.includes(name)) return openpyxlBool(attr(dv, name));
  if (DV_TEXT.includes(name)) return attr(dv, name) ?? null;
  throw new Error(`compare_table.data_validation: attribute ${JSON.stringify(name)} is not supported`);
}

/** `data_validation`: at least as many validations as `dv_props`, each matching one of them. */
export async function dataValidationRule(r: Rule, ctx: TableContext): Promise<RuleVerdict> {
  const s = parseSheetIdx(r.sheet_idx, ctx);
  const sheet = await rawSheet(s);
  if (!sheet) return `${describeSheet(s)} is not there`;
  const dvs: XNode[] = sheet.root.dataValidations?.dataValidation ?? [];
  const props = r.dv_props as Record<string, { method: string; ref?: unknown }>[];
  if (dvs.length < props.length) return `${describeSheet(s)} has ${dvs.length} data validation(s), wanted at least ${props.length}`;
  for (const dv of dvs) {
    const ok = props.some((p) => Object.entries(p).every(([name, rule]) => matchValueToRule(dvAttribute(dv, name) as Matchable, rule)));
    if (!ok) {
      const formula = dv.formula1 === undefined ? "" : ` ${textOf(dv.formula1)}`;
      return `the data validation on ${attr(dv, "sqref")} (${attr(dv, "type") ?? "no type"}${formula}) matches none of the wanted ones`;
    }
  }
  return undefined;
}

/** The row properties Pincer reads, as openpyxl's `RowDimension` names them. */
export const ROW_PROPS = new Set(["hidden", "collapsed", "height", "ht", "outlineLevel", "outline_level", "customHeight"]);

/** openpyxl's `row_dimensions`: rows whose `<row>` has attributes other than r and spans. */
function rowDimensions(root: XNode, props: string[]): Map<number, string> {
  const out = new Map<number, string>();
  let counter = 0;
  for (const row of root.sheetData?.row ?? []) {
    const r = attr(row, "r");
    counter = r !== undefined && /^\d+$/.test(r) ? Number(r) : counter + 1;
    const keys = Object.keys(row).filter((k) => k.startsWith("@_") && !["@_r", "@_spans", "@_dyDescent"].includes(k));
    if (!keys.length) continue;
    const bool = (k: string) => openpyxlBool(attr(row, k));
    const info = props.map((p) => {
      if (p === "hidden" || p === "collapsed" || p === "customHeight") return `${p}=${bool(p)}`;
      if (p === "height" || p === "ht") return `${p}=${attr(row, "ht") === undefined ? "None" : Number(attr(row, "ht"))}`;
      return `${p}=${Number(attr(row, "outlineLevel") ?? 0)}`;
    });
    out.set(counter, info.join(", "));
  }
  return out;
}

/** `row_props`: the same rows carry the same row properties. */
export async function rowPropsRule(r: Rule, ctx: TableContext): Promise<RuleVerdict> {
  const s1 = parseSheetIdx(r.sheet_idx0, ctx);
  const s2 = parseSheetIdx(r.sheet_idx1, ctx);
  const props: string[] = [...new Set<string>(r.props ?? [])];
  const a = await rawSheet(s1);
  const b = await rawSheet(s2);
  const d1 = a ? rowDimensions(a.root, props) : new Map<number, string>();
  const d2 = b ? rowDimensions(b.root, props) : new Map<number, string>();
  for (const [row, info] of d1) {
    if (!d2.has(row)) return `row ${row} has properties in ${describeSheet(s1)} but not in ${describeSheet(s2)}`;
    if (d2.get(row) !== info) return `row ${row}: ${info} in ${describeSheet(s1)}, ${d2.get(row)} in ${describeSheet(s2)}`;
  }
  for (const row of d2.keys()) if (!d1.has(row)) return `row ${row} has properties in ${describeSheet(s2)} but not in ${describeSheet(s1)}`;
  return undefined;
}
