import { PythonWouldRaise } from "./package.js";
import type { Presentation, PptxSlide } from "./pptx.js";
import { bulletsMismatch, cellRunMismatch, comparableRuns, type RunSwitches, textRunMismatch } from "./pptxRuns.js";
import type { PptxParagraph, PptxShape } from "./pptxShapes.js";
import { pyStrip } from "../../../pycompat/pyStr.js";
import { fail, pass } from "../../../../evaluators/verdict.js";

/**
 * OSWorld's `compare_pptx_files` (slides.py) over two {@link Presentation}s, check for check and
 * in the same order, so the first mismatch found is the one OSWorld stops at.
 */

/** The options of `compare_pptx_files` (see the metric's schema for the defaults). */
export interface PptxCompareOptions extends RunSwitches {
  examine_number_of_slides: boolean;
  examine_shape: boolean;
  examine_text: boolean;
  examine_indent: boolean;
  examine_alignment: boolean;
  examine_title_bottom_position: boolean;
  examine_table_bottom_position: boolean;
  examine_right_position: boolean;
  examine_top_position: boolean;
  examine_shape_for_shift_size: boolean;
  examine_image_size: boolean;
  examine_modify_height: boolean;
  examine_bullets: boolean;
  examine_background_color: boolean;
  examine_note: boolean;
  approximately_tolerance: number;
  enable_debug: boolean;
}

interface Ctx {
  o: PptxCompareOptions;
  slide: number;
  s1: PptxSlide;
  s2: PptxSlide;
}

function val<T>(v: T | PythonWouldRaise): T {
  if (v instanceof PythonWouldRaise) throw v;
  return v;
}

function num(v: number | null, what: string): number {
  if (v === null) throw new PythonWouldRaise(`${what} is None in an ordering comparison (TypeError)`);
  return v;
}

function approx(a: number | null, b: number | null, tol: number): boolean {
  if (a === b) return true;
  if (a === null || b === null) throw new PythonWouldRaise("a position or size is None on one side only (TypeError)");
  if (a === 0 || b === 0) return false;
  return Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b)) <= tol;
}

function sameBox(a: PptxShape, b: PptxShape, tol: number): boolean {
  return approx(a.left, b.left, tol) && approx(a.top, b.top, tol) && approx(a.width, b.width, tol) && approx(a.height, b.height, tol);
}

const box = (s: PptxShape) => `(${s.left}, ${s.top}, ${s.width}×${s.height})`;

/** The special-purpose position checks, each off by default. */
function positionMismatch(a: PptxShape, b: PptxShape, c: Ctx): string | undefined {
  const { o, slide } = c;
  const tol = o.approximately_tolerance;
  const moved = `position/size differs ${box(a)} vs ${box(b)}`;
  if (o.examine_title_bottom_position) {
    if (a.hasText && b.hasText && a.text === b.text) {
      if (a.text === "Product Comparison" && (num(a.top, "top") <= num(b.top, "top") || num(a.top, "top") < 3600000)) {
        return "the title was not moved below where it was";
      }
    } else if (!sameBox(a, b, tol)) return moved;
  }
  if (o.examine_table_bottom_position) {
    if (slide === 3 && val(a.shapeType) === 19 && val(b.shapeType) === 19) {
      if (num(a.top, "top") <= num(b.top, "top") || num(a.top, "top") < 3600000) return "the table was not moved below where it was";
    } else if (!sameBox(a, b, tol)) return moved;
  }
  if (o.examine_right_position && slide === 2 && !a.hasText && !b.hasText) {
    if (num(a.left, "left") <= num(b.left, "left") || num(a.left, "left") < 4320000) return "the shape was not moved right";
  }
  if (o.examine_top_position && slide === 2 && val(a.shapeType) === 13 && val(b.shapeType) === 13) {
    if (num(a.top, "top") >= num(b.top, "top") || num(a.top, "top") > 1980000) return "the picture was not moved up";
  }
  if (o.examine_shape_for_shift_size && !sameBox(a, b, tol)) {
    if (!(a.hasText && b.hasText && a.text === b.text && a.text === "Elaborate on what you want to discuss.")) return moved;
  }
  const bothEmpty = pyStrip(a.text) === "" && pyStrip(b.text) === "";
  if (!sameBox(a, b, tol) && o.examine_shape && !bothEmpty) return moved;
  if (o.examine_image_size) {
    if (val(a.shapeType) === 13 && val(b.shapeType) === 13) {
      if (!approx(a.width, b.width, tol) || !approx(a.height, b.height, tol)) return `picture size differs ${box(a)} vs ${box(b)}`;
    } else if (!sameBox(a, b, tol)) return moved;
  }
  if (o.examine_modify_height) {
    if ((!a.hasText && !b.hasText) || (val(a.shapeType) === 5 && val(b.shapeType) === 5)) {
      if (!approx(a.height, b.height, tol)) return `height differs (${a.height} vs ${b.height})`;
    } else if (!sameBox(a, b, tol)) return moved;
  }
  return undefined;
}

