import type { XEl } from "../office/xml.js";
import { describeSheet, parseSheetIdx, type TableContext } from "./context.js";
import type { Rule, RuleVerdict } from "./dataRules.js";
import { child, childPath, children, localName, partXml, readSide, relTarget, relTargets, textOf } from "./parts.js";
import type { Book } from "./xlsx.js";

/**
 * `compare_table`'s `chart` rule: the charts of two sheets as OSWorld's `load_charts` lists them
 * from openpyxl's reading — each chart keyed by its series (`<values ref>,<categories ref>` joined
 * with ";"), with the properties `chart_props` asks for — must be equal.
 */

/** The chart types openpyxl reads from a plot area. */
const CHART_TYPES = new Set([
  "areaChart",
  "area3DChart",
  "lineChart",
  "line3DChart",
  "stockChart",
  "radarChart",
  "scatterChart",
  "pieChart",
  "pie3DChart",
  "doughnutChart",
  "barChart",
  "bar3DChart",
  "ofPieChart",
  "surfaceChart",
  "surface3DChart",
  "bubbleChart",
]);

/** A chart as load_charts describes it: its series key and the asked properties (JSON values). */
interface ChartInfo {
  key: string;
  info: Record<string, unknown>;
}

/** `title.tx.rich.p[0].r[0].t`, or null where OSWorld's `try` gives None. */
function richTitle(title: XEl | undefined): string | null {
  const p = children(childPath(title, "tx", "rich"), "p")[0];
  const r = children(p, "r")[0];
  if (!r) return null;
  return textOf(child(r, "t")) ?? "";
}

/** The formula of a data source's reference (`numRef`, or `strRef` where openpyxl keeps one), "" when none. */
function refOf(source: XEl | undefined, allowStr: boolean): string {
  const num = childPath(source, "numRef", "f");
  if (num) return textOf(num) ?? "";
  if (allowStr) {
    const str = childPath(source, "strRef", "f");
    if (str) return textOf(str) ?? "";
  }
  return "";
}

/** The axes a chart uses, as openpyxl's plot area assigns them (x: category/date, y: value, z: series). */
function axesOf(plot: XEl, chart: XEl): Record<"x" | "y" | "z", XEl | undefined> {
  const byId = new Map(
    children(plot).flatMap((a) => (["catAx", "dateAx", "valAx", "serAx"].includes(localName(a)) ? [[child(a, "axId")?.attrs.val, a] as const] : [])),
  );
  const ids = children(chart, "axId").map((a) => a.attrs.val);
  const out: Record<"x" | "y" | "z", XEl | undefined> = { x: undefined, y: undefined, z: undefined };
  if (localName(chart) === "scatterChart" || localName(chart) === "bubbleChart") return { x: byId.get(ids[0]), y: byId.get(ids[1]), z: undefined };
  for (const id of ids) {
    const axis = byId.get(id);
    if (!axis) continue;
    const kind = localName(axis);
    if (kind === "catAx" || kind === "dateAx") out.x = axis;
    else if (kind === "valAx") out.y = axis;
    else out.z = axis;
  }
  return out;
}

