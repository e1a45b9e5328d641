import { z } from "zod";
import type { Verdict } from "../../evaluators/verdict.js";
import { defineEvaluationFunction } from "../taskFunctions.js";
import { type CsvDtype, type CsvFrame, type CsvValue, readCsvLikePandas } from "../pycompat/pandasCsv.js";
import { envArg, fail, fetchResultText, pass, readLocalText, show } from "./common.js";

/**
 * `compare_csv` as the published evaluator of the JSON task format computes it: both files read as pandas'
 * `read_csv` reads them (a header row, a type per column inferred from its cells), columns put in
 * sorted order, then `DataFrame.equals`: the same column names, the same number of rows, the same
 * type per column (a column of `22` is int64, one of `22.0` float64, and they differ) and the same
 * values, numbers exactly.
 */

/** Options of {@link compareCsv}. */
export interface CompareCsvOptions {
  /** Rows may come in any order (both sorted before comparing). @default false */
  ignoreOrder?: boolean;
  /** Text cells compare regardless of case (column names do not). @default false */
  ignoreCase?: boolean;
  /** false: whitespace around text cells is ignored. @default true */
  strict?: boolean;
  /**
   * Pincer's leniency, off by default so scores compare with published ones: numbers compare within
   * |got − expected| ≤ atol + rtol·|expected|, and integer and decimal columns count as one type.
   */
  rtol?: number;
  /** See `rtol`. @default 0 */
  atol?: number;
}

/** A value as pandas prints it: NaN, quoted text, True/False, 3 or 3.0 by the column's type. */
const display = (v: CsvValue, dtype?: CsvDtype) =>
  v === null
    ? "NaN"
    : typeof v === "string"
      ? show(v)
      : typeof v === "boolean"
        ? v
          ? "True"
          : "False"
        : dtype === "float64" && Number.isInteger(v)
          ? `${v}.0`
          : String(v);

/** Python's ordering for sort_values: NaN last, numbers and booleans by value, text by code point. */
function compareValues(a: CsvValue, b: CsvValue): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : 1;
  return Number(a) < Number(b) ? -1 : Number(a) > Number(b) ? 1 : 0;
}

/** The frame with its columns in sorted order, cells transformed as the options say. */
function prepare(frame: CsvFrame, opts: CompareCsvOptions): CsvFrame {
  const order = frame.columns.map((_, i) => i).sort((i, j) => (frame.columns[i]! < frame.columns[j]! ? -1 : 1));
  const cell = (v: CsvValue): CsvValue => {
    if (typeof v !== "string") return v;
    let s = opts.strict === false ? v.trim() : v;
    if (opts.ignoreCase) s = s.toLowerCase();
    return s;
  };
  let rows = frame.rows.map((r) => order.map((j) => cell(r[j]!)));
  if (opts.ignoreOrder) {
    rows = [...rows].sort((x, y) => {
      for (let k = 0; k < x.length; k++) {
        const c = compareValues(x[k]!, y[k]!);
        if (c !== 0) return c;
      }
      return 0;
    });
  }
  return { columns: order.map((j) => frame.columns[j]!), dtypes: order.map((j) => frame.dtypes[j]!), rows };
}

const INDEX_HINT = " (an index written as a column?)";

/** Compares the column names, their types and the row count: the failing reason, if any. */
function shapeProblem(e: CsvFrame, r: CsvFrame, lenient: boolean): string | undefined {
  const missing = e.columns.filter((c) => !r.columns.includes(c));
  const extra = r.columns.filter((c) => !e.columns.includes(c));
  if (missing.length || extra.length) {
    return [
      missing.length ? `the result lacks column(s) ${missing.map((c) => show(c)).join(", ")}` : "",
      extra.length
        ? `the result has extra column(s) ${extra.map((c) => show(c)).join(", ")}${extra.some((c) => c.startsWith("Unnamed: ")) ? INDEX_HINT : ""}`
        : "",
    ]
      .filter(Boolean)
      .join("; ");
  }
  if (e.rows.length !== r.rows.length) return `expected ${e.rows.length} data row(s), got ${r.rows.length}`;
  const numeric = (d: CsvDtype) => (lenient && (d === "int64" || d === "float64") ? "number" : d);
  const k = e.dtypes.findIndex((d, i) => numeric(d) !== numeric(r.dtypes[i]!));
  if (k >= 0) {
    const sample = (f: CsvFrame) => display(f.rows.find((row) => row[k] !== null)?.[k] ?? null, f.dtypes[k]);
    return `column ${show(e.columns[k]!)} is ${e.dtypes[k]} in the expected file (e.g. ${sample(e)}) but ${r.dtypes[k]} in the result (e.g. ${sample(r)})`;
  }
  return undefined;
}

