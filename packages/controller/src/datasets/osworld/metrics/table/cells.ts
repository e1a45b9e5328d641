import { parseMultiRange, XmlValue } from "./match.js";
import { dataOnlyValue, numberFormatOf, openpyxlBool } from "./values.js";
import type { PyVal } from "../../../pycompat/cellValues.js";
import { attr, type Book, parseRef, type RawSheet, textOf, type XNode } from "./xlsx.js";
import { pyStrip } from "../../../pycompat/pyStr.js";

export { XmlValue };

/**
 * A cell as OSWorld reads it two other ways: `read_cell_value` (its own raw-XML reader) and an
 * openpyxl `Cell` (formulas as text, style, merged or not) for `_read_cell_style`.
 */

/** What openpyxl raises where OSWorld does not catch it (an attribute of None, say). */
export class PyError extends Error {}

const XML_NS = "http://www.w3.org/XML/1998/namespace";

/**
 * `xmltodict.parse`'s value of an element parsed by fast-xml-parser (with its default
 * strip_whitespace): the stripped text, None when there is none, or a dict of `@attributes`,
 * children and `#text` when it has attributes or children.
 */
function xmltodictValue(node: XNode): unknown {
  if (node === undefined || node === null) return null;
  if (Array.isArray(node)) return node.map(xmltodictValue);
  if (typeof node !== "object") return pyStrip(String(node)) || null;
  const dict: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    // xml:space is the only namespaced attribute a cell's text has; fast-xml-parser drops the prefix.
    if (k.startsWith("@_")) dict[k === "@_space" ? `@${XML_NS}:space` : `@${k.slice(2)}`] = String(v);
  }
  for (const [k, v] of Object.entries(node)) if (!k.startsWith("@_") && k !== "#text") dict[k] = xmltodictValue(v);
  const text = pyStrip(textOf(node) ?? "");
  if (Object.keys(dict).length === 0) return text || null;
  if (text) dict["#text"] = text;
  return dict;
}

/** `cell["c"]["is"]["t"]` of xmltodict's cell: KeyError (None) without one, TypeError when `<is>` holds only text. */
function inlineStringValue(is: XNode): PyVal | XmlValue {
  if (is === undefined) return null;
  if (typeof is !== "object" || is === null) throw new PyError("read_cell_value: <is> has no elements (TypeError: string indices must be integers)");
  if (is.t === undefined) return null;
  const v = xmltodictValue(is.t);
  return v === null || typeof v === "string" ? v : new XmlValue(v as Record<string, unknown> | unknown[]);
}

/**
 * OSWorld's `read_cell_value(file, sheet, "B3")`: numbers as floats, shared/inline/formula text,
 * error codes as text, None for an empty or missing cell (and for booleans, which it does not read).
 * The cell itself is read by xmltodict, which strips text: formula results, error codes and inline
 * strings lose their surrounding blanks (shared strings, read by lxml, keep them), and an inline
 * string with an attribute (`xml:space="preserve"`) is a dict; one of rich-text runs is None.
 */
export async function readCellValue(book: Book, sheetName: string, coordinate: string): Promise<PyVal | XmlValue> {
  const ids = new Map(book.sheets.map((s) => [s.name, s.sheetId]));
  const id = ids.get(sheetName);
  if (id === undefined) return null;
  const sheet = await book.sheetById(id);
  if (!sheet) return null;
  let cell: XNode;
  for (const row of sheet.root.sheetData?.row ?? []) {
    cell = (row.c ?? []).find((c: XNode) => attr(c, "r") === coordinate);
    if (cell) break;
  }
  if (!cell) return null;
  const t = attr(cell, "t");
  const v = cell.v === undefined ? undefined : textOf(cell.v);
  if (t === undefined || t === "n") {
    if (v === undefined || v.trim() === "" || Number.isNaN(Number(v.trim()))) return null;
    return Number(v.trim());
  }
  if (t === "s") return v === undefined ? null : ((book.sharedStringsAllT ?? [])[Number(v)] ?? null);
  if (t === "str" || t === "e") return v === undefined ? null : pyStrip(v) || null;
  if (t === "inlineStr") return inlineStringValue(cell.is);
  return null;
}

/** An openpyxl cell (`load_workbook(file)`, not data-only). */
export interface PyCell {
  /** Its value: a formula's text ("=A1+1") rather than its result. */
  value: PyVal;
  /** openpyxl's data_type: n, s, b, e, d, f. */
  dataType: string;
  /** Its cellXfs index (0 for merged and new cells). */
  xf: number;
  /** A `MergedCell`: inside a merged range but not its top-left cell. */
  merged: boolean;
}

/** The merged ranges of a sheet. */
export function mergedRanges(sheet: RawSheet) {
  const refs: string[] = (sheet.root.mergeCells?.mergeCell ?? []).map((m: XNode) => String(attr(m, "ref") ?? ""));
  return refs.filter(Boolean).flatMap((r) => parseMultiRange(r));
}

/** The openpyxl cell at (row, col). */
export function pyCell(book: Book, sheet: RawSheet, row: number, col: number, merged = mergedRanges(sheet)): PyCell {
  if (merged.some((m) => row >= m.minRow && row <= m.maxRow && col >= m.minCol && col <= m.maxCol && !(row === m.minRow && col === m.minCol))) {
    return { value: null, dataType: "n", xf: 0, merged: true };
  }
  const raw = sheet.cells.get(`${row},${col}`);
  if (!raw) return { value: null, dataType: "n", xf: 0, merged: false };
  if (raw.hasFormula) return { value: `=${raw.formula}`, dataType: "f", xf: raw.s, merged: false };
  const { value, error } = dataOnlyValue(book, raw);
  const dataType =
    value === null ? "n" : error ? "e" : typeof value === "object" ? "d" : typeof value === "boolean" ? "b" : typeof value === "string" ? "s" : "n";
  return { value, dataType, xf: raw.s, merged: false };
}

