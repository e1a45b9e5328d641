import type { XEl } from "../office/xml.js";
import { describeSheet, parseSheetIdx, type TableContext } from "./context.js";
import type { Rule, RuleVerdict } from "./dataRules.js";
import { child, children, partXml, pyBool, pyInt, readSide, relTarget, relTargets } from "./parts.js";
import { parseRef, type Book } from "./xlsx.js";

/**
 * `compare_table`'s `pivot_table` rule: the pivot tables of two sheets as OSWorld's
 * `load_pivot_tables` lists them from openpyxl's reading — each keyed by its source (type, the
 * source range without the empty fields at its edges, the source sheet), with the properties
 * `pivot_props` asks for — must be equal.
 */

/** A Python value of the comparison, as canonical JSON (sets sorted, tuples as lists). */
type Canon = string;
const canonSet = (items: Canon[]) => `{${[...new Set(items)].sort().join(",")}}`;

/** The pivot caches of the book by cacheId (workbook.xml's `pivotCaches`), each its cache definition. */
async function pivotCaches(book: Book): Promise<Map<string, XEl>> {
  const out = new Map<string, XEl>();
  const wb = await partXml(book, "xl/workbook.xml");
  for (const c of children(child(wb, "pivotCaches"), "pivotCache")) {
    const target = await relTarget(book, "xl/workbook.xml", c.attrs["r:id"]);
    const def = target ? await partXml(book, target) : undefined;
    if (def && c.attrs.cacheId !== undefined) out.set(c.attrs.cacheId, def);
  }
  return out;
}

/** Python's `str((row, col))`. */
function tupleText(ref: string): [number, number] {
  const rc = parseRef(ref);
  if (!rc) throw new Error(`${JSON.stringify(ref)} is not a cell (openpyxl raises ValueError)`);
  return rc;
}

/** One pivot table as load_pivot_tables reads it: its source key and the asked properties. */
function pivotInfo(pvt: XEl, cache: XEl | undefined, props: ReadonlySet<string>, where: string): [string, Canon] {
  const fields = children(child(pvt, "pivotFields"), "pivotField");
  const raw = fields.map((f) =>
    children(child(f, "items"), "item")
      .filter((i) => i.attrs.x !== undefined)
      .map((i) => [pyBool(i.attrs.h, null), pyInt(i.attrs.x)] as const),
  );
  let first = 0;
  while (first < raw.length && raw[first]!.length === 0) first++;
  let last = raw.length;
  while (last > first && raw[last - 1]!.length === 0) last--;
  const leftBias = first;
  const rightBias = raw.length - last;
  const selection = raw.slice(first, last);
  const source = child(cache, "cacheSource");
  const ws = child(source, "worksheetSource");
  if (!source || !ws || ws.attrs.ref === undefined) throw new Error(`${where}: the pivot cache has no worksheet range (OSWorld raises AttributeError)`);
  const [a, b] = ws.attrs.ref.split(":");
  if (b === undefined) throw new Error(`${where}: the source range ${ws.attrs.ref} is one cell (OSWorld raises ValueError)`);
  const [r1, c1] = tupleText(a!);
  const [r2, c2] = tupleText(b);
  const key = `${source.attrs.type ?? "None"};(${r1}, ${c1 + leftBias}):(${r2}, ${c2 - rightBias});${ws.attrs.sheet ?? "None"}`;
  const info: Record<string, Canon> = {};
  const has = (p: string) => props.has(p);
  const j = (v: unknown) => JSON.stringify(v);
  if (has("name")) info.name = j(pvt.attrs.name ?? null);
  if (has("show_total")) info.show_total = j(pyBool(pvt.attrs.visualTotals, true));
  if (has("show_empty_row")) info.show_empty_row = j(pyBool(pvt.attrs.showEmptyRow, false));
  if (has("show_empty_col")) info.show_empty_col = j(pyBool(pvt.attrs.showEmptyCol, false));
  if (has("show_headers")) info.show_headers = j(pyBool(pvt.attrs.showHeaders, true));
  if (has("location")) info.location = j(child(pvt, "location")?.attrs ?? null);
  if (has("filter") || has("selection")) {
    const rows = selection.map((r) => r.map((t) => j(t)));
    info.selection = has("ordered") ? `[${rows.map((r) => `[${r.join(",")}]`).join(",")}]` : `[${rows.map(canonSet).join(",")}]`;
  }
  if (has("filter")) info.filter_fields = canonSet(children(child(pvt, "pageFields"), "pageField").map((f) => j(pyInt(f.attrs.fld))));
  const index = (list: XEl | undefined) =>
    j(
      children(list, "field").map((f) => {
        const x = pyInt(f.attrs.x);
        if (x === null) throw new Error(`${where}: a row or column field has no x (OSWorld raises TypeError)`);
        return x - leftBias;
      }),
    );
  if (has("col_fields")) info.col_fields = index(child(pvt, "colFields"));
  if (has("row_fields")) info.row_fields = index(child(pvt, "rowFields"));
  if (has("data_fields")) {
    info.data_fields = j(
      children(child(pvt, "dataFields"), "dataField").map((f) => {
        const fld = pyInt(f.attrs.fld);
        if (fld === null) throw new Error(`${where}: a data field has no fld (OSWorld raises TypeError)`);
        const name = has("data_fields_name") ? (f.attrs.name ?? "None") : "";
        return `${fld - leftBias};${name};${f.attrs.subtotal ?? "sum"};${f.attrs.showDataAs ?? "normal"}`;
      }),
    );
  }
  return [key, j(Object.entries(info).sort(([x], [y]) => (x < y ? -1 : 1)))];
}

