import { dataOnlyValue, type PyDate, type PyVal, pyStr, showVal } from "./values.js";
import type { Book } from "./xlsx.js";
import { FALSE, FLOAT, INT, NA, TRUE } from "../../../evaluationHelpers/csv.js";

/**
 * `pd.read_excel(book, sheet)` (openpyxl engine, `header=0`) and `DataFrame.round(n).equals(...)`,
 * as OSWorld's `sheet_data` rule uses them: the first row names the columns, each column gets the
 * type pandas infers (text that reads as numbers becomes numbers, a column with an empty cell and
 * whole numbers is float64, ...), and frames are equal only with the same column names, row count,
 * column types and values.
 */

/** A column's type as pandas infers it. */
export type Dtype = "int64" | "float64" | "bool" | "object" | "datetime64" | "timedelta64";

/** A sheet read as pandas reads it; null cells are NaN/NaT. */
export interface Frame {
  columns: PyVal[];
  dtypes: Dtype[];
  /** Column-major values. */
  data: PyVal[][];
  nrows: number;
}

// pandas' default NA strings, and the text it reads as numbers and booleans: as for CSV files.

const isDate = (v: PyVal): v is PyDate => typeof v === "object" && v !== null;

/** A cell as pandas' openpyxl reader converts it: "" for empty, null (NaN) for errors. */
type Raw = PyVal | "";

/** The rows pandas' openpyxl reader gets from the sheet (`get_sheet_data`). */
async function sheetRows(book: Book, name: string): Promise<Raw[][] | undefined> {
  const sheet = await book.sheet(name);
  if (!sheet) return undefined;
  const data: Raw[][] = [];
  let counter = 1;
  let lastWithData = -1;
  for (const row of sheet.rows) {
    for (; counter < row.r; counter++) data.push([]);
    if (counter > row.r) continue;
    counter++;
    const width = row.cells.length ? row.cells[row.cells.length - 1]!.col : 0;
    const out: Raw[] = new Array(width).fill("");
    for (const cell of row.cells) {
      if (cell.col < 1 || cell.col > width) continue;
      const { value, error } = dataOnlyValue(book, cell);
      out[cell.col - 1] = error ? null : value === null ? "" : value;
    }
    while (out.length && out[out.length - 1] === "") out.pop();
    if (out.length) lastWithData = data.length;
    data.push(out);
  }
  const kept = data.slice(0, lastWithData + 1);
  const width = Math.max(0, ...kept.map((r) => r.length));
  return kept.map((r) => [...r, ...new Array(width - r.length).fill("")]);
}

/** A key under which Python's dict would file the value (1, 1.0 and True are one key). */
const pyKey = (v: PyVal): string => (typeof v === "number" || typeof v === "boolean" ? `n:${Number(v)}` : isDate(v) ? `d:${v.kind}:${v.ms}` : `s:${String(v)}`);

/** Column names from the header row, unnamed and repeated ones named as pandas names them. */
function columnNames(header: Raw[]): PyVal[] {
  const unnamed = header.map((c, i) => (c === "" ? i : -1)).filter((i) => i >= 0);
  const cols: PyVal[] = header.map((c, i) => (c === "" ? `Unnamed: ${i}` : c));
  const counts = new Map<string, number>();
  const order = [...cols.keys()].filter((i) => !unnamed.includes(i)).concat(unnamed);
  for (const i of order) {
    let col = cols[i]!;
    const old = col;
    let cur = counts.get(pyKey(col)) ?? 0;
    if (cur > 0) {
      while (cur > 0) {
        counts.set(pyKey(old), cur + 1);
        col = `${pyStr(old)}.${cur}`;
        cur = cols.some((c) => pyEq(c, col)) ? cur + 1 : (counts.get(pyKey(col)) ?? 0);
      }
      cols[i] = col;
    }
    counts.set(pyKey(col), cur + 1);
  }
  return cols;
}

/** Python's `==` between two cell values. */
export function pyEq(a: PyVal, b: PyVal): boolean {
  if ((typeof a === "number" || typeof a === "boolean") && (typeof b === "number" || typeof b === "boolean")) return Number(a) === Number(b);
  if (isDate(a) && isDate(b)) return a.kind === b.kind && a.ms === b.ms;
  return a === b;
}

/** pandas' type inference for one column (`maybe_convert_numeric`, `maybe_convert_bool`, datetimes). */
function inferColumn(cells: Raw[]): { dtype: Dtype; values: PyVal[] } {
  const numeric = toNumeric(cells);
  if (numeric) return numeric;
  const values: PyVal[] = cells.map((c) => (c === "" || c === null || (typeof c === "string" && NA.has(c)) ? null : c));
  const present = values.filter((v) => v !== null);
  const boolish = (v: PyVal) => typeof v === "boolean" || (typeof v === "string" && (TRUE.has(v) || FALSE.has(v)));
  if (present.every(boolish)) {
    const bools = values.map((v) => (v === null ? null : typeof v === "boolean" ? v : TRUE.has(v as string)));
    return { dtype: present.length === values.length ? "bool" : "object", values: bools };
  }
  if (present.every((v) => isDate(v) && v.kind === "datetime")) return { dtype: "datetime64", values };
  if (present.every((v) => isDate(v) && v.kind === "timedelta")) return { dtype: "timedelta64", values };
  return { dtype: "object", values };
}