function tableMismatch(a: PptxShape, b: PptxShape, o: PptxCompareOptions): string | undefined {
  const t1 = a.table;
  const t2 = b.table;
  if (!t1 || !t2) throw new PythonWouldRaise("shape does not contain a table (ValueError)");
  if (t1.rows !== t2.rows || t1.columns !== t2.columns) return `table size differs (${t1.rows}×${t1.columns} vs ${t2.rows}×${t2.columns})`;
  for (let r = 0; r < t1.rows; r++) {
    for (let col = 0; col < t1.columns; col++) {
      const ps1 = t1.cell(r, col);
      const ps2 = t2.cell(r, col);
      const where = `table cell [${r},${col}]`;
      if (ps1.length !== ps2.length) return `${where}: ${ps1.length} vs ${ps2.length} paragraphs`;
      for (let i = 0; i < ps1.length; i++) {
        const [runs1, runs2] = comparableRuns(ps1[i]!, ps2[i]!);
        if (runs1.length !== runs2.length && o.examine_run_count) return `${where}, paragraph ${i + 1}: ${runs1.length} vs ${runs2.length} runs`;
        for (let k = 0; k < Math.min(runs1.length, runs2.length); k++) {
          const why = cellRunMismatch(runs1[k]!.font, runs2[k]!.font, o);
          if (why) return `${where}, run ${JSON.stringify(runs1[k]!.text)}: ${why}`;
        }
      }
    }
  }
  return undefined;
}

function paragraphMismatch(p1: PptxParagraph, p2: PptxParagraph, c: Ctx): string | undefined {
  const { o } = c;
  if (o.examine_alignment && (p1.alignment ?? "l") !== (p2.alignment ?? "l")) {
    return `alignment differs (${p1.alignment ?? "None"} vs ${p2.alignment ?? "None"})`;
  }
  if (p1.text !== p2.text && o.examine_text) return `text differs (${JSON.stringify(p1.text)} vs ${JSON.stringify(p2.text)})`;
  if (p1.level !== p2.level && o.examine_indent && !(p1.level <= 1 && p2.level <= 1)) return `indent level differs (${p1.level} vs ${p2.level})`;
  const [runs1, runs2] = comparableRuns(p1, p2);
  if (runs1.length !== runs2.length && o.examine_run_count) return `${runs1.length} vs ${runs2.length} runs`;
  for (let k = 0; k < Math.min(runs1.length, runs2.length); k++) {
    const why = textRunMismatch(runs1[k]!.font, runs2[k]!.font, o);
    if (why) return `run ${JSON.stringify(runs1[k]!.text)}: ${why}`;
    const bullets = o.examine_bullets ? bulletsMismatch(c.s1.bullets, c.s2.bullets) : undefined;
    if (bullets) return bullets;
  }
  return undefined;
}

function textMismatch(a: PptxShape, b: PptxShape, c: Ctx): string | undefined {
  if (pyStrip(a.text) !== pyStrip(b.text) && c.o.examine_text) return `text differs (${JSON.stringify(a.text)} vs ${JSON.stringify(b.text)})`;
  if (a.paragraphs.length !== b.paragraphs.length) return `${a.paragraphs.length} vs ${b.paragraphs.length} paragraphs`;
  for (let i = 0; i < a.paragraphs.length; i++) {
    const why = paragraphMismatch(a.paragraphs[i]!, b.paragraphs[i]!, c);
    if (why) return `paragraph ${i + 1}: ${why}`;
  }
  return undefined;
}

