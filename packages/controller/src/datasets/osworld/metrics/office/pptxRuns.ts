import type { PptxBullet } from "./pptx.js";
import type { PptxFont, PptxParagraph, PptxRun } from "./pptxShapes.js";
import { pyStrip } from "../../../pycompat/pyStr.js";

/**
 * Paragraph- and run-level checks of OSWorld's `compare_pptx_files` (slides.py), shared by text
 * shapes and table cells. Each returns the reason of the first mismatch, or undefined.
 */

/** The `examine_*` switches the run checks read. */
export interface RunSwitches {
  examine_run_count: boolean;
  examine_font_name: boolean;
  examine_font_size: boolean;
  examine_font_bold: boolean;
  examine_font_italic: boolean;
  examine_color_rgb: boolean;
  examine_font_underline: boolean;
  examine_strike_through: boolean;
}

const show = (v: unknown) => (v === null ? "None" : v === undefined ? "none" : JSON.stringify(v));

/** `nonempty_runs` applied when both paragraphs are blank ("0 runs vs 1 empty run" are the same). */
export function comparableRuns(p1: PptxParagraph, p2: PptxParagraph): [PptxRun[], PptxRun[]] {
  if (pyStrip(p1.text) === "" && pyStrip(p2.text) === "") {
    const nonEmpty = (p: PptxParagraph) => p.runs.filter((r) => pyStrip(r.text) !== "");
    return [nonEmpty(p1), nonEmpty(p2)];
  }
  return [p1.runs, p2.runs];
}

/** None and False both mean "off". */
function boolDiffers(a: boolean | null, b: boolean | null): boolean {
  return a !== b && !(a !== true && b !== true);
}

/** Underline: two set values that differ, or None against True. */
function underlineDiffers(a: PptxFont["underline"], b: PptxFont["underline"]): boolean {
  if (a === b) return false;
  if (a !== null && b !== null) return true;
  return (a === null && b === true) || (a === true && b === null);
}

/** The font checks of a text-shape run, in OSWorld's order. */
export function textRunMismatch(f1: PptxFont, f2: PptxFont, o: RunSwitches): string | undefined {
  if (f1.name !== f2.name && o.examine_font_name) return `font name differs (${show(f1.name)} vs ${show(f2.name)})`;
  if (f1.size !== f2.size && o.examine_font_size) return `font size differs (${show(f1.size)} vs ${show(f2.size)} hundredths of a point)`;
  if (boolDiffers(f1.bold, f2.bold) && o.examine_font_bold) return `bold differs (${show(f1.bold)} vs ${show(f2.bold)})`;
  if (boolDiffers(f1.italic, f2.italic) && o.examine_font_italic) return `italic differs (${show(f1.italic)} vs ${show(f2.italic)})`;
  if (f1.rgb !== undefined && f2.rgb !== undefined && f1.rgb !== f2.rgb && o.examine_color_rgb) return `font colour differs (${f1.rgb} vs ${f2.rgb})`;
  if (o.examine_font_underline && underlineDiffers(f1.underline, f2.underline)) {
    return `underline differs (${show(f1.underline)} vs ${show(f2.underline)})`;
  }
  if (f1.strike !== f2.strike && o.examine_strike_through) return `strike-through differs (${f1.strike} vs ${f2.strike})`;
  return undefined;
}

/** The font checks of a table-cell run: colour obeys `examine_color_rgb`, bold, italic and underline are always checked. */
export function cellRunMismatch(f1: PptxFont, f2: PptxFont, o: RunSwitches): string | undefined {
  if (f1.rgb !== undefined && f2.rgb !== undefined && f1.rgb !== f2.rgb && o.examine_color_rgb) return `font colour differs (${f1.rgb} vs ${f2.rgb})`;
  if (boolDiffers(f1.bold, f2.bold)) return `bold differs (${show(f1.bold)} vs ${show(f2.bold)})`;
  if (boolDiffers(f1.italic, f2.italic)) return `italic differs (${show(f1.italic)} vs ${show(f2.italic)})`;
  if (underlineDiffers(f1.underline, f2.underline)) return `underline differs (${show(f1.underline)} vs ${show(f2.underline)})`;
  return undefined;
}

/** `_compare_bullets_with_tolerance`: same texts and bullet characters; levels only where a bullet shows. */
export function bulletsMismatch(b1: PptxBullet[] | "skip", b2: PptxBullet[] | "skip"): string | undefined {
  if (b1 === "skip" || b2 === "skip") return undefined;
  if (b1.length !== b2.length) return `bullets differ (${b1.length} vs ${b2.length} non-empty paragraphs on the slide)`;
  for (let i = 0; i < b1.length; i++) {
    const x = b1[i]!;
    const y = b2[i]!;
    if (x.text !== y.text) return `bullets differ (paragraph ${JSON.stringify(x.text)} vs ${JSON.stringify(y.text)})`;
    if (x.char !== y.char) return `bullet of ${JSON.stringify(x.text)} differs (${show(x.char)} vs ${show(y.char)})`;
    if ((x.char !== "No Bullet" || y.char !== "No Bullet") && (x.level ?? "0") !== (y.level ?? "0")) {
      return `bullet level of ${JSON.stringify(x.text)} differs (${show(x.level)} vs ${show(y.level)})`;
    }
  }
  return undefined;
}
