import { floatRepr } from "./pyNumbers.js";

/**
 * The Python values of spreadsheet cells (openpyxl's reading of them: None, str, int or float,
 * bool, and the datetime, time and timedelta of date-formatted numbers), and how Python prints them.
 */

/** A date/time value openpyxl makes of a date-formatted number. */
export interface PyDate {
  kind: "datetime" | "time" | "timedelta";
  /** Milliseconds since 1970 (datetime), since midnight (time), or the duration (timedelta). */
  ms: number;
}

/** A Python value of a cell: None, str, int/float, bool, or a date. */
export type PyVal = null | string | number | boolean | PyDate;

/** Whether a cell value is a date/time. */
export const isPyDate = (v: PyVal | undefined): v is PyDate => typeof v === "object" && v !== null;

const DAY_MS = 86_400_000;

/** A date as Python prints it (`2024-01-31 12:00:00`, `12:00:00`; a timedelta in days). */
export function showDate(d: PyDate): string {
  const iso = new Date(d.ms).toISOString();
  if (d.kind === "time") return iso.slice(11, 19);
  if (d.kind === "timedelta") return `${d.ms / DAY_MS} days`;
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

/** Python's `str()` of a cell value, numbers as floats (as OSWorld's `read_cell_value` returns them: `5.0`). */
export function cellStr(v: PyVal): string {
  if (v === null) return "None";
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "number") return floatRepr(v);
  return showDate(v);
}

/** A cell value for a reason: text quoted, numbers as Python prints them (whole ones as ints). */
export function showVal(v: PyVal | undefined): string {
  if (v === undefined) return "nothing";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : floatRepr(v);
  return cellStr(v);
}
