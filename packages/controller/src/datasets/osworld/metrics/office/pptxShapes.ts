import { PythonWouldRaise } from "./package.js";
import { kid, kidPath, kids, leafText, type XEl } from "./xml.js";

/**
 * Shapes, text frames, paragraphs, runs and tables of a slide as python-pptx presents them
 * (`slide.shapes`, `shape.text_frame.paragraphs`, `paragraph.runs`, `run.font`, `shape.table`).
 */

/** `run.font` as python-pptx reads it from `a:rPr`. */
export interface PptxFont {
  /** `font.name`: `a:latin/@typeface`, or null. */
  name: string | null;
  /** `font.size` in hundredths of a point (`@sz`), or null. */
  size: number | null;
  bold: boolean | null;
  italic: boolean | null;
  /** `font.underline`: true (`sng`), false (`none`), null (absent) or the other `@u` value. */
  underline: boolean | string | null;
  /** `font.color.rgb` as `RRGGBB`, or undefined when `hasattr(font.color, "rgb")` is false. */
  rgb: string | undefined;
  /** `rPr.attrib.get('strike', 'noStrike')`. */
  strike: string;
}

/** One `a:r` run. */
export interface PptxRun {
  text: string;
  font: PptxFont;
}

/** One `a:p` paragraph. */
export interface PptxParagraph {
  /** `paragraph.text`: runs, fields, and `\v` for each line break. */
  text: string;
  /** `paragraph.level` (`a:pPr/@lvl`, default 0). */
  level: number;
  /** `paragraph.alignment` as the raw `@algn` value (`ctr`), or null. */
  alignment: string | null;
  runs: PptxRun[];
}

/** A table's grid (`shape.table`). */
export interface PptxTable {
  rows: number;
  columns: number;
  /** `table.cell(r, c).text_frame.paragraphs`; raises like python-pptx when the cell is missing. */
  cell(row: number, col: number): PptxParagraph[];
}

/** One shape of `slide.shapes` (or of a group's `shapes`). */
export interface PptxShape {
  /** The element's tag (`p:sp`, `p:pic`, `p:graphicFrame`, `p:grpSp`, `p:cxnSp`, `p:contentPart`). */
  tag: string;
  /** `hasattr(shape, "text")`: true for `p:sp` shapes only. */
  hasText: boolean;
  /** `shape.text` ("" for shapes without text). */
  text: string;
  paragraphs: PptxParagraph[];
  /** `shape.shape_type` as MSO_SHAPE_TYPE's number, null for None, or what python-pptx raises. */
  shapeType: number | null | PythonWouldRaise;
  left: number | null;
  top: number | null;
  width: number | null;
  height: number | null;
  /** `shape.table`, when this is a table graphic frame. */
  table?: PptxTable;
  /** A group's shapes. */
  children?: PptxShape[];
  /** The placeholder's `@idx` (default 0), when this is a slide placeholder that inherits its size. */
  inheritsFromIdx?: number;
}

/** The elements python-pptx counts as shapes (`CT_GroupShape._shape_tags`). */
export const SHAPE_TAGS = new Set(["p:sp", "p:grpSp", "p:graphicFrame", "p:cxnSp", "p:pic", "p:contentPart"]);

const URI_TABLE = "http://schemas.openxmlformats.org/drawingml/2006/table";
const URI_CHART = "http://schemas.openxmlformats.org/drawingml/2006/chart";
const URI_OLE = "http://schemas.openxmlformats.org/presentationml/2006/ole";
const FILL_TAGS = ["a:noFill", "a:solidFill", "a:gradFill", "a:blipFill", "a:pattFill", "a:grpFill"];
const COLOR_TAGS = ["a:scrgbClr", "a:srgbClr", "a:hslClr", "a:sysClr", "a:schemeClr", "a:prstClr"];

function xsdBool(v: string | undefined): boolean | null {
  if (v === undefined) return null;
  return v === "1" || v === "true";
}

function intAttr(v: string | undefined): number | null {
  if (v === undefined) return null;
  const n = Number.parseInt(v, 10);
  return Number.isNaN(n) ? null : n;
}

/** The first fill element of a fill-properties parent (`a:rPr`, `p:bgPr`). */
export function fillOf(parent: XEl | undefined): XEl | undefined {
  return kids(parent).find((k) => FILL_TAGS.includes(k.tag));
}

/** `ColorFormat.rgb` of a `a:solidFill`: `RRGGBB` for an `a:srgbClr`, undefined for other colour kinds. */
export function solidRgb(solidFill: XEl | undefined): string | undefined {
  const color = kids(solidFill).find((k) => COLOR_TAGS.includes(k.tag));
  if (color?.tag !== "a:srgbClr") return undefined;
  return (color.attrs.val ?? "").toUpperCase();
}

function fontOf(rPr: XEl | undefined): PptxFont {
  const u = rPr?.attrs.u;
  const fill = fillOf(rPr);
  return {
    name: kid(rPr, "a:latin")?.attrs.typeface ?? null,
    size: intAttr(rPr?.attrs.sz),
    bold: xsdBool(rPr?.attrs.b),
    italic: xsdBool(rPr?.attrs.i),
    underline: u === undefined ? null : u === "none" ? false : u === "sng" ? true : u,
    rgb: fill?.tag === "a:solidFill" ? solidRgb(fill) : undefined,
    strike: rPr?.attrs.strike ?? "noStrike",
  };
}