/** `load_pivot_tables(book, sheet, pivot_props)`: source → properties; `{}` when the sheet is not there. */
export async function loadPivotTables(book: Book | undefined, sheet: string, props: ReadonlySet<string>): Promise<Map<string, Canon>> {
  const out = new Map<string, Canon>();
  const entry = book?.sheets.find((s) => s.name === sheet);
  if (!book || !entry?.path) return out;
  let caches: Map<string, XEl> | undefined;
  for (const part of await relTargets(book, entry.path, "pivotTable")) {
    const pvt = await partXml(book, part);
    if (!pvt) throw new Error(`the pivot table ${part} is missing (openpyxl cannot read the book)`);
    caches ??= await pivotCaches(book);
    const cache = caches.get(pvt.attrs.cacheId ?? "");
    if (!cache) throw new Error(`${part}: its pivot cache ${pvt.attrs.cacheId} is not in the workbook (openpyxl raises KeyError)`);
    const [key, info] = pivotInfo(pvt, cache, props, part);
    out.set(key, info);
  }
  return out;
}

const showPivots = (m: Map<string, Canon>) => (m.size === 0 ? "no pivot tables" : [...m].map(([k, v]) => `[${k}] ${v}`).join(" | "));

/** The `pivot_table` rule. */
export async function pivotTableRule(r: Rule, ctx: TableContext): Promise<RuleVerdict> {
  const props = new Set<string>(r.pivot_props ?? []);
  const s1 = parseSheetIdx(r.sheet_idx0, ctx);
  const s2 = parseSheetIdx(r.sheet_idx1, ctx);
  const p1 = await readSide(s1, () => loadPivotTables(s1.book, s1.name, props));
  if (typeof p1 === "string") return p1;
  const p2 = await readSide(s2, () => loadPivotTables(s2.book, s2.name, props));
  if (typeof p2 === "string") return p2;
  const same = p1.size === p2.size && [...p1].every(([k, v]) => p2.get(k) === v);
  return same ? undefined : `${describeSheet(s1)} has ${showPivots(p1)}; ${describeSheet(s2)} has ${showPivots(p2)}`;
}
