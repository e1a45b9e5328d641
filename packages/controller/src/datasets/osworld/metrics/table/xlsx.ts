import { readFile } from "node:fs/promises";
import { XMLParser } from "fast-xml-parser";
import JSZip from "jszip";

/**
 * An xlsx read from its XML parts (jszip + fast-xml-parser), so that OSWorld's three readers of a
 * workbook (pandas via openpyxl, openpyxl itself, and its own `read_cell_value` over the raw XML) can
 * be reproduced with their own quirks.
 */

/** Any parsed XML node: fast-xml-parser's plain objects, attributes as `@_name`. */
// biome-ignore lint/suspicious/noExplicitAny: parsed XML is untyped by nature
export type XNode = any;

const ARRAYS = new Set([
  "sheet",
  "si",
  "r",
  "rPh",
  "row",
  "c",
  "mergeCell",
  "xf",
  "font",
  "fill",
  "numFmt",
  "dataValidation",
  "conditionalFormatting",
  "cfRule",
  "formula",
  "Relationship",
  "col",
  "dxf",
  "sheetView",
]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  // Character references (&#252;) are text like any other to an XML reader.
  htmlEntities: true,
  isArray: (name) => ARRAYS.has(name),
});

/** Parses XML text. */
export function parseXml(text: string): XNode {
  return parser.parse(text);
}

/** The text of an element as fast-xml-parser gives it (a string, or an object with `#text`). */
export function textOf(node: XNode): string | undefined {
  if (node === undefined || node === null) return undefined;
  if (typeof node === "string") return node;
  if (typeof node === "object") {
    const t = node["#text"];
    return t === undefined ? "" : String(t);
  }
  return String(node);
}

/** An attribute's value. */
export const attr = (node: XNode, name: string): string | undefined =>
  node && typeof node === "object" ? (node[`@_${name}`] as string | undefined) : undefined;

/** A sheet of the workbook as `xl/workbook.xml` lists it. */
export interface SheetEntry {
  name: string;
  sheetId: string;
  /** Its part in the zip, from the workbook's relationships ("" when it has none). */
  path: string;
  /** A worksheet (not a chartsheet or dialogsheet). */
  isWorksheet: boolean;
}

/** A cell's raw XML. */
export interface RawCell {
  row: number;
  col: number;
  /** The `t` attribute (cell type), "n" when absent. */
  t: string;
  /** The `<v>` text, if any. */
  v: string | undefined;
  /** The cell has an `<f>` element. */
  hasFormula: boolean;
  /** The `<f>` text. */
  formula: string;
  /** The inline string (`t="inlineStr"`). */
  inline: XNode;
  /** The `s` attribute (style index). */
  s: number;
}

/** A worksheet's XML, parsed. */
export interface RawSheet {
  entry: SheetEntry;
  root: XNode;
  /** Rows in document order, each with its row number, its attributes and its cells. */
  rows: { r: number; node: XNode; cells: RawCell[] }[];
  /** Cells by "row,col". */
  cells: Map<string, RawCell>;
}

/** A loaded xlsx. */
export interface Book {
  file: string;
  zip: JSZip;
  sheets: SheetEntry[];
  /** Shared strings as openpyxl reads them (rich text runs joined, phonetic runs left out). */
  sharedStrings: string[];
  /** Shared strings as OSWorld's `read_cell_value` reads them (every `<t>` in the item). */
  sharedStringsAllT: string[] | undefined;
  styles: XNode;
  /** Dates count from 1904 (`workbookPr date1904`). */
  date1904: boolean;
  sheet(name: string): Promise<RawSheet | undefined>;
  /** The part `xl/worksheets/sheet{sheetId}.xml`, parsed, as `read_cell_value` opens it. */
  sheetById(sheetId: string): Promise<RawSheet | undefined>;
}

/** A zip part's text, or undefined. */
export async function partText(zip: JSZip, path: string): Promise<string | undefined> {
  const f = zip.file(path);
  return f ? f.async("string") : undefined;
}

/** The relationships of a part, id → absolute target path. */
export async function relsOf(zip: JSZip, part: string): Promise<Map<string, { target: string; type: string }>> {
  const slash = part.lastIndexOf("/");
  const dir = part.slice(0, slash);
  const text = await partText(zip, `${dir}/_rels/${part.slice(slash + 1)}.rels`);
  const out = new Map<string, { target: string; type: string }>();
  if (!text) return out;
  for (const rel of parseXml(text)?.Relationships?.Relationship ?? []) {
    const target = String(attr(rel, "Target") ?? "");
    out.set(String(attr(rel, "Id")), { target: resolvePath(dir, target), type: String(attr(rel, "Type") ?? "") });
  }
  return out;
}

