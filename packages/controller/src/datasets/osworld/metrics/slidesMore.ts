import { readFile } from "node:fs/promises";
import JSZip from "jszip";
import { z } from "zod";
import { defineMetric, type MetricResult, type OsworldMetric } from "../metric.js";
import { fail } from "../../../evaluators/verdict.js";
import { show } from "./common/outcome.js";
import { PythonWouldRaise } from "./office/package.js";
import { type BackgroundFill, type PresentationParts, readPresentationParts } from "./office/pptxParts.js";
import { descendants, kids, leafText, parseXml, type XEl } from "./office/xml.js";

/**
 * OSWorld's slide metrics on layout, orientation, backgrounds, transitions, the slide number's
 * colour and the presenter console (slides.py).
 */

const noOptions = z.strictObject({});

/** Runs a metric body; where python-pptx would raise on the agent's file, the score is 0 with the reason. */
async function guarded(metric: string, body: () => Promise<MetricResult>): Promise<MetricResult> {
  try {
    return await body();
  } catch (e) {
    if (e instanceof PythonWouldRaise) return fail(`OSWorld's ${metric} raises here: ${e.message}`);
    throw e;
  }
}

/** `Presentation(path)`; raises (as python-pptx does) when the file is missing or unreadable. */
async function presentation(path: unknown, what: string): Promise<PresentationParts> {
  const p = typeof path === "string" && path !== "" ? await readPresentationParts(path) : undefined;
  if (!p) throw new PythonWouldRaise(`the ${what} is missing or not a readable .pptx`);
  return p;
}

const HALF_INCH = 457_200;

/**
 * `check_image_stretch_and_center(modified, original)`: the original's first picture on slide 1
 * (the same image bytes) fills the modified slide within half an inch on each side, centred.
 */
const checkImageStretchAndCenter = defineMetric({
  name: "check_image_stretch_and_center",
  options: noOptions,
  run: (result, expected) =>
    guarded("check_image_stretch_and_center", async () => {
      const original = await presentation(expected, "original presentation");
      const modified = await presentation(result, "result");
      const first = original.slides[0];
      const changed = modified.slides[0];
      if (!first || !changed) throw new PythonWouldRaise("a presentation has no slide (IndexError)");
      const image = first.pictures[0];
      if (!image) return fail("the original's first slide has no picture");
      const blob = await image.blob();
      let match: (typeof changed.pictures)[number] | undefined;
      for (const p of changed.pictures) if ((await p.blob()).equals(blob)) match = p;
      if (!match) return fail("the picture is not on the result's first slide");
      const { left, top, width, height } = match;
      const W = original.slideWidth;
      const H = original.slideHeight;
      if (left === null || top === null || width === null || height === null || W === null || H === null) {
        throw new PythonWouldRaise("the picture's or the slide's size is not set (TypeError)");
      }
      const off =
        Math.abs(width - W) > HALF_INCH ||
        Math.abs(height - H) > HALF_INCH ||
        Math.abs(left - (W - width) / 2) > HALF_INCH ||
        Math.abs(top - (H - height) / 2) > HALF_INCH;
      return off ? fail(`the picture is ${width}×${height} at (${left}, ${top}) EMU on a ${W}×${H} slide: not stretched and centred`) : 1;
    }),
});

/** `check_slide_orientation_Portrait(pptx)`: the slides are taller than wide. */
const checkSlideOrientationPortrait = defineMetric({
  name: "check_slide_orientation_Portrait",
  options: noOptions,
  run: (result) =>
    guarded("check_slide_orientation_Portrait", async () => {
      const p = await presentation(result, "result");
      if (p.slideWidth === null || p.slideHeight === null) throw new PythonWouldRaise("the slide size is not set (TypeError)");
      return p.slideWidth < p.slideHeight ? 1 : fail(`the slides are ${p.slideWidth}×${p.slideHeight} EMU: landscape`);
    }),
});

const rgbOf = (hex: string) => [0, 2, 4].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));

