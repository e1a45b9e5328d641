import { type OoxmlPackage, openPackage, PythonWouldRaise, relOfType, relTarget } from "./package.js";
import { fillOf, type PptxShape, paragraphsOf, phOf, SHAPE_TAGS, shapeOf, solidRgb } from "./pptxShapes.js";
import { pyStrip } from "../../../pycompat/pyStr.js";
import { descendants, kid, kidPath, kids, leafText, type XEl } from "./xml.js";

/**
 * A .pptx as python-pptx's `Presentation(path)` shows it to OSWorld's slide metrics: slides in
 * `p:sldIdLst` order, each with its shapes (placeholder sizes inherited from the layout and master),
 * background colour, notes text and the bullets of its paragraphs.
 */

/** One paragraph as `_extract_bullets` sees it: (lvl, bullet char, text). */
export interface PptxBullet {
  level: string | null;
  char: string | null;
  text: string;
}

/** One slide. */
export interface PptxSlide {
  shapes: PptxShape[];
  /** `get_all_text_shapes(slide)`: every `p:sp`, groups searched recursively. */
  textShapes: PptxShape[];
  /** `get_slide_background_color(slide)`: `RRGGBB`, null, or what python-pptx raises. */
  background: string | null | PythonWouldRaise;
  /** `slide.notes_slide.notes_text_frame.text` ("" when the slide has no notes slide). */
  notes: string | PythonWouldRaise;
  /** `_extract_bullets(slide xml)`, or "skip" where it raises (an empty `a:t`) and OSWorld skips it. */
  bullets: PptxBullet[] | "skip";
}

/** A presentation. */
export interface Presentation {
  slides: PptxSlide[];
  slideWidth: number | null;
  slideHeight: number | null;
}

const BASE_PH_TYPE: Record<string, string> = {
  body: "body",
  chart: "body",
  clipArt: "body",
  ctrTitle: "title",
  dgm: "body",
  dt: "dt",
  ftr: "ftr",
  media: "body",
  obj: "body",
  pic: "body",
  sldNum: "sldNum",
  subTitle: "body",
  tbl: "body",
  title: "title",
};

const DIMS = ["left", "top", "width", "height"] as const;

function phElements(root: XEl | undefined): XEl[] {
  return kids(kidPath(root, "p:cSld", "p:spTree")).filter((k) => SHAPE_TAGS.has(k.tag) && phOf(k) !== undefined);
}

/** Fills a slide placeholder's missing position/size from its layout placeholder (and that one's master placeholder). */
function inheritDims(shape: PptxShape, layout: XEl | undefined, master: XEl | undefined): void {
  if (shape.inheritsFromIdx === undefined || DIMS.every((d) => shape[d] !== null)) return;
  const layoutEl = phElements(layout).find((e) => Number.parseInt(phOf(e)!.attrs.idx ?? "0", 10) === shape.inheritsFromIdx);
  if (!layoutEl) return;
  const layoutShape = shapeOf(layoutEl, false);
  let masterShape: PptxShape | undefined;
  if (layoutEl.tag === "p:sp") {
    const base = BASE_PH_TYPE[phOf(layoutEl)!.attrs.type ?? "obj"];
    const masterEl = base === undefined ? undefined : phElements(master).find((e) => (phOf(e)!.attrs.type ?? "obj") === base);
    masterShape = masterEl ? shapeOf(masterEl, false) : undefined;
  }
  for (const d of DIMS) shape[d] ??= layoutShape[d] ?? masterShape?.[d] ?? null;
}

/** The fill of a `p:cSld/p:bg/p:bgPr`, as python-pptx's `background.fill` (a missing `p:bgPr` reads as noFill). */
function backgroundFill(root: XEl | undefined): { type: number | null; rgb?: string | PythonWouldRaise } {
  const bgPr = kidPath(root, "p:cSld", "p:bg", "p:bgPr");
  if (!bgPr) return { type: 5 };
  const fill = fillOf(bgPr);
  if (!fill) return { type: null };
  if (fill.tag === "a:noFill") return { type: 5 };
  if (fill.tag !== "a:solidFill") return { type: 0 };
  return { type: 1, rgb: solidRgb(fill) ?? new PythonWouldRaise("background fill.fore_color has no .rgb (AttributeError)") };
}

