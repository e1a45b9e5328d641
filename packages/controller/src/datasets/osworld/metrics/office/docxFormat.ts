import { paragraphText, runText } from "./docx.js";
import { openPackage, type OoxmlPackage, PythonWouldRaise, relTarget } from "./package.js";
import { descendants, kid, kidPath, kids, type XEl } from "./xml.js";

/**
 * A .docx's formatting as python-docx shows it to OSWorld's document metrics: each paragraph's
 * runs with their direct font properties (`run.font.name`, `.subscript`, `.strike`, `.italic`,
 * `.size`, `.color.rgb`), its alignment and tab stops, the tables' cell paragraphs, and the
 * sections with their page size, margins and footers. Properties come from the run or paragraph
 * itself, as python-docx reads them (styles are not applied).
 */

/** python-docx's `ST_OnOff`: absent is null; "0", "false", "off" are false; raises on other text. */
function onOff(el: XEl | undefined): boolean | null {
  if (!el) return null;
  const v = el.attrs["w:val"];
  if (v === undefined || ["1", "true", "on"].includes(v)) return true;
  if (["0", "false", "off"].includes(v)) return false;
  throw new PythonWouldRaise(`${el.tag} has w:val ${JSON.stringify(v)}, not on/off (python-docx raises)`);
}

/** One run. */
export interface DocxRun {
  text: string;
  /** `font.name`: w:rFonts' w:ascii, or null. */
  fontName: string | null;
  /** `font.subscript`: null without w:vertAlign. */
  subscript: boolean | null;
  strike: boolean | null;
  italic: boolean | null;
  /** `font.size.pt`, or null without w:sz. */
  sizePt: number | null;
  /** `font.color.rgb` as "RRGGBB", or null (no colour, or "auto"). */
  rgb(): string | null;
  /** Every `w:br` in the run (`run.element.findall('.//w:br')`). */
  breaks: XEl[];
}

/** One paragraph. */
export interface DocxFormatParagraph {
  text: string;
  runs: DocxRun[];
  /** `paragraph_format.alignment` as its XML value (`center`, `both`, …), or null; raises for a value python-docx does not know. */
  alignment(): string | null;
  /** `paragraph_format.tab_stops`: each tab's alignment (XML value) and position in EMU. */
  tabStops(): Array<{ alignment: string; position: number }>;
}

/** One section (`w:sectPr`). */
export interface DocxSection {
  /** `page_width`, `left_margin`, `right_margin` in EMU, null when not set. */
  pageWidth: number | null;
  leftMargin: number | null;
  rightMargin: number | null;
  /** The text of the first paragraph of its primary footer (inherited from the section before; a new footer's is ""). */
  footerFirstParagraph(): Promise<string>;
}

/** A document's formatting. */
export interface DocxFormatDocument {
  paragraphs: DocxFormatParagraph[];
  /** Each table's rows, each row's cells, each cell's paragraphs. */
  tables: DocxFormatParagraph[][][][];
  sections: DocxSection[];
}

const ALIGNMENTS = new Set(["left", "center", "right", "both", "distribute", "mediumKashida", "highKashida", "lowKashida", "thaiDistribute"]);
const TWIPS_EMU = 635;

function runOf(r: XEl): DocxRun {
  const rPr = kid(r, "w:rPr");
  const sz = kid(rPr, "w:sz")?.attrs["w:val"];
  const vert = kid(rPr, "w:vertAlign");
  const fonts = kid(rPr, "w:rFonts");
  return {
    text: runText(r),
    fontName: fonts ? (fonts.attrs["w:ascii"] ?? null) : null,
    subscript: vert ? vert.attrs["w:val"] === "subscript" : null,
    strike: onOff(kid(rPr, "w:strike")),
    italic: onOff(kid(rPr, "w:i")),
    // python-docx: Pt(half_points / 2) in whole EMU, read back in points.
    sizePt: sz === undefined ? null : Math.trunc((Number(sz) / 2) * 12700) / 12700,
    rgb: () => {
      const v = kid(rPr, "w:color")?.attrs["w:val"];
      if (v === undefined || v === "auto") return null;
      if (!/^[0-9A-Fa-f]{6}$/.test(v)) throw new PythonWouldRaise(`w:color ${JSON.stringify(v)} is not a colour (python-docx raises)`);
      return v.toUpperCase();
    },
    breaks: descendants(r, "w:br"),
  };
}

function paragraphOf(p: XEl): DocxFormatParagraph {
  const pPr = kid(p, "w:pPr");
  return {
    text: paragraphText(p),
    runs: kids(p, "w:r").map(runOf),
    alignment: () => {
      const v = kid(pPr, "w:jc")?.attrs["w:val"];
      if (v === undefined) return null;
      if (!ALIGNMENTS.has(v)) throw new PythonWouldRaise(`w:jc ${JSON.stringify(v)} is not an alignment python-docx knows (it raises)`);
      return v;
    },
    tabStops: () =>
      kids(kid(pPr, "w:tabs"), "w:tab").map((t) => ({ alignment: t.attrs["w:val"] ?? "left", position: Number(t.attrs["w:pos"] ?? 0) * TWIPS_EMU })),
  };
}

const twips = (v: string | undefined) => (v === undefined ? null : Number(v) * TWIPS_EMU);

/** The primary footer of section `i`, its definition inherited from the sections before it. */
async function footerText(pkg: OoxmlPackage, docPart: string, sectPrs: XEl[], i: number): Promise<string> {
  for (let j = i; j >= 0; j--) {
    const ref = kids(sectPrs[j], "w:footerReference").find((f) => f.attrs["w:type"] === "default");
    if (!ref) continue;
    const part = await relTarget(pkg, docPart, ref.attrs["r:id"]);
    const ftr = part ? await pkg.xml(part) : undefined;
    if (!ftr) throw new PythonWouldRaise(`the footer ${ref.attrs["r:id"]} is missing (python-docx raises)`);
    const first = kids(ftr, "w:p")[0];
    return first ? paragraphText(first) : "";
  }
  // python-docx adds a new footer for the first section: one empty paragraph.
  return "";
}

/** Opens a document; `undefined` when it is missing or not a readable .docx. */
export async function readDocxFormat(path: string): Promise<DocxFormatDocument | undefined> {
  const pkg = await openPackage(path);
  if (!pkg) return undefined;
  const docPart = (await pkg.rels("")).find((r) => r.type.endsWith("/officeDocument") && !r.external)?.target;
  const root = docPart ? await pkg.xml(docPart).catch(() => undefined) : undefined;
  const body = kid(root, "w:body");
  if (!docPart || !root || root.tag !== "w:document") return undefined;
  const sectPrs = [...kids(body, "w:p").flatMap((p) => kidPath(p, "w:pPr", "w:sectPr") ?? []), ...kids(body, "w:sectPr")];
  return {
    paragraphs: kids(body, "w:p").map(paragraphOf),
    tables: kids(body, "w:tbl").map((tbl) => kids(tbl, "w:tr").map((tr) => kids(tr, "w:tc").map((tc) => kids(tc, "w:p").map(paragraphOf)))),
    sections: sectPrs.map((s, i) => ({
      pageWidth: twips(kid(s, "w:pgSz")?.attrs["w:w"]),
      leftMargin: twips(kid(s, "w:pgMar")?.attrs["w:left"]),
      rightMargin: twips(kid(s, "w:pgMar")?.attrs["w:right"]),
      footerFirstParagraph: () => footerText(pkg, docPart, sectPrs, i),
    })),
  };
}
