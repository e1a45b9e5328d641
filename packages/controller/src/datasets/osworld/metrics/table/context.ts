import type { Book } from "./xlsx.js";
import { pyInt } from "../../../pycompat/pyNumbers.js";

/** What every `compare_table` rule sees: both files, both books, their sheet names. */
export interface TableContext {
  result: string;
  expected: string | undefined;
  rbook: Book;
  ebook: Book | undefined;
  /** The result's worksheet names, as pandas lists them. */
  rnames: string[];
  /** The expected file's, or undefined without an expected file. */
  enames: string[] | undefined;
}

/** A sheet picked by a `sheet_idx`: which side, its book and file, and the sheet's name. */
export interface SheetRef {
  side: "result" | "expected";
  book: Book | undefined;
  file: string | undefined;
  name: string;
  /** The index as written in the rule, for reasons. */
  label: string;
}

/** Python's `list[i]`, negative indices from the end; undefined where Python raises IndexError. */
function pyIndex<T>(list: T[] | undefined, i: number): T | undefined {
  if (!list || !Number.isInteger(i)) return undefined;
  return i < 0 ? list[list.length + i] : list[i];
}

/**
 * OSWorld's `_parse_sheet_idx`: 0 or "RI0" (result sheet by position), "RNSheet1" (result sheet by
 * name), "EI0"/"ENSheet1" (expected). An index out of range gives the name "" (no such sheet).
 */
export function parseSheetIdx(idx: number | string, ctx: TableContext): SheetRef {
  const label = JSON.stringify(idx);
  const result = { side: "result" as const, book: ctx.rbook, file: ctx.result, label };
  const expected = { side: "expected" as const, book: ctx.ebook, file: ctx.expected, label };
  if (typeof idx === "number") {
    return { ...result, name: idx >= ctx.rnames.length ? "" : (pyIndex(ctx.rnames, idx) ?? "") };
  }
  const n = pyInt(idx.slice(2));
  if (idx.startsWith("RI")) return { ...result, name: n === undefined ? "" : (pyIndex(ctx.rnames, n) ?? "") };
  if (idx.startsWith("RN")) return { ...result, name: idx.slice(2) };
  if (idx.startsWith("EI")) return { ...expected, name: n === undefined ? "" : (pyIndex(ctx.enames, n) ?? "") };
  if (idx.startsWith("EN")) return { ...expected, name: idx.slice(2) };
  throw new Error(`unrecognized sheet index ${label}: use a number or RI<n>, RN<name>, EI<n>, EN<name>`);
}

/** "the result's sheet \"Sheet1\"" for reasons. */
export const describeSheet = (s: SheetRef) => `the ${s.side === "result" ? "result" : "expected file"}'s sheet ${JSON.stringify(s.name)}`;