function shapeMismatch(a: PptxShape, b: PptxShape, c: Ctx): string | undefined {
  if (c.o.enable_debug) {
    // OSWorld's debug logging (on by default) reads both shapes' shape_type first.
    val(a.shapeType);
    val(b.shapeType);
  }
  const why = positionMismatch(a, b, c);
  if (why) return why;
  if (val(a.shapeType) === 19) {
    const t = tableMismatch(a, b, c.o);
    if (t) return t;
  }
  if (a.hasText && b.hasText) return textMismatch(a, b, c);
  return undefined;
}

/** The check over `get_all_text_shapes` (group members included) that follows the shape loop. */
function textShapesMismatch(c: Ctx): string | undefined {
  const t1 = c.s1.textShapes;
  const t2 = c.s2.textShapes;
  if (t1.length !== t2.length) return `${t1.length} vs ${t2.length} text shapes (groups included)`;
  if (!c.o.examine_alignment) return undefined;
  for (let i = 0; i < t1.length; i++) {
    const a = t1[i]!;
    const b = t2[i]!;
    const where = `text shape ${i + 1} (groups included)`;
    if (pyStrip(a.text) !== pyStrip(b.text) && c.o.examine_text) return `${where}: text differs (${JSON.stringify(a.text)} vs ${JSON.stringify(b.text)})`;
    if (a.paragraphs.length !== b.paragraphs.length) return `${where}: ${a.paragraphs.length} vs ${b.paragraphs.length} paragraphs`;
    for (let k = 0; k < a.paragraphs.length; k++) {
      const x = a.paragraphs[k]!.alignment;
      const y = b.paragraphs[k]!.alignment;
      if ((x ?? "l") !== (y ?? "l")) return `${where}, paragraph ${k + 1}: alignment differs (${x ?? "None"} vs ${y ?? "None"})`;
    }
  }
  return undefined;
}

function slideMismatch(c: Ctx): string | undefined {
  const { s1, s2, o } = c;
  const bg1 = val(s1.background);
  const bg2 = val(s2.background);
  if (bg1 !== bg2 && o.examine_background_color) return `background colour differs (${bg1 ?? "None"} vs ${bg2 ?? "None"})`;
  const n1 = pyStrip(val(s1.notes));
  const n2 = pyStrip(val(s2.notes));
  if (n1 !== n2 && o.examine_note) return `notes differ (${JSON.stringify(n1)} vs ${JSON.stringify(n2)})`;
  if (s1.shapes.length !== s2.shapes.length) return `${s1.shapes.length} vs ${s2.shapes.length} shapes`;
  for (let i = 0; i < s1.shapes.length; i++) {
    const a = s1.shapes[i]!;
    const why = shapeMismatch(a, s2.shapes[i]!, c);
    const label = a.hasText && pyStrip(a.text) ? ` ${JSON.stringify(pyStrip(a.text).slice(0, 40))}` : "";
    if (why) return `shape ${i + 1}${label}: ${why}`;
  }
  return textShapesMismatch(c);
}

/** Compares two presentations; the reason names the slide and shape of the first mismatch. */
export function comparePresentations(p1: Presentation, p2: Presentation, o: PptxCompareOptions): { score: number; reason: string } {
  if (p1.slides.length !== p2.slides.length && o.examine_number_of_slides) {
    return fail(`${p1.slides.length} slides, expected ${p2.slides.length}`);
  }
  try {
    for (let i = 0; i < Math.min(p1.slides.length, p2.slides.length); i++) {
      const why = slideMismatch({ o, slide: i + 1, s1: p1.slides[i]!, s2: p2.slides[i]! });
      if (why) return fail(`slide ${i + 1}: ${why}`);
    }
  } catch (e) {
    if (e instanceof PythonWouldRaise) return fail(`OSWorld's compare_pptx_files would raise here: ${e.message}`);
    throw e;
  }
  return pass("the presentations match");
}