/**
 * Compares two CSV texts as the dataset's `compare_csv` does (see the file's comment). Throws when
 * the expected text cannot be read (the task is broken); a result that cannot be read scores 0.
 */
export function compareCsv(expectedText: string, resultText: string, opts: CompareCsvOptions = {}): Verdict {
  let expected: CsvFrame;
  try {
    expected = readCsvLikePandas(expectedText);
  } catch (e) {
    throw new Error(`the expected file is not valid CSV: ${(e as Error).message}`, { cause: e });
  }
  let result: CsvFrame;
  try {
    result = readCsvLikePandas(resultText);
  } catch (e) {
    return fail(`the result is not valid CSV: ${(e as Error).message}`);
  }
  const lenient = (opts.rtol ?? 0) > 0 || (opts.atol ?? 0) > 0;
  const e = prepare(expected, opts);
  const r = prepare(result, opts);
  const problem = shapeProblem(e, r, lenient);
  if (problem) return fail(problem);
  const equal = (a: CsvValue, b: CsvValue) => {
    if (a === b) return true;
    if (lenient && typeof a === "number" && typeof b === "number") return Math.abs(b - a) <= (opts.atol ?? 0) + (opts.rtol ?? 0) * Math.abs(a);
    return typeof a === "number" && typeof b === "number" && Number.isNaN(a) && Number.isNaN(b);
  };
  for (let i = 0; i < e.rows.length; i++) {
    const k = e.rows[i]!.findIndex((v, j) => !equal(v, r.rows[i]![j]!));
    if (k >= 0) {
      const row = opts.ignoreOrder ? `row ${i + 1} after sorting` : `data row ${i + 1}`;
      return fail(`${row}, column ${show(e.columns[k]!)}: expected ${display(e.rows[i]![k]!, e.dtypes[k])}, got ${display(r.rows[i]![k]!, r.dtypes[k])}`);
    }
  }
  return pass(`${e.rows.length} data row(s) and ${e.columns.length} column(s) match${opts.ignoreOrder ? " in some order" : ""}`);
}

/** `compare_csv`: the result CSV on the machine equals the expected one as pandas reads them. */
export const compareCsvFunction = defineEvaluationFunction({
  name: "compare_csv",
  description: "Compares a CSV file on the machine with an expected one as pandas reads them: same columns (any order), types and values",
  args: z.strictObject({
    local_expected: z.string().min(1).describe("The expected CSV, relative to the task folder"),
    vm_result: z.string().min(1).describe("The CSV on the machine"),
    ignore_order: z.boolean().default(false).describe("Rows may come in any order"),
    ignore_case: z.boolean().default(false).describe("Text cells compare regardless of case"),
    strict: z.boolean().default(true).describe("false: whitespace around text cells is ignored"),
    rtol: z
      .number()
      .nonnegative()
      .default(0)
      .describe("Pincer's leniency (not the dataset's): relative tolerance of numbers; int and decimal columns then match"),
    atol: z.number().nonnegative().default(0).describe("Pincer's leniency: absolute tolerance of numbers"),
    env: envArg,
  }),
  async run(args, ctx) {
    const expected = await readLocalText(ctx, args.local_expected);
    const result = await fetchResultText(ctx, args.env, args.vm_result);
    if (!result.ok) return result.outcome;
    return compareCsv(expected, result.text, {
      ignoreOrder: args.ignore_order,
      ignoreCase: args.ignore_case,
      strict: args.strict,
      rtol: args.rtol,
      atol: args.atol,
    });
  },
});