function runText(r: XEl): string {
  const t = kid(r, "a:t");
  return t ? (leafText(t) ?? "") : "";
}

/** Reads an `a:p` paragraph. */
export function paragraphOf(p: XEl): PptxParagraph {
  const pPr = kid(p, "a:pPr");
  let text = "";
  for (const k of kids(p)) {
    if (k.tag === "a:r" || k.tag === "a:fld") text += runText(k);
    else if (k.tag === "a:br") text += "\v";
  }
  return {
    text,
    level: intAttr(pPr?.attrs.lvl) ?? 0,
    alignment: pPr?.attrs.algn ?? null,
    runs: kids(p, "a:r").map((r) => ({ text: runText(r), font: fontOf(kid(r, "a:rPr")) })),
  };
}

/** The paragraphs of a text body; python-pptx adds `<a:p/>` to a missing body, so that reads as one empty paragraph. */
export function paragraphsOf(txBody: XEl | undefined): PptxParagraph[] {
  if (!txBody) return [{ text: "", level: 0, alignment: null, runs: [] }];
  return kids(txBody, "a:p").map(paragraphOf);
}

function tableOf(tbl: XEl): PptxTable {
  const trs = kids(tbl, "a:tr");
  return {
    rows: trs.length,
    columns: kids(kid(tbl, "a:tblGrid"), "a:gridCol").length,
    cell(row, col) {
      const tc = kids(trs[row], "a:tc")[col];
      if (!tc) throw new PythonWouldRaise(`table.cell(${row}, ${col}): no such a:tc (IndexError)`);
      return paragraphsOf(kid(tc, "a:txBody"));
    },
  };
}

function xfrmOf(el: XEl): XEl | undefined {
  if (el.tag === "p:graphicFrame") return kid(el, "p:xfrm");
  if (el.tag === "p:grpSp") return kidPath(el, "p:grpSpPr", "a:xfrm");
  return kidPath(el, "p:spPr", "a:xfrm");
}

/** `./*[1]/p:nvPr/p:ph`: the placeholder element that makes a shape a placeholder. */
export function phOf(el: XEl): XEl | undefined {
  return kidPath(kids(el)[0], "p:nvPr", "p:ph");
}

function graphicFrameType(el: XEl): { type: number | null; tbl?: XEl } {
  const gd = kidPath(el, "a:graphic", "a:graphicData");
  const uri = gd?.attrs.uri;
  if (uri === URI_CHART) return { type: 3 };
  if (uri === URI_TABLE) return { type: 19, tbl: kid(gd, "a:tbl") };
  if (uri === URI_OLE) return { type: 7 };
  return { type: null };
}

function spType(el: XEl, isPlaceholder: boolean): number | PythonWouldRaise {
  if (isPlaceholder) return 14;
  const spPr = kid(el, "p:spPr");
  if (kid(spPr, "a:custGeom")) return 5;
  const txBox = xsdBool(kidPath(el, "p:nvSpPr", "p:cNvSpPr")?.attrs.txBox) === true;
  if (kid(spPr, "a:prstGeom") && !txBox) return 1;
  if (txBox) return 17;
  return new PythonWouldRaise("shape_type: Shape instance of unrecognized shape type (NotImplementedError)");
}

/**
 * Reads one shape element. `onSlide` applies the slide's placeholder rules (a placeholder picture is
 * MSO_SHAPE_TYPE.PLACEHOLDER and inherits its size from the layout); group members do not get them.
 */
export function shapeOf(el: XEl, onSlide: boolean): PptxShape {
  const ph = phOf(el);
  const off = kid(xfrmOf(el), "a:off");
  const ext = kid(xfrmOf(el), "a:ext");
  const shape: PptxShape = {
    tag: el.tag,
    hasText: el.tag === "p:sp",
    text: "",
    paragraphs: [],
    shapeType: null,
    left: intAttr(off?.attrs.x),
    top: intAttr(off?.attrs.y),
    width: intAttr(ext?.attrs.cx),
    height: intAttr(ext?.attrs.cy),
  };
  if (el.tag === "p:sp") {
    shape.paragraphs = paragraphsOf(kid(el, "p:txBody"));
    shape.text = shape.paragraphs.map((p) => p.text).join("\n");
    shape.shapeType = spType(el, ph !== undefined);
  } else if (el.tag === "p:pic") {
    const video = kidPath(el, "p:nvPicPr", "p:nvPr", "a:videoFile");
    shape.shapeType = onSlide && ph ? 14 : video ? 16 : 13;
  } else if (el.tag === "p:graphicFrame") {
    const { type, tbl } = graphicFrameType(el);
    shape.shapeType = type;
    if (tbl) shape.table = tableOf(tbl);
  } else if (el.tag === "p:grpSp") {
    shape.shapeType = 6;
    shape.children = kids(el)
      .filter((k) => SHAPE_TAGS.has(k.tag))
      .map((k) => shapeOf(k, false));
  } else if (el.tag === "p:cxnSp") {
    shape.shapeType = 9;
  } else {
    shape.shapeType = new PythonWouldRaise(`${el.tag} does not implement .shape_type (NotImplementedError)`);
  }
  if (onSlide && ph && (el.tag === "p:sp" || el.tag === "p:pic")) shape.inheritsFromIdx = intAttr(ph.attrs.idx) ?? 0;
  return shape;
}