/** The openpyxl cell at "B3". */
export function pyCellAt(book: Book, sheet: RawSheet, coordinate: string): PyCell {
  const pos = parseRef(coordinate);
  if (!pos) throw new Error(`not a cell coordinate: ${JSON.stringify(coordinate)}`);
  return pyCell(book, sheet, pos[0], pos[1]);
}

/** What openpyxl's `Color.rgb` gives for a theme, indexed or automatic color (its descriptor's text). */
export const NOT_RGB = "Values must be of type <class 'str'>";

/** openpyxl's `Color(...).rgb` for a `<color>`/`<fgColor>` element; undefined when there is no element. */
export function colorRgb(node: XNode): string | undefined {
  if (node === undefined) return undefined;
  if (attr(node, "indexed") !== undefined || attr(node, "theme") !== undefined || attr(node, "auto") !== undefined) return NOT_RGB;
  const rgb = attr(node, "rgb");
  if (rgb === undefined) return "00000000";
  return rgb.length === 6 ? `00${rgb}` : rgb;
}

/** A font's `<b>`/`<i>` as openpyxl reads it: absent is False, `<b/>` True, `val` by {@link openpyxlBool}. */
const nestedBool = (node: XNode): boolean => {
  if (node === undefined) return false;
  const v = attr(Array.isArray(node) ? node[0] : node, "val");
  return v === undefined ? true : openpyxlBool(v);
};
const nestedVal = (node: XNode) => attr(Array.isArray(node) ? node[0] : node, "val");

const UNDERLINES = new Set(["single", "double", "singleAccounting", "doubleAccounting"]);

/** A font's `<u>` as openpyxl reads it: `<u/>` is "single", "none" is None, a value outside its set fails to load. */
function underline(node: XNode): string | null {
  if (node === undefined) return null;
  const v = nestedVal(node) ?? "single";
  if (v === "none") return null;
  if (!UNDERLINES.has(v)) throw new PyError(`openpyxl cannot read the underline ${JSON.stringify(v)} (it allows ${[...UNDERLINES].join(", ")})`);
  return v;
}

/** A `<font>` as openpyxl's Font. */
export function fontProp(font: XNode, prop: string): PyVal {
  if (font === undefined || font === null) throw new PyError("'NoneType' object has no attribute 'font'");
  switch (prop) {
    case "font_name":
      return nestedVal(font.name) ?? null;
    case "font_family": {
      const v = nestedVal(font.family);
      return v === undefined ? null : Number(v);
    }
    case "font_color": {
      const rgb = colorRgb(font.color);
      if (rgb === undefined) throw new PyError("'NoneType' object has no attribute 'rgb' (the font has no color)");
      return rgb;
    }
    case "font_bold":
      return nestedBool(font.b);
    case "font_italic":
      return nestedBool(font.i);
    case "font_underline":
      return underline(font.u);
    case "font_size": {
      const v = nestedVal(font.sz);
      return v === undefined ? null : Number(v);
    }
    default:
      throw new Error(`unsupported style ${prop}`);
  }
}

/** The cell style props OSWorld's `_read_cell_style` knows and Pincer reads. */
export const CELL_STYLE_PROPS = new Set([
  "number_format",
  "font_name",
  "font_family",
  "font_color",
  "font_bold",
  "font_italic",
  "font_underline",
  "font_size",
  "fill_type",
  "bgcolor",
  "fgcolor",
  "merge",
]);

/**
 * OSWorld's `_read_cell_style(prop, cell, dxf)`; throws {@link PyError} where openpyxl raises and
 * OSWorld does not catch it.
 */
export function readCellStyle(book: Book, prop: string, cell: PyCell, dxf?: XNode): PyVal {
  const xf = book.styles?.cellXfs?.xf?.[cell.xf];
  const font = dxf ? dxf.font : book.styles?.fonts?.font?.[Number(attr(xf, "fontId") ?? 0)];
  const fill = dxf ? dxf.fill : book.styles?.fills?.fill?.[Number(attr(xf, "fillId") ?? 0)];
  if (prop === "number_format") {
    if (cell.value === null || cell.dataType !== "n") return null;
    if (!dxf) return numberFormatOf(book, cell.xf);
    const code = attr(dxf.numFmt, "formatCode");
    if (code === undefined) throw new PyError("'NoneType' object has no attribute 'formatCode'");
    return code;
  }
  if (prop.startsWith("font_") && CELL_STYLE_PROPS.has(prop)) return cell.value === null ? null : fontProp(font, prop);
  if (prop === "fill_type") {
    if (!fill) return null;
    return fill.gradientFill !== undefined ? "gradientFill" : fill.patternFill !== undefined ? "patternFill" : null;
  }
  if (prop === "bgcolor" || prop === "fgcolor") {
    const pattern = fill?.patternFill;
    if (!pattern || typeof pattern !== "object") return pattern === "" ? "00000000" : null;
    return colorRgb(dxf ? pattern.bgColor : pattern.fgColor) ?? "00000000";
  }
  if (prop === "merge") return cell.merged;
  if (prop === "hyperlink") throw new Error(`unsupported style ${prop}`);
  // A name _read_cell_style does not know: it raises NotImplementedError (check_cell reads None).
  throw new PyError(`NotImplementedError: Unsupported Style: ${prop}`);
}

/** Style names OSWorld's `_read_cell_style` knows but Pincer does not read. */
export const UNPORTED_STYLE_PROPS = new Set(["hyperlink"]);
