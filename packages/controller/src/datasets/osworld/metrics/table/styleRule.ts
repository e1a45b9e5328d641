import { mergedRanges, PyError, pyCell, readCellStyle, readCellValue } from "./cells.js";
import { describeSheet, parseSheetIdx, type SheetRef, type TableContext } from "./context.js";
import type { Rule, RuleVerdict } from "./dataRules.js";
import { cellsOf, parseMultiRange } from "./match.js";
import { type PyVal, showVal } from "../../../pycompat/cellValues.js";
import { attr, type Book, colLetter, type RawSheet, type XNode } from "./xlsx.js";

/**
 * `style`: OSWorld's `load_xlsx_styles` on both sheets must give the same map of cell → style props,
 * over every cell from A1 to the sheet's last row and column, with conditional formats applied.
 */

type StyleMap = Map<string, PyVal[]>;

/** A `cellIs` reference OSWorld's formula engine computes without inputs: a number, text or boolean literal. */
function literal(formula: string): PyVal | "needs-input" {
  const f = formula.trim();
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(f)) return Number(f);
  if (/^"([^"]|"")*"$/.test(f)) return f.slice(1, -1).replace(/""/g, '"');
  if (/^(TRUE|FALSE)$/i.test(f)) return f.toUpperCase() === "TRUE";
  if (/\$?[A-Za-z]{1,3}\$?\d+/.test(f)) return "needs-input";
  throw new Error(`compare_table.style: conditional format formula ${JSON.stringify(formula)} cannot be evaluated by Pincer`);
}

/** OSWorld's `_process_xlsx_cf_operator`: a TypeError (text vs number) is false. */
function cfOperator(op: string, v: PyVal, refs: PyVal[]): boolean {
  const cmp = (a: PyVal, b: PyVal | undefined): number | undefined => {
    if (b === undefined) return undefined;
    const num = (x: PyVal) => typeof x === "number" || typeof x === "boolean";
    if (num(a) && num(b)) return Number(a) - Number(b);
    if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
    return undefined;
  };
  const c = cmp(v, refs[0]);
  if (op === "equal") return c === 0;
  if (op === "notEqual") return c === undefined ? typeof refs[0] !== "undefined" : c !== 0;
  if (["lessThan", "lessThanOrEqual", "greaterThan", "greaterThanOrEqual"].includes(op)) {
    if (c === undefined) return false;
    return op === "lessThan" ? c < 0 : op === "lessThanOrEqual" ? c <= 0 : op === "greaterThan" ? c > 0 : c >= 0;
  }
  if (op === "between" || op === "notBetween") {
    if (refs.length < 2 || refs.some((r) => typeof r !== "number")) return false;
    const lo = Math.min(...(refs as number[]));
    const hi = Math.max(...(refs as number[]));
    if (typeof v !== "number") return false;
    return op === "between" ? v >= lo && v <= hi : v < lo || v > hi;
  }
  throw new Error(`compare_table.style: conditional format operator ${JSON.stringify(op)} is not implemented by OSWorld either`);
}

/** The cells one conditional-format rule makes active, as OSWorld tests them. */
async function activeCells(book: Book, name: string, fmt: XNode, rule: XNode): Promise<[number, number][] | undefined> {
  const type = String(attr(rule, "type") ?? "");
  if (type !== "cellIs") throw new Error(`compare_table.style: conditional formats of type ${JSON.stringify(type)} cannot be evaluated by Pincer`);
  const refs: PyVal[] = [];
  for (const f of rule.formula ?? []) {
    const v = literal(String(typeof f === "object" ? (f["#text"] ?? "") : f));
    if (v === "needs-input") return undefined; // OSWorld's formula call raises and it skips the rule
    refs.push(v);
  }
  const op = String(attr(rule, "operator") ?? "");
  const out: [number, number][] = [];
  let nothings = 0;
  for (const range of parseMultiRange(String(attr(fmt, "sqref") ?? ""))) {
    for (const [row, col] of cellsOf(range)) {
      const v = await readCellValue(book, name, `${colLetter(col)}${row}`);
      if (v === null) {
        nothings++;
        if (nothings > 50) break;
        continue;
      }
      // An inline string read as a dict (XmlValue) compares with nothing, as a date does.
      if (cfOperator(op, v as PyVal, refs)) out.push([row, col]);
    }
  }
  return out;
}