/** One chart part as load_charts reads it. */
function chartInfo(space: XEl, anchor: XEl, props: ReadonlySet<string>, where: string): ChartInfo {
  const chartEl = child(space, "chart");
  const plot = child(chartEl, "plotArea");
  const chart = children(plot).find((c) => CHART_TYPES.has(localName(c)));
  // openpyxl's read_chart takes plot._charts[0]: a plot area without a chart fails to load.
  if (!chart || !plot) throw new Error(`${where}: the chart has no plot (openpyxl cannot read it)`);
  const key = children(chart, "ser")
    .map((s) => `${refOf(child(s, "val"), false)},${refOf(child(s, "cat"), true)}`)
    .join(";");
  const info: Record<string, unknown> = {};
  const axes = axesOf(plot, chart);
  if (props.has("title")) info.title = richTitle(child(chartEl, "title"));
  if (props.has("legend")) {
    const legend = child(chartEl, "legend");
    info.legend = legend ? (child(legend, "legendPos")?.attrs.val ?? "r") : null;
  }
  if (props.has("anchor")) {
    // [editAs, from.col, to.row, to.col, to.row], as OSWorld writes it; only a two-cell anchor has `to`.
    const to = child(anchor, "to");
    if (localName(anchor) !== "twoCellAnchor" || !to) throw new Error(`${where}: a ${localName(anchor)} has no "to" cell (OSWorld raises AttributeError)`);
    const n = (el: XEl | undefined, name: string) => Number(textOf(child(el, name)) ?? 0);
    info.anchor = [anchor.attrs.editAs ?? null, n(child(anchor, "from"), "col"), n(to, "row"), n(to, "col"), n(to, "row")];
  }
  // openpyxl does not read a chart's size: its defaults, 15 × 7.5 cm.
  if (props.has("width")) info.width = 15;
  if (props.has("height")) info.height = 7.5;
  if (props.has("type")) info.type = localName(chart);
  if (props.has("direction")) {
    if (!["barChart", "bar3DChart"].includes(localName(chart)))
      throw new Error(`${where}: a ${localName(chart)} has no direction (OSWorld raises AttributeError)`);
    info.direction = child(chart, "barDir")?.attrs.val ?? "col";
  }
  for (const [prop, axis] of [
    ["xtitle", axes.x],
    ["ytitle", axes.y],
    ["ztitle", axes.z],
  ] as const) {
    if (props.has(prop)) info[prop] = richTitle(child(axis, "title"));
  }
  return { key, info };
}

/** `load_charts(book, sheet, chart_props)`: series key → properties; `{}` when the sheet is not there. */
export async function loadCharts(book: Book | undefined, sheet: string, props: ReadonlySet<string>): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const entry = book?.sheets.find((s) => s.name === sheet);
  if (!book || !entry?.path) return out;
  for (const drawing of await relTargets(book, entry.path, "drawing")) {
    const tree = await partXml(book, drawing);
    if (!tree) continue;
    // openpyxl lists absolute anchors, then one-cell, then two-cell anchors.
    const anchors = ["absoluteAnchor", "oneCellAnchor", "twoCellAnchor"].flatMap((a) => children(tree, a));
    for (const anchor of anchors) {
      const ref = childPath(anchor, "graphicFrame", "graphic", "graphicData", "chart");
      if (!ref) continue;
      const part = await relTarget(book, drawing, ref.attrs["r:id"]);
      const space = part ? await partXml(book, part) : undefined;
      if (!space) throw new Error(`the chart ${ref.attrs["r:id"]} of ${drawing} is missing (openpyxl cannot read the book)`);
      const { key, info } = chartInfo(space, anchor, props, part!);
      out.set(key, JSON.stringify(info));
    }
  }
  return out;
}

/** Whether two load_charts results are equal (Python's dict equality). */
function sameCharts(a: Map<string, string>, b: Map<string, string>): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}

const showCharts = (m: Map<string, string>) => (m.size === 0 ? "no charts" : [...m].map(([k, v]) => `[${k}] ${v}`).join(" | "));

/** The `chart` rule. */
export async function chartRule(r: Rule, ctx: TableContext): Promise<RuleVerdict> {
  const props = new Set<string>(r.chart_props ?? []);
  const s1 = parseSheetIdx(r.sheet_idx0, ctx);
  const s2 = parseSheetIdx(r.sheet_idx1, ctx);
  const c1 = await readSide(s1, () => loadCharts(s1.book, s1.name, props));
  if (typeof c1 === "string") return c1;
  const c2 = await readSide(s2, () => loadCharts(s2.book, s2.name, props));
  if (typeof c2 === "string") return c2;
  return sameCharts(c1, c2) ? undefined : `${describeSheet(s1)} has ${showCharts(c1)}; ${describeSheet(s2)} has ${showCharts(c2)}`;
}