function backgroundOf(slide: XEl, master: XEl | undefined): string | null | PythonWouldRaise {
  const fill = backgroundFill(slide);
  if (fill.type === 1) return fill.rgb!;
  if (fill.type !== 5) return null;
  const masterFill = backgroundFill(master);
  return masterFill.type === 1 ? masterFill.rgb! : null;
}

async function notesOf(pkg: OoxmlPackage, slidePart: string): Promise<string | PythonWouldRaise> {
  const notesPart = await relOfType(pkg, slidePart, "notesSlide");
  if (!notesPart) return ""; // python-pptx creates a notes slide with an empty body placeholder
  const body = phElements(await pkg.xml(notesPart)).find((e) => phOf(e)!.attrs.type === "body");
  if (!body) return new PythonWouldRaise("notes_slide.notes_text_frame is None (AttributeError)");
  if (body.tag !== "p:sp") return new PythonWouldRaise("the notes body placeholder has no text frame (AttributeError)");
  return paragraphsOf(kid(body, "p:txBody"))
    .map((p) => p.text)
    .join("\n");
}

/** `_extract_bullets` over the whole slide part. */
function bulletsOf(slide: XEl): PptxBullet[] | "skip" {
  const out: PptxBullet[] = [];
  for (const p of descendants(slide, "a:p")) {
    const pPr = kid(p, "a:pPr");
    const ts = descendants(p, "a:t").map(leafText);
    if (ts.some((t) => t === null)) return "skip"; // "".join() of a None text raises; OSWorld then skips the comparison
    const text = ts.join("");
    const level = pPr ? (pPr.attrs.lvl ?? null) : "No Level";
    const char = pPr ? (kid(pPr, "a:buChar") ? (kid(pPr, "a:buChar")!.attrs.char ?? null) : "No Bullet") : "No Bullet";
    if (pyStrip(text) !== "") out.push({ level, char, text });
  }
  return out;
}

function textShapesOf(shapes: PptxShape[]): PptxShape[] {
  return shapes.flatMap((s) => [...(s.hasText ? [s] : []), ...textShapesOf(s.children ?? [])]);
}

async function slideOf(pkg: OoxmlPackage, part: string): Promise<PptxSlide> {
  const root = await pkg.xml(part);
  if (!root) throw new PythonWouldRaise(`slide part ${part} is missing (KeyError)`);
  const layoutPart = await relOfType(pkg, part, "slideLayout");
  const layout = layoutPart ? await pkg.xml(layoutPart) : undefined;
  const masterPart = layoutPart ? await relOfType(pkg, layoutPart, "slideMaster") : undefined;
  const master = masterPart ? await pkg.xml(masterPart) : undefined;
  const shapes = kids(kidPath(root, "p:cSld", "p:spTree"))
    .filter((k) => SHAPE_TAGS.has(k.tag))
    .map((k) => shapeOf(k, true));
  for (const s of shapes) inheritDims(s, layout, master);
  return {
    shapes,
    textShapes: textShapesOf(shapes),
    background: backgroundOf(root, master),
    notes: await notesOf(pkg, part),
    bullets: bulletsOf(root),
  };
}

/**
 * Opens a presentation; `undefined` when the file is missing or not a zip. Throws
 * {@link PythonWouldRaise} where `Presentation(path)` would fail (no presentation part).
 */
export async function readPresentation(path: string): Promise<Presentation | undefined> {
  const pkg = await openPackage(path);
  if (!pkg) return undefined;
  const presPart = await relOfType(pkg, "", "officeDocument");
  const pres = presPart ? await pkg.xml(presPart) : undefined;
  if (!presPart || !pres) throw new PythonWouldRaise("the package has no presentation part");
  const slides: PptxSlide[] = [];
  for (const sldId of kids(kid(pres, "p:sldIdLst"), "p:sldId")) {
    const part = await relTarget(pkg, presPart, sldId.attrs["r:id"]);
    if (!part) throw new PythonWouldRaise(`slide relationship ${sldId.attrs["r:id"]} is missing (KeyError)`);
    slides.push(await slideOf(pkg, part));
  }
  const sz = kid(pres, "p:sldSz");
  const num = (v: string | undefined) => (v === undefined ? null : Number.parseInt(v, 10));
  return { slides, slideWidth: num(sz?.attrs.cx), slideHeight: num(sz?.attrs.cy) };
}