/** Rows and columns openpyxl's `iter_cols()` covers: A1 to the last cell it holds. */
function extent(sheet: RawSheet, merged: ReturnType<typeof mergedRanges>): [number, number] {
  let maxRow = 1;
  let maxCol = 1;
  for (const c of sheet.cells.values()) {
    maxRow = Math.max(maxRow, c.row);
    maxCol = Math.max(maxCol, c.col);
  }
  for (const m of merged) {
    maxRow = Math.max(maxRow, m.maxRow);
    maxCol = Math.max(maxCol, m.maxCol);
  }
  return [maxRow, maxCol];
}

/** OSWorld's `load_xlsx_styles`; throws {@link PyError} where it would crash. */
export async function loadXlsxStyles(s: SheetRef, props: string[]): Promise<StyleMap> {
  const out: StyleMap = new Map();
  const sheet = s.book ? await s.book.sheet(s.name) : undefined;
  if (!s.book || !sheet) return out;
  const book = s.book;
  const merged = mergedRanges(sheet);
  const [maxRow, maxCol] = extent(sheet, merged);
  for (let col = 1; col <= maxCol; col++) {
    for (let row = 1; row <= maxRow; row++) {
      const cell = pyCell(book, sheet, row, col, merged);
      out.set(
        `${colLetter(col)}${row}`,
        props.map((p) => readCellStyle(book, p, cell)),
      );
    }
  }
  const dxfs: XNode[] = book.styles?.dxfs?.dxf ?? [];
  for (const fmt of sheet.root.conditionalFormatting ?? []) {
    for (const rule of fmt.cfRule ?? []) {
      const cells = await activeCells(book, s.name, fmt, rule);
      if (!cells) continue;
      const dxfId = attr(rule, "dxfId");
      const dxf = dxfId === undefined ? undefined : dxfs[Number(dxfId)];
      for (const [row, col] of cells) {
        const cell = pyCell(book, sheet, row, col, merged);
        out.set(
          `${colLetter(col)}${row}`,
          props.map((p) => (dxf ? readCellStyle(book, p, cell, dxf) : nullDxf(p))),
        );
      }
    }
  }
  return out;
}

/** A rule without a differential style: `None.font` raises, fills read as None. */
function nullDxf(prop: string): PyVal {
  if (prop === "bgcolor" || prop === "fgcolor" || prop === "fill_type" || prop === "merge") return null;
  throw new PyError("the conditional format has no differential style");
}

const sameVals = (a: PyVal[], b: PyVal[]) => a.length === b.length && a.every((v, i) => v === b[i]);

/** The `style` rule. */
export async function styleRule(r: Rule, ctx: TableContext): Promise<RuleVerdict> {
  const props: string[] = r.props ?? [];
  const s1 = parseSheetIdx(r.sheet_idx0, ctx);
  const s2 = parseSheetIdx(r.sheet_idx1, ctx);
  let m1: StyleMap;
  let m2: StyleMap;
  try {
    m1 = await loadXlsxStyles(s1, props);
    m2 = await loadXlsxStyles(s2, props);
  } catch (e) {
    if (e instanceof PyError) return `OSWorld's style reader fails on these files: ${e.message}`;
    throw e;
  }
  for (const [coord, v1] of m1) {
    const v2 = m2.get(coord);
    if (!v2) return `${describeSheet(s1)} has cell ${coord} but ${describeSheet(s2)} does not reach it`;
    if (!sameVals(v1, v2)) {
      const shown = (vs: typeof v1) => vs.map((v) => showVal(v)).join("/");
      return `${coord} ${props.join("/")}: ${shown(v1)} in ${describeSheet(s1)}, ${shown(v2)} in ${describeSheet(s2)}`;
    }
  }
  if (m2.size !== m1.size) return `${describeSheet(s2)} covers more cells (${m2.size}) than ${describeSheet(s1)} (${m1.size})`;
  return undefined;
}
