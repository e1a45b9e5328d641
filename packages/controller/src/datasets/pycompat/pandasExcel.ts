import { cellStr, isPyDate, type PyVal, showVal } from "./cellValues.js";
import { FALSE, FLOAT, INT, NA, TRUE } from "./pandasCsv.js";
import { npRound } from "./pyNumbers.js";
import { pyEqual } from "./pyValues.js";

/**
 * pandas' reading of an Excel sheet (`pd.read_excel`, openpyxl engine, `header=0`) from the rows
 * its openpyxl reader gets, and `DataFrame.round(n).equals(...)`: the first row names the columns
 * (unnamed and repeated ones as pandas names them), each column gets the type pandas infers (text
 * that reads as numbers becomes numbers, a column with an empty cell and whole numbers is float64,
 * ...; pandas' NA strings and number patterns are those of pandasCsv.ts), and frames are equal only
 * with the same column names, row count, column types and values.
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

/** A cell as pandas' openpyxl reader converts it: "" for empty, null (NaN) for errors. */
export type Raw = PyVal | "";

/** A key under which Python's dict would file the value (1, 1.0 and True are one key). */
const pyKey = (v: PyVal): string =>
  typeof v === "number" || typeof v === "boolean" ? `n:${Number(v)}` : isPyDate(v) ? `d:${v.kind}:${v.ms}` : `s:${String(v)}`;

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
        col = `${cellStr(old)}.${cur}`;
        cur = cols.some((c) => pyEqual(c, col)) ? cur + 1 : (counts.get(pyKey(col)) ?? 0);
      }
      cols[i] = col;
    }
    counts.set(pyKey(col), cur + 1);
  }
  return cols;
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
  if (present.every((v) => isPyDate(v) && v.kind === "datetime")) return { dtype: "datetime64", values };
  if (present.every((v) => isPyDate(v) && v.kind === "timedelta")) return { dtype: "timedelta64", values };
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

/**
 * A frame as `pd.read_excel(file, sheet)` (openpyxl engine, `header=0`) builds it from the sheet's
 * rows as its openpyxl reader gets them (`get_sheet_data`): the first row names the columns, a type
 * per column is inferred from the rest.
 */
export function frameFromSheetRows(rows: Raw[][]): Frame {
  if (rows.length === 0) return { columns: [], dtypes: [], data: [], nrows: 0 };
  // read_excel parses with skip_blank_lines=False: a blank row (a one-column sheet's too) is a row of NaN.
  const [header, ...body] = rows;
  const columns = columnNames(header!);
  const inferred = columns.map((_, j) => inferColumn(body.map((r) => r[j] ?? "")));
  return { columns, dtypes: inferred.map((c) => c.dtype), data: inferred.map((c) => c.values), nrows: body.length };
}

/** `DataFrame.round(decimals)`: float columns rounded, the others as they are. */
export function roundFrame(f: Frame, decimals: number): Frame {
  return {
    ...f,
    data: f.data.map((col, j) => (f.dtypes[j] === "float64" ? col.map((v) => (typeof v === "number" ? npRound(v, decimals) : v)) : col)),
  };
}

const sameCell = (a: PyVal, b: PyVal) => (a === null && b === null) || (a !== null && b !== null && pyEqual(a, b));

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
