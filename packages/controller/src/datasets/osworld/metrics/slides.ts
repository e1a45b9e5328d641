import { readFile } from "node:fs/promises";
import { z } from "zod";
import { defineMetric, type OsworldMetric } from "../metric.js";
import { PythonWouldRaise } from "./office/package.js";
import { type Presentation, readPresentation } from "./office/pptx.js";
import { comparePresentations } from "./office/pptxCompare.js";
import { descendants, parseXml } from "./office/xml.js";
import { fail } from "../../../evaluators/verdict.js";

/**
 * OSWorld's slide metrics (`desktop_env/evaluators/metrics/slides.py`), reading .pptx files the way
 * python-pptx does (see ./office/pptx.ts).
 */

const on = z.boolean().default(true);
const off = z.boolean().default(false);

// compare_pptx_files(file1, file2, **options): keys it does not read are ignored.
const comparePptxOptions = z.object({
  examine_number_of_slides: on,
  examine_shape: on,
  examine_text: on,
  examine_indent: on,
  examine_font_name: on,
  examine_font_size: on,
  examine_font_bold: on,
  examine_font_italic: on,
  examine_color_rgb: on,
  examine_font_underline: on,
  examine_strike_through: on,
  examine_alignment: on,
  examine_title_bottom_position: off,
  examine_table_bottom_position: off,
  examine_run_count: on,
  examine_right_position: off,
  examine_top_position: off,
  examine_shape_for_shift_size: off,
  examine_image_size: off,
  examine_modify_height: off,
  examine_bullets: on,
  examine_background_color: on,
  examine_note: on,
  approximately_tolerance: z.number().default(0.005),
  /** Only switches OSWorld's logging; but the logging reads every shape's `shape_type`, which can raise. */
  enable_debug: on,
  /** Written in some task files; OSWorld's code never reads it. */
  examine_shape_lenient_height: z.boolean().optional(),
  /** A comment some task files carry. */
  _note: z.string().optional(),
});

async function openPresentation(path: unknown): Promise<Presentation | string> {
  if (typeof path !== "string" || path === "") return "the file is missing";
  try {
    return (await readPresentation(path)) ?? `${path} is missing or is not a .pptx (zip) file`;
  } catch (e) {
    if (e instanceof PythonWouldRaise) return `python-pptx cannot open ${path}: ${e.message}`;
    return `cannot read ${path}: ${(e as Error).message}`;
  }
}

/**
 * `compare_pptx_files(result, expected, **options)`: the two presentations have the same slides,
 * shapes, text, fonts, bullets, backgrounds and notes, with the `examine_*` switches of OSWorld.
 */
const comparePptxFiles = defineMetric({
  name: "compare_pptx_files",
  options: comparePptxOptions,
  async run(result, expected, options) {
    const p1 = await openPresentation(result);
    if (typeof p1 === "string") return fail(`result: ${p1}`);
    const p2 = await openPresentation(expected);
    if (typeof p2 === "string") return fail(`expected: ${p2}`);
    return comparePresentations(p1, p2, options);
  },
});

/**
 * `check_auto_saving_time(registrymodifications.xcu, {minutes})`: LibreOffice's
 * `/org.openoffice.Office.Common/Save/Document` `AutoSaveTimeIntervall` equals `minutes`.
 */
const checkAutoSavingTime = defineMetric({
  name: "check_auto_saving_time",
  options: z.strictObject({}),
  async run(result, expected) {
    const minutes = (expected as { minutes?: unknown } | undefined)?.minutes;
    if (minutes === undefined) throw new Error("check_auto_saving_time needs rules.minutes");
    if (typeof result !== "string") return fail("registrymodifications.xcu is missing");
    let text: string;
    try {
      text = await readFile(result, "utf8");
    } catch {
      return fail(`${result} is missing`);
    }
    let value: string | undefined;
    try {
      for (const item of descendants(parseXml(text), "item")) {
        if (item.attrs["oor:path"] !== "/org.openoffice.Office.Common/Save/Document") continue;
        const prop = descendants(item, "prop").find((p) => p.attrs["oor:name"] === "AutoSaveTimeIntervall");
        if (prop)
          value = descendants(prop, "value")[0]
            ?.kids.filter((k) => typeof k === "string")
            .join("");
      }
    } catch (e) {
      return fail(`cannot parse ${result}: ${(e as Error).message}`);
    }
    if (value === undefined) return fail("AutoSaveTimeIntervall is not set");
    const n = /^\s*[-+]?\d+\s*$/.test(value) ? Number.parseInt(value, 10) : Number.NaN;
    if (n === minutes) return 1;
    return fail(`AutoSaveTimeIntervall is ${JSON.stringify(value)}, expected ${JSON.stringify(minutes)}`);
  },
});

/** OSWorld's metrics of this family, ported. */
export const slidesMetrics: OsworldMetric[] = [comparePptxFiles, checkAutoSavingTime];
