import { attr, type Book, type RawCell, type XNode } from "./xlsx.js";
import type { PyDate, PyVal } from "../../../pycompat/cellValues.js";
import { roundHalfEven } from "../../../pycompat/pyNumbers.js";

/**
 * openpyxl's reading of a cell from the xlsx's XML: numbers, text, booleans, and dates per the
 * cell's number format (the values themselves are pycompat/cellValues.ts's).
 */

/** openpyxl's built-in number formats. */
export const BUILTIN_FORMATS: Record<number, string> = {
  0: "General",
  1: "0",
  2: "0.00",
  3: "#,##0",
  4: "#,##0.00",
  5: '"$"#,##0_);("$"#,##0)',
  6: '"$"#,##0_);[Red]("$"#,##0)',
  7: '"$"#,##0.00_);("$"#,##0.00)',
  8: '"$"#,##0.00_);[Red]("$"#,##0.00)',
  9: "0%",
  10: "0.00%",
  11: "0.00E+00",
  12: "# ?/?",
  13: "# ??/??",
  14: "mm-dd-yy",
  15: "d-mmm-yy",
  16: "d-mmm",
  17: "mmm-yy",
  18: "h:mm AM/PM",
  19: "h:mm:ss AM/PM",
  20: "h:mm",
  21: "h:mm:ss",
  22: "m/d/yy h:mm",
  37: "#,##0_);(#,##0)",
  38: "#,##0_);[Red](#,##0)",
  39: "#,##0.00_);(#,##0.00)",
  40: "#,##0.00_);[Red](#,##0.00)",
  41: '_(* #,##0_);_(* \\(#,##0\\);_(* "-"_);_(@_)',
  42: '_("$"* #,##0_);_("$"* \\(#,##0\\);_("$"* "-"_);_(@_)',
  43: '_(* #,##0.00_);_(* \\(#,##0.00\\);_(* "-"??_);_(@_)',
  44: '_("$"* #,##0.00_)_("$"* \\(#,##0.00\\)_("$"* "-"??_)_(@_)',
  45: "mm:ss",
  46: "[h]:mm:ss",
  47: "mmss.0",
  48: "##0.0E+0",
  49: "@",
};

const STRIP_RE = /".*?"|\[(?!hh?\]|mm?\]|ss?\])[^\]]*\]/g;
const TIMEDELTA_RE = /\[hh?\](:mm(:ss(\.0*)?)?)?|\[mm?\](:ss(\.0*)?)?|\[ss?\](\.0*)?/i;

/** openpyxl's `is_date_format`. */
export function isDateFormat(fmt: string | undefined): boolean {
  if (fmt === undefined) return false;
  return /(?<![_\\])[dmhysDMHYS]/.test(fmt.split(";")[0]!.replace(STRIP_RE, ""));
}

/** openpyxl's `is_timedelta_format`. */
export const isTimedeltaFormat = (fmt: string | undefined) => fmt !== undefined && TIMEDELTA_RE.test(fmt.split(";")[0]!);

/** The number format code of a cellXfs entry, as openpyxl's `cell.number_format` gives it. */
export function numberFormatOf(book: Book, styleIndex: number): string {
  const xf = book.styles?.cellXfs?.xf?.[styleIndex];
  const id = Number(attr(xf, "numFmtId") ?? 0);
  const custom = (book.styles?.numFmts?.numFmt ?? []).find((n: XNode) => Number(attr(n, "numFmtId")) === id);
  if (custom) return String(attr(custom, "formatCode") ?? "");
  return BUILTIN_FORMATS[id] ?? "General";
}

/**
 * openpyxl's `Bool` descriptor on an attribute's text: "false", "f" and "0" are False, any other
 * text is Python's `bool(text)` (so "on" and "True" are True, "" is False); absent is False.
 */
export function openpyxlBool(text: string | undefined): boolean {
  if (text === undefined) return false;
  return !["false", "f", "0"].includes(text) && text !== "";
}

const DAY_MS = 86_400_000;
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const EPOCH_1904 = Date.UTC(1904, 0, 1);

/** openpyxl's `from_excel`. */
export function fromExcel(value: number, timedelta: boolean, date1904: boolean): PyDate {
  if (timedelta) return { kind: "timedelta", ms: roundHalfEven(value * DAY_MS) };
  let day = Math.floor(value);
  const diff = roundHalfEven((value - day) * DAY_MS);
  if (value >= 0 && value < 1 && diff < DAY_MS) return { kind: "time", ms: diff };
  if (value > 0 && value < 60 && !date1904) day += 1;
  return { kind: "datetime", ms: (date1904 ? EPOCH_1904 : EPOCH_1900) + day * DAY_MS + diff };
}

/** openpyxl's `_cast_number`: float when the text has ".", "e" or "E", int otherwise. */
const castNumber = (v: string) => Number(v.trim());

/**
 * A cell's value as openpyxl reads it with `data_only=True` (what pandas gets): the cached result
 * of a formula, "#N/A"-like errors flagged, dates per the number format.
 */
export function dataOnlyValue(book: Book, cell: RawCell | undefined): { value: PyVal; error: boolean } {
  if (!cell) return { value: null, error: false };
  if (cell.t === "inlineStr") return { value: inlineText(cell.inline), error: false };
  const v = cell.v === undefined || cell.v === "" ? undefined : cell.v;
  if (v === undefined) return { value: null, error: false };
  switch (cell.t) {
    case "n": {
      const n = castNumber(v);
      const fmt = numberFormatOf(book, cell.s);
      if (isDateFormat(fmt)) return { value: fromExcel(n, isTimedeltaFormat(fmt), book.date1904), error: false };
      return { value: n, error: false };
    }
    case "s":
      return { value: book.sharedStrings[Number(v)] ?? null, error: false };
    case "b":
      return { value: Number(v) !== 0, error: false };
    case "e":
      return { value: v, error: true };
    case "d": {
      const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : `${v}Z`);
      return { value: Number.isNaN(ms) ? v : { kind: "datetime", ms }, error: false };
    }
    default:
      return { value: v, error: false };
  }
}

function inlineText(is: XNode): string | null {
  if (is === undefined) return null;
  const own = is.t === undefined ? "" : String(typeof is.t === "object" ? (is.t["#text"] ?? "") : is.t);
  const runs = (is.r ?? []).map((r: XNode) => (typeof r.t === "object" ? (r.t["#text"] ?? "") : (r.t ?? ""))).join("");
  return own + runs;
}