/**
 * `evaluate_presentation_fill_to_rgb_distance(pptx, rules)`: 1 less the mean over slides of the
 * distance (in the RGB cube, 0 to 1) of each slide's solid background (its own, else its master's)
 * from `rules.rgb`; a slide still in `rules.original_rgb`, or not in a solid sRGB fill, counts 1.
 */
const evaluatePresentationFillToRgbDistance = defineMetric({
  name: "evaluate_presentation_fill_to_rgb_distance",
  options: noOptions,
  run: (result, rules) =>
    guarded("evaluate_presentation_fill_to_rgb_distance", async () => {
      const r = rules as { rgb?: number[]; original_rgb?: number[] } | null;
      if (!r || !Array.isArray(r.rgb)) throw new Error('evaluate_presentation_fill_to_rgb_distance: the rules need "rgb"');
      const want = r.rgb;
      const original = Array.isArray(r.original_rgb) ? r.original_rgb : null;
      const p = await presentation(result, "result");
      const distance = (fill: BackgroundFill): number => {
        if (fill.type !== 1 || fill.rgb === null) return 1;
        const got = rgbOf(fill.rgb);
        if (original && got.every((v, i) => v === original[i])) return 1;
        return Math.sqrt(got.reduce((s, v, i) => s + (v - want[i]!) ** 2, 0)) / Math.sqrt(3 * 255 ** 2);
      };
      if (p.slides.length === 0) throw new PythonWouldRaise("the presentation has no slides (ZeroDivisionError)");
      let total = 0;
      for (const s of p.slides) {
        if (s.background.type === 1) total += distance(s.background);
        else if (s.background.type === 5) total += distance(await s.masterBackground());
        else total += 1;
      }
      const score = 1 - total / p.slides.length;
      return score >= 1 ? 1 : { score, reason: `the slides' backgrounds are ${(total / p.slides.length).toFixed(4)} from ${show(want)} on average` };
    }),
});

/** A part of the .pptx zip by its fixed name, parsed; undefined when absent. */
async function zipPart(path: string, name: string): Promise<XEl | undefined> {
  const zip = await JSZip.loadAsync(await readFile(path));
  const f = zip.file(name);
  return f ? parseXml(await f.async("string")) : undefined;
}

/** `check_transition(pptx, rules)`: slide `rules.slide_idx` (from 0) has a transition with a `p:<rules.transition_type>` in it. */
const checkTransition = defineMetric({
  name: "check_transition",
  options: noOptions,
  async run(result, rules): Promise<MetricResult> {
    const r = rules as { slide_idx?: number; transition_type?: string } | null;
    if (!r || typeof r.slide_idx !== "number" || typeof r.transition_type !== "string")
      throw new Error("check_transition: the rules need slide_idx and transition_type");
    if (typeof result !== "string" || result === "") return fail("no presentation");
    const slide = await zipPart(result, `ppt/slides/slide${r.slide_idx + 1}.xml`);
    if (!slide) return fail(`the presentation has no slide ${r.slide_idx + 1}`);
    const transition = descendants(slide, "p:transition")[0];
    if (!transition) return fail(`slide ${r.slide_idx + 1} has no transition`);
    return descendants(transition, `p:${r.transition_type}`).length ? 1 : fail(`slide ${r.slide_idx + 1}'s transition is not ${r.transition_type}`);
  },
});

/** Elements matching ElementTree's `.//a//b//c`: each `c` below a `b` below an `a`, in document order, once each. */
function nested(root: XEl, ...tags: string[]): XEl[] {
  let level: XEl[] = [root];
  for (const tag of tags) {
    const seen = new Set<XEl>();
    level = level.flatMap((el) => descendants(el, tag)).filter((e) => !seen.has(e) && seen.add(e));
  }
  const order = new Map(descendants(root, tags[tags.length - 1]!).map((e, i) => [e, i]));
  return level.sort((a, b) => order.get(a)! - order.get(b)!);
}

