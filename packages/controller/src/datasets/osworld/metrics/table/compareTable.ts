import { z } from "zod";
import { defineMetric } from "../../metric.js";
import { UNPORTED_STYLE_PROPS } from "./cells.js";
import { chartRule } from "./charts.js";
import type { TableContext } from "./context.js";
import { checkCellRule, type Rule, type RuleVerdict, sheetDataRule, sheetFuzzyRule, sheetNameRule, sheetPrintRule } from "./dataRules.js";
import { DV_ATTRIBUTES, dataValidationRule, freezeRule, ROW_PROPS, rowPropsRule, zoomRule } from "./sheetRules.js";
import { pivotTableRule } from "./pivots.js";
import { styleRule } from "./styleRule.js";
import { type Book, loadBook } from "./xlsx.js";
import { fail } from "../../../../evaluators/verdict.js";

/** `compare_table(result, expected, rules=[...])`: every rule must hold, checked in order. */

const idx = z.union([z.number().int(), z.string()]);
const pair = { sheet_idx0: idx, sheet_idx1: idx };
const matchRule = z.strictObject({ method: z.string(), ref: z.unknown() });
const fuzzyRule = z.strictObject({
  range: z.union([z.string(), z.array(z.string())]),
  type: z.enum(["includes", "included_by", "fuzzy_match", "exact_match"]),
  // Python compares the ratio with it: a bool is 0 or 1, text or null raise TypeError.
  threshold: z.union([z.number(), z.boolean()]).optional(),
  ignore_case: z.boolean().optional(),
  ignore_chars: z.string().optional(),
  trim_leadings: z.string().optional(),
  trim_trailings: z.string().optional(),
  normalization: z.array(z.tuple([z.string(), z.string()])).optional(),
});

/** One `compare_table` rule, by its type. */
export const tableRule = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("sheet_name") }),
  // OSWorld ignores ignore_case on sheet_data; some tasks set it anyway.
  z.strictObject({ type: z.literal("sheet_data"), ...pair, precision: z.number().int().optional(), ignore_case: z.boolean().optional() }),
  z.strictObject({ type: z.literal("sheet_print"), ...pair, ignore_case: z.boolean().optional() }),
  z.strictObject({ type: z.literal("sheet_fuzzy"), ...pair, rules: z.array(fuzzyRule) }),
  z.strictObject({ type: z.literal("sparkline"), ...pair }),
  z.strictObject({ type: z.literal("chart"), ...pair, chart_props: z.array(z.string()).optional() }),
  z.strictObject({ type: z.literal("style"), ...pair, props: z.array(z.string()).default([]) }),
  z.strictObject({ type: z.literal("freeze"), ...pair }),
  z.strictObject({ type: z.literal("zoom"), sheet_idx: idx, method: z.string(), ref: z.unknown() }),
  z.strictObject({ type: z.literal("data_validation"), sheet_idx: idx, dv_props: z.array(z.record(z.string(), matchRule)) }),
  z.strictObject({ type: z.literal("row_props"), ...pair, props: z.array(z.string()).default([]) }),
  z.strictObject({ type: z.literal("col_props"), ...pair, props: z.array(z.string()).default([]) }),
  z.strictObject({ type: z.literal("filter"), ...pair }),
  z.strictObject({ type: z.literal("pivot_table"), ...pair, pivot_props: z.array(z.string()).default([]) }),
  z.strictObject({ type: z.literal("check_cell"), sheet_idx: idx, coordinate: z.string(), props: z.record(z.string(), matchRule) }),
]);

// compare_table(result, expected, **options): keys other than rules are ignored.
const options = z.object({ rules: z.array(tableRule) });

/** Rule types Pincer does not read yet. */
const UNSUPPORTED_TYPES = new Set(["sparkline", "col_props", "filter"]);

function unsupportedOf(rules: z.infer<typeof options>["rules"]): string[] {
  const out = new Set<string>();
  for (const r of rules) {
    if (UNSUPPORTED_TYPES.has(r.type)) out.add(`compare_table.rule ${r.type}`);
    if (r.type === "style") for (const p of r.props) if (UNPORTED_STYLE_PROPS.has(p)) out.add(`compare_table.style ${p}`);
    if (r.type === "check_cell") {
      for (const p of Object.keys(r.props)) if (UNPORTED_STYLE_PROPS.has(p)) out.add(`compare_table.check_cell ${p}`);
    }
    if (r.type === "row_props") for (const p of r.props) if (!ROW_PROPS.has(p)) out.add(`compare_table.row_props ${p}`);
    if (r.type === "data_validation") {
      for (const d of r.dv_props) for (const a of Object.keys(d)) if (!DV_ATTRIBUTES.has(a)) out.add(`compare_table.data_validation ${a}`);
    }
  }
  return [...out];
}

async function runRule(r: Rule, ctx: TableContext): Promise<RuleVerdict> {
  switch (r.type) {
    case "sheet_name":
      return sheetNameRule(ctx);
    case "sheet_data":
      return sheetDataRule(r, ctx);
    case "sheet_print":
      return sheetPrintRule(r, ctx);
    case "sheet_fuzzy":
      return sheetFuzzyRule(r, ctx);
    case "check_cell":
      return checkCellRule(r, ctx);
    case "style":
      return styleRule(r, ctx);
    case "freeze":
      return freezeRule(r, ctx);
    case "zoom":
      return zoomRule(r, ctx);
    case "data_validation":
      return dataValidationRule(r, ctx);
    case "row_props":
      return rowPropsRule(r, ctx);
    case "chart":
      return chartRule(r, ctx);
    case "pivot_table":
      return pivotTableRule(r, ctx);
    default:
      throw new Error(`compare_table.rule ${r.type} is not supported by Pincer`);
  }
}

const worksheetNames = (b: Book) => b.sheets.filter((s) => s.isWorksheet).map((s) => s.name);

/** OSWorld's `compare_table`. */
export const compareTableMetric = defineMetric({
  name: "compare_table",
  options,
  unsupported: (o) => unsupportedOf(o.rules),
  async run(result, expected, opts) {
    if (typeof result !== "string") return fail("the result file is missing");
    let rbook: Book;
    try {
      rbook = await loadBook(result);
    } catch (e) {
      return fail(`the result is not a readable xlsx: ${(e as Error).message}`);
    }
    let ebook: Book | undefined;
    if (typeof expected === "string") {
      try {
        ebook = await loadBook(expected);
      } catch (e) {
        throw new Error(`the expected file ${expected} is not a readable xlsx: ${(e as Error).message}`, { cause: e });
      }
    }
    const ctx: TableContext = {
      result,
      expected: typeof expected === "string" ? expected : undefined,
      rbook,
      ebook,
      rnames: worksheetNames(rbook),
      enames: ebook ? worksheetNames(ebook) : undefined,
    };
    for (const [i, r] of opts.rules.entries()) {
      const verdict = await runRule(r as Rule, ctx);
      if (verdict !== undefined) return fail(`rule ${i + 1} (${r.type}): ${verdict}`);
    }
    return 1;
  },
});
