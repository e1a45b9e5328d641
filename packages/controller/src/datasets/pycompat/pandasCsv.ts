import { parse } from "csv-parse/sync";

/**
 * pandas' `read_csv` with its defaults, as far as comparing files needs: a header row (unnamed and
 * repeated names as pandas makes them), a type per column inferred from its cells (a column of `22`
 * is int64, one of `22.0` float64, one with an empty cell and whole numbers float64), NaN for the
 * default NA strings. The NA strings and number patterns are pandas' for Excel sheets too.
 */

/** A column's type, as pandas infers it. */
export type CsvDtype = "int64" | "float64" | "bool" | "object";

/** A cell's value: null is pandas' NaN (an empty or NA cell). */
export type CsvValue = number | string | boolean | null;

/** A CSV file read as pandas reads it. */
export interface CsvFrame {
  columns: string[];
  dtypes: CsvDtype[];
  /** Row-major values, in the file's column order. */
  rows: CsvValue[][];
}

/** The cells pandas reads as NaN by default. */
export const NA = new Set([
  "",
  "#N/A",
  "#N/A N/A",
  "#NA",
  "-1.#IND",
  "-1.#QNAN",
  "-NaN",
  "-nan",
  "1.#IND",
  "1.#QNAN",
  "<NA>",
  "N/A",
  "NA",
  "NULL",
  "NaN",
  "None",
  "n/a",
  "nan",
  "null",
]);
/** Text pandas reads as an integer. */
export const INT = /^\s*[+-]?\d+\s*$/;
/** Text pandas reads as a float (inf and infinity included). */
export const FLOAT = /^\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity)\s*$/i;
/** Text pandas reads as True. */
export const TRUE = new Set(["True", "TRUE", "true"]);
/** Text pandas reads as False. */
export const FALSE = new Set(["False", "FALSE", "false"]);

/** The type pandas infers for a column from its raw cells. */
function inferDtype(cells: string[]): CsvDtype {
  const present = cells.filter((c) => !NA.has(c));
  const hasNa = present.length < cells.length;
  if (present.length === 0) return "float64";
  if (present.every((c) => INT.test(c))) return hasNa ? "float64" : "int64";
  if (present.every((c) => FLOAT.test(c))) return "float64";
  if (!hasNa && present.every((c) => TRUE.has(c) || FALSE.has(c))) return "bool";
  return "object";
}

function toValue(cell: string, dtype: CsvDtype): CsvValue {
  if (NA.has(cell)) return null;
  if (dtype === "int64" || dtype === "float64") {
    const t = cell.trim().toLowerCase().replace(/^\+/, "");
    return t === "inf" || t === "infinity" ? Infinity : t === "-inf" || t === "-infinity" ? -Infinity : Number(t);
  }
  if (dtype === "bool" || TRUE.has(cell) || FALSE.has(cell)) return TRUE.has(cell);
  return cell;
}

/** Reads CSV text as pandas' `read_csv` does by default; throws when it cannot. */
export function readCsvLikePandas(text: string): CsvFrame {
  const records = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: true }) as string[][];
  const [header, ...data] = records;
  if (!header) throw new Error("no columns to parse from the file (it is empty)");
  // Unnamed and repeated headers, as pandas names them.
  const seen = new Map<string, number>();
  const columns = header.map((h, i) => {
    const name = h === "" ? `Unnamed: ${i}` : h;
    const n = seen.get(name) ?? 0;
    seen.set(name, n + 1);
    return n === 0 ? name : `${name}.${n}`;
  });
  const long = data.findIndex((r) => r.length > columns.length);
  if (long >= 0) throw new Error(`data row ${long + 1} has ${data[long]!.length} fields, the header ${columns.length}`);
  const raw = data.map((r) => columns.map((_, j) => r[j] ?? ""));
  const dtypes = columns.map((_, j) => inferDtype(raw.map((r) => r[j]!)));
  return { columns, dtypes, rows: raw.map((r) => r.map((cell, j) => toValue(cell, dtypes[j]!))) };
}
