import { parse } from "csv-parse/sync";
import { z } from "zod";
import type { EvaluationOutcome } from "../helpers.js";
import { defineEvaluationHelper } from "../helpers.js";
import { envArg, fail, fetchResultText, pass, readLocalText, show } from "./common.js";

/** Options of {@link compareCsv}. */
export interface CompareCsvOptions {
  /** Rows may come in any order (compared as a multiset). @default false */
  ignoreOrder?: boolean;
  /** Header names and text cells compare regardless of case. @default false */
  ignoreCase?: boolean;
  /** Columns the expected file does not have fail the comparison instead of being ignored. @default false */
  strict?: boolean;
  /** Relative tolerance of numeric cells: |got − expected| ≤ atol + rtol·|expected|. @default 1e-9 */
  rtol?: number;
  /** Absolute tolerance of numeric cells. @default 0 */
  atol?: number;
}

/** A CSV file: its header (trimmed) and data rows. */
export interface CsvTable {
  header: string[];
  rows: string[][];
}

/** Parses CSV text (RFC 4180 quoting, any line ending, optional BOM; empty lines skipped). Throws on malformed input. */
export function parseCsv(text: string): CsvTable {
  const records = parse(text, { bom: true, skip_empty_lines: true }) as string[][];
  const [header, ...rows] = records;
  if (!header) throw new Error("no header row");
  return { header: header.map((h) => h.trim()), rows };
}

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function asNumber(cell: string): number | undefined {
  const s = cell.trim();
  return NUMBER.test(s) ? Number(s) : undefined;
}

/**
 * Compares two CSV texts by header name, so the column order does not matter. Cells are trimmed;
 * cells that are numbers on both sides compare as numbers within the tolerances ("1.50" equals
 * "1.5"). A header name the result lacks always fails; extra result columns fail only when
 * `strict`. Throws when the expected text is not valid CSV (the task is broken); a result that is
 * not valid CSV scores 0.
 */
export function compareCsv(expectedText: string, resultText: string, opts: CompareCsvOptions = {}): EvaluationOutcome {
  const fold = (s: string) => (opts.ignoreCase ? s.toLowerCase() : s);
  const aligned = alignColumns(expectedText, resultText, fold, opts.strict ?? false);
  if ("outcome" in aligned) return aligned.outcome;
  const { expected, got } = aligned;
  const rtol = opts.rtol ?? 1e-9;
  const atol = opts.atol ?? 0;
  const cells: CellComparison = {
    equal(e, r) {
      const en = asNumber(e);
      const rn = asNumber(r);
      if (en !== undefined && rn !== undefined) return Math.abs(rn - en) <= atol + rtol * Math.abs(en);
      return fold(e.trim()) === fold(r.trim());
    },
    canonical: (c) => (asNumber(c) !== undefined ? String(asNumber(c)) : fold(c.trim())),
  };
  return opts.ignoreOrder ? compareRowsAnyOrder(expected, got, cells) : compareRowsInOrder(expected, got, cells);
}

/** How two cells compare: within the tolerances, and as a canonical form for exact matching. */
interface CellComparison {
  equal(expected: string, result: string): boolean;
  canonical(cell: string): string;
}

/**
 * Parses both texts and lines the result's columns up with the expected header: the expected table
 * and the result rows in its column order, or the failing outcome (the result is not CSV, lacks a
 * column, repeats one, or has an extra one when `strict`). A broken expected file throws.
 */
function alignColumns(
  expectedText: string,
  resultText: string,
  fold: (s: string) => string,
  strict: boolean,
): { expected: CsvTable; got: string[][] } | { outcome: EvaluationOutcome } {
  let expected: CsvTable;
  try {
    expected = parseCsv(expectedText);
  } catch (e) {
    throw new Error(`the expected file is not valid CSV: ${(e as Error).message}`, { cause: e });
  }
  const dupExpected = duplicate(expected.header.map(fold));
  if (dupExpected !== undefined) throw new Error(`the expected file has column ${show(dupExpected)} twice`);
  let result: CsvTable;
  try {
    result = parseCsv(resultText);
  } catch (e) {
    return { outcome: fail(`the result is not valid CSV: ${(e as Error).message}`) };
  }
  const dupResult = duplicate(result.header.map(fold));
  if (dupResult !== undefined) return { outcome: fail(`the result has column ${show(dupResult)} twice`) };
  const resultIndex = new Map(result.header.map((h, i) => [fold(h), i]));
  const columns = expected.header.map((h) => resultIndex.get(fold(h)));
  const missing = expected.header.filter((_, i) => columns[i] === undefined);
  if (missing.length) {
    return { outcome: fail(`the result lacks column(s) ${missing.map((m) => show(m)).join(", ")} (it has ${result.header.map((h) => show(h)).join(", ")})`) };
  }
  if (strict) {
    const known = new Set(expected.header.map(fold));
    const extra = result.header.filter((h) => !known.has(fold(h)));
    if (extra.length) return { outcome: fail(`the result has extra column(s) ${extra.map((m) => show(m)).join(", ")}`) };
  }
  return { expected, got: result.rows.map((row) => columns.map((c) => row[c!] ?? "")) };
}