/** The slide number's colour as OSWorld's check_page_number_colors looks for it in the first slide master. */
function slideNumberColor(master: XEl): string | undefined {
  // OSWorld first searches inside the p:ph elements, which have no children: nothing is ever found there.
  for (const ph of descendants(master, "p:ph")) {
    if (!["sldNum", "ftr", "dt"].includes(ph.attrs.type ?? "")) continue;
    const hit = nested(ph, "a:solidFill", "a:srgbClr")[0];
    if (hit) return hit.attrs.val;
  }
  const inRuns = nested(master, "a:rPr", "a:solidFill", "a:srgbClr").reverse();
  const fromRun = inRuns.find((e) => e.attrs.val && e.attrs.val !== "000000");
  if (fromRun) return fromRun.attrs.val;
  const all = nested(master, "a:solidFill", "a:srgbClr");
  const colored = [...all].reverse().find((e) => e.attrs.val && e.attrs.val !== "000000");
  return colored?.attrs.val ?? all[all.length - 1]?.attrs.val;
}

const TESTS: Record<string, (r: number, g: number, b: number) => boolean> = {
  red: (r, g, b) => r > g + 50 && r > b + 50,
  blue: (r, g, b) => b > g + 50 && b > r + 50,
  green: (r, g, b) => g > r + 50 && g > b + 50,
  black: (r, g, b) => r < 50 && g < 50 && b < 50,
};

/** `check_page_number_colors(pptx, rules)`: the slide number's colour on the first master is `rules.color` (red, blue, green or black). */
const checkPageNumberColors = defineMetric({
  name: "check_page_number_colors",
  options: noOptions,
  async run(result, rules): Promise<MetricResult> {
    const color = (rules as { color?: unknown } | null)?.color;
    if (color === undefined) throw new Error('check_page_number_colors: the rules need "color"');
    if (typeof result !== "string" || result === "") return fail("no presentation");
    let master: XEl | undefined;
    try {
      master = await zipPart(result, "ppt/slideMasters/slideMaster1.xml");
    } catch (e) {
      return fail(`the presentation cannot be read: ${(e as Error).message}`);
    }
    if (!master) return fail("the presentation has no ppt/slideMasters/slideMaster1.xml (OSWorld raises KeyError)");
    const val = slideNumberColor(master);
    if (val === undefined) return fail("no slide number colour is set");
    const hex = val.replace(/^#+/, "");
    if (hex.length !== 6 || !/^[0-9A-Fa-f]{6}$/.test(hex)) return fail(`the colour ${show(val)} cannot be read`);
    const [r, g, b] = rgbOf(hex) as [number, number, number];
    const test = typeof color === "string" ? TESTS[color] : undefined;
    return !test || test(r, g, b) ? 1 : fail(`the slide number is #${hex}, not ${color}`);
  },
});

/** `check_presenter_console_disable(xcu)`: Impress's `EnablePresenterScreen` is "false" in the user's registrymodifications.xcu. */
const checkPresenterConsoleDisable = defineMetric({
  name: "check_presenter_console_disable",
  options: noOptions,
  async run(result): Promise<MetricResult> {
    if (typeof result !== "string" || result === "") return fail("no registrymodifications.xcu");
    try {
      const root = parseXml(await readFile(result, "utf8"));
      const items = descendants(root, "item").filter((i) => i.attrs["oor:path"] === "/org.openoffice.Office.Impress/Misc/Start");
      const prop = items.flatMap((i) => kids(i, "prop")).find((p) => p.attrs["oor:name"] === "EnablePresenterScreen");
      if (!prop) return fail("EnablePresenterScreen is not set (the presenter console is on by default)");
      const value = kids(prop, "value")[0];
      const text = value ? leafText(value) : null;
      if (text === null) return fail("EnablePresenterScreen has no value (OSWorld's check raises and scores 0)");
      return text.toLowerCase() === "false" ? 1 : fail(`EnablePresenterScreen is ${show(text)}`);
    } catch (e) {
      return fail(`cannot read ${result}: ${(e as Error).message}`);
    }
  },
});

/** OSWorld's slide layout metrics. */
export const slidesMoreMetrics: OsworldMetric[] = [
  checkImageStretchAndCenter,
  checkSlideOrientationPortrait,
  evaluatePresentationFillToRgbDistance,
  checkTransition,
  checkPageNumberColors,
  checkPresenterConsoleDisable,
];