/** Resolves a relationship target against the folder of its source part. */
export function resolvePath(dir: string, target: string): string {
  const parts = target.startsWith("/") ? [] : dir.split("/").filter(Boolean);
  for (const p of target.split("/")) {
    if (p === "..") parts.pop();
    else if (p && p !== ".") parts.push(p);
  }
  return parts.join("/");
}

const colNumber = (letters: string) => [...letters.toUpperCase()].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0);

/** "B3" → [row 3, column 2]; undefined when it is not a cell reference. */
export function parseRef(ref: string): [number, number] | undefined {
  const m = /^\$?([A-Za-z]{1,3})\$?(\d+)$/.exec(ref.trim());
  return m ? [Number(m[2]), colNumber(m[1]!)] : undefined;
}

/** Column 2 → "B". */
export function colLetter(col: number): string {
  let s = "";
  for (let n = col; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

function parseSheet(entry: SheetEntry, text: string): RawSheet {
  const root = parseXml(text)?.worksheet ?? {};
  const rows: RawSheet["rows"] = [];
  const cells = new Map<string, RawCell>();
  let rowCounter = 0;
  for (const rowNode of root.sheetData?.row ?? []) {
    const r = attr(rowNode, "r");
    rowCounter = r !== undefined && /^\d+$/.test(r) ? Number(r) : rowCounter + 1;
    let colCounter = 0;
    const list: RawCell[] = [];
    for (const c of rowNode.c ?? []) {
      const ref = attr(c, "r");
      const pos = ref ? parseRef(ref) : undefined;
      const [row, col] = pos ?? [rowCounter, colCounter + 1];
      colCounter = col;
      const f = c.f;
      const cell: RawCell = {
        row,
        col,
        t: attr(c, "t") ?? "n",
        v: textOf(c.v),
        hasFormula: f !== undefined,
        formula: textOf(f) ?? "",
        inline: c.is,
        s: Number(attr(c, "s") ?? 0) || 0,
      };
      list.push(cell);
      cells.set(`${row},${col}`, cell);
    }
    rows.push({ r: rowCounter, node: rowNode, cells: list });
  }
  return { entry, root, rows, cells };
}

function sharedStringsOf(sst: XNode): { plain: string[]; allT: string[] } {
  const plain: string[] = [];
  const allT: string[] = [];
  for (const si of sst?.sst?.si ?? []) {
    const own = si.t === undefined ? "" : (textOf(si.t) ?? "");
    const runs = (si.r ?? []).map((r: XNode) => textOf(r.t) ?? "").join("");
    plain.push(own + runs);
    allT.push(own + runs + (si.rPh ?? []).map((p: XNode) => textOf(p.t) ?? "").join(""));
  }
  return { plain, allT };
}

/** Loads an xlsx; throws when the file is not a readable xlsx. */
export async function loadBook(file: string): Promise<Book> {
  const zip = await JSZip.loadAsync(await readFile(file));
  const wbText = await partText(zip, "xl/workbook.xml");
  if (wbText === undefined) throw new Error("no xl/workbook.xml in the file");
  const rels = await relsOf(zip, "xl/workbook.xml");
  const wb = parseXml(wbText)?.workbook;
  const d1904 = attr(wb?.workbookPr, "date1904");
  const sheets: SheetEntry[] = (wb?.sheets?.sheet ?? []).map((s: XNode) => {
    const rel = rels.get(String(attr(s, "id")));
    return {
      name: String(attr(s, "name") ?? ""),
      sheetId: String(attr(s, "sheetId") ?? ""),
      path: rel?.target ?? "",
      isWorksheet: rel ? rel.type.endsWith("/worksheet") : false,
    };
  });
  const sstText = await partText(zip, "xl/sharedStrings.xml");
  const sst = sstText === undefined ? { plain: [], allT: undefined } : sharedStringsOf(parseXml(sstText));
  const stylesText = await partText(zip, "xl/styles.xml");
  const styles = stylesText ? (parseXml(stylesText)?.styleSheet ?? {}) : {};
  const cache = new Map<string, Promise<RawSheet | undefined>>();
  const load = (key: string, entry: SheetEntry | undefined, path: string) => {
    if (!cache.has(key)) {
      cache.set(
        key,
        (async () => {
          const text = entry ? await partText(zip, path) : undefined;
          return text === undefined || !entry ? undefined : parseSheet(entry, text);
        })(),
      );
    }
    return cache.get(key)!;
  };
  return {
    file,
    zip,
    sheets,
    sharedStrings: sst.plain,
    sharedStringsAllT: sst.allT,
    styles,
    date1904: d1904 === "1" || d1904 === "true",
    sheet(name) {
      const entry = sheets.find((s) => s.name === name && s.isWorksheet);
      return load(`n:${name}`, entry, entry?.path ?? "");
    },
    sheetById(sheetId) {
      const entry = sheets.find((s) => s.sheetId === sheetId);
      return load(`i:${sheetId}`, entry, `xl/worksheets/sheet${sheetId}.xml`);
    },
  };
}