function compareRowsInOrder(expected: CsvTable, got: string[][], cells: CellComparison): EvaluationOutcome {
  for (let i = 0; i < Math.min(expected.rows.length, got.length); i++) {
    const e = expected.rows[i]!;
    const r = got[i]!;
    const c = e.findIndex((cell, j) => !cells.equal(cell, r[j]!));
    if (c >= 0) return fail(`data row ${i + 1}, column ${show(expected.header[c]!)}: expected ${show(e[c]!)}, got ${show(r[c]!)}`);
  }
  if (expected.rows.length !== got.length) return fail(`expected ${expected.rows.length} data row(s), got ${got.length}`);
  return pass(`${got.length} data row(s) and ${expected.header.length} column(s) match`);
}

/** Rows as a multiset: exact (canonical) matches first, then within the tolerances, greedily. */
function compareRowsAnyOrder(expected: CsvTable, got: string[][], cells: CellComparison): EvaluationOutcome {
  if (expected.rows.length !== got.length) return fail(`expected ${expected.rows.length} data row(s), got ${got.length}`);
  const canonical = (row: string[]) => JSON.stringify(row.map(cells.canonical));
  const rowEqual = (e: string[], r: string[]) => e.every((cell, i) => cells.equal(cell, r[i]!));
  const free = new Map<string, number[]>();
  got.forEach((row, i) => {
    const k = canonical(row);
    free.set(k, [...(free.get(k) ?? []), i]);
  });
  const used = new Set<number>();
  const unmatched: number[] = [];
  expected.rows.forEach((row, i) => {
    const j = free.get(canonical(row))?.shift();
    if (j === undefined) unmatched.push(i);
    else used.add(j);
  });
  const stillUnmatched = unmatched.filter((i) => {
    const j = got.findIndex((r, k) => !used.has(k) && rowEqual(expected.rows[i]!, r));
    if (j < 0) return true;
    used.add(j);
    return false;
  });
  if (stillUnmatched.length) {
    const first = stillUnmatched[0]!;
    const spare = got.findIndex((_, k) => !used.has(k));
    return fail(
      `${stillUnmatched.length} expected row(s) have no match in the result, e.g. data row ${first + 1}: ${show(expected.rows[first]!.join(", "))}` +
        (spare >= 0 ? `; unmatched result row ${spare + 1}: ${show(got[spare]!.join(", "))}` : ""),
    );
  }
  return pass(`${got.length} data row(s) match in some order`);
}

function duplicate(names: string[]): string | undefined {
  const seen = new Set<string>();
  for (const n of names) {
    if (seen.has(n)) return n;
    seen.add(n);
  }
  return undefined;
}

/** `compare_csv`: the result CSV on the machine has the expected file's columns (by header) and rows. */
export const compareCsvHelper = defineEvaluationHelper({
  name: "compare_csv",
  description: "Compares a CSV file on the machine with an expected one by header name (column order does not matter), with numeric tolerances",
  args: z.strictObject({
    local_expected: z.string().min(1).describe("The expected CSV, relative to the task folder"),
    vm_result: z.string().min(1).describe("The CSV on the machine"),
    ignore_order: z.boolean().default(false).describe("Rows may come in any order"),
    ignore_case: z.boolean().default(false).describe("Header names and text cells compare regardless of case"),
    strict: z.boolean().default(false).describe("Extra columns in the result fail (missing columns always fail)"),
    rtol: z.number().nonnegative().default(1e-9).describe("Relative tolerance of numeric cells"),
    atol: z.number().nonnegative().default(0).describe("Absolute tolerance of numeric cells"),
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