function toNumeric(cells: Raw[]): { dtype: Dtype; values: PyVal[] } | undefined {
  let seenFloat = false;
  let seenInt = false;
  let seenBool = false;
  const values: PyVal[] = [];
  for (const c of cells) {
    if (c === "" || c === null || (typeof c === "string" && NA.has(c))) {
      seenFloat = true;
      values.push(null);
    } else if (typeof c === "number") {
      if (Number.isInteger(c)) seenInt = true;
      else seenFloat = true;
      values.push(c);
    } else if (typeof c === "boolean") {
      seenBool = true;
      values.push(c);
    } else if (typeof c === "string" && INT.test(c)) {
      seenInt = true;
      values.push(Number(c.trim()));
    } else if (typeof c === "string" && FLOAT.test(c)) {
      seenFloat = true;
      const t = c.trim().toLowerCase().replace(/^\+/, "");
      values.push(t.endsWith("inf") || t.endsWith("infinity") ? (t.startsWith("-") ? -Infinity : Infinity) : Number(t));
    } else return undefined;
  }
  if (cells.length === 0) return { dtype: "object", values };
  const asNumber = values.map((v) => (typeof v === "boolean" ? Number(v) : v));
  if (seenFloat) return { dtype: "float64", values: asNumber };
  if (seenInt) return { dtype: "int64", values: asNumber };
  if (seenBool) return { dtype: "bool", values };
  return { dtype: "int64", values: asNumber };
}

/** Reads a sheet as `pd.read_excel(file, sheet)` does; undefined when the sheet is not there. */
export async function readExcelLikePandas(book: Book, sheetName: string): Promise<Frame | undefined> {
  const rows = await sheetRows(book, sheetName);
  if (!rows) return undefined;
  if (rows.length === 0) return { columns: [], dtypes: [], data: [], nrows: 0 };
  // read_excel parses with skip_blank_lines=False: a blank row (a one-column sheet's too) is a row of NaN.
  const [header, ...body] = rows;
  const columns = columnNames(header!);
  const inferred = columns.map((_, j) => inferColumn(body.map((r) => r[j] ?? "")));
  return { columns, dtypes: inferred.map((c) => c.dtype), data: inferred.map((c) => c.values), nrows: body.length };
}

/** numpy's `round(x, decimals)`: scale, round half to even, unscale. */
export function npRound(x: number, decimals: number): number {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** decimals;
  const y = x * f;
  const r = Math.round(y);
  const even = Math.abs(y % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
  return even / f;
}

/** `DataFrame.round(decimals)`: float columns rounded, the others as they are. */
export function roundFrame(f: Frame, decimals: number): Frame {
  return {
    ...f,
    data: f.data.map((col, j) => (f.dtypes[j] === "float64" ? col.map((v) => (typeof v === "number" ? npRound(v, decimals) : v)) : col)),
  };
}

const sameCell = (a: PyVal, b: PyVal) => (a === null && b === null) || (a !== null && b !== null && pyEq(a, b));

/** `DataFrame.equals`: undefined when equal, else why not. */
export function frameDifference(a: Frame, b: Frame, labelA: string, labelB: string): string | undefined {
  const names = (f: Frame) => f.columns.map((c) => showVal(c)).join(", ");
  if (a.columns.length !== b.columns.length || a.columns.some((c, i) => !sameCell(c, b.columns[i]!))) {
    return `column names differ: ${labelA} has [${names(a)}], ${labelB} has [${names(b)}]`;
  }
  if (a.nrows !== b.nrows) return `${labelA} has ${a.nrows} data row(s) below the header, ${labelB} ${b.nrows}`;
  for (let j = 0; j < a.columns.length; j++) {
    const col = showVal(a.columns[j]!);
    if (a.dtypes[j] !== b.dtypes[j]) {
      const sample = (f: Frame) => showVal(f.data[j]!.find((v) => v !== null) ?? null);
      return `column ${col} is ${a.dtypes[j]} in ${labelA} (e.g. ${sample(a)}) but ${b.dtypes[j]} in ${labelB} (e.g. ${sample(b)})`;
    }
    const i = a.data[j]!.findIndex((v, k) => !sameCell(v, b.data[j]![k]!));
    if (i >= 0) return `column ${col}, data row ${i + 1}: ${labelA} has ${showCell(a.data[j]![i]!)}, ${labelB} has ${showCell(b.data[j]![i]!)}`;
  }
  return undefined;
}

const showCell = (v: PyVal) => (v === null ? "an empty cell" : showVal(v));
