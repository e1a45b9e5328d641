import { z } from "zod";
import { defineMetric, type MetricResult, type OsworldMetric } from "../../metric.js";
import { fail } from "../../../../evaluators/verdict.js";
import { filePath } from "../common/outcome.js";
import { npArgsort } from "../../../pycompat/npArgsort.js";
import { band, type PilImage, toHSV, toL, toRGB, toRGBA } from "../../../pycompat/pilImage.js";
import { bandBBox, crop, flipLeftRight } from "../../../pycompat/pilOps.js";
import { resize } from "../../../pycompat/pilResize.js";
import { structuralSimilarity } from "../../../pycompat/skimageSsim.js";
import { openImageFile } from "./common.js";

/**
 * OSWorld's GIMP image checks (gimp.py) on Pillow images: saturation, contrast, a palette, a
 * mirror, a resized copy, a text box's side, a triangle's position, a green background, each with
 * `structure_check_by_ssim` (RGB SSIM, 7 × 7 window, at or above a threshold) where OSWorld uses it.
 */

/** Thrown where OSWorld's Python raises on the agent's image; the metric scores 0 with the reason. */
class Raises extends Error {}

/** Runs a metric body with both images opened; a missing path scores 0, a raise in Python scores 0 with its reason. */
async function withImages(paths: unknown[], body: (imgs: PilImage[]) => MetricResult | Promise<MetricResult>): Promise<MetricResult> {
  const files = paths.map(filePath);
  if (files.some((p) => p === undefined)) return fail("an image path is missing");
  const imgs: PilImage[] = [];
  try {
    for (const f of files) {
      const im = await openImageFile(f!);
      if (!im) return fail(`no image at ${f} (OSWorld raises FileNotFoundError)`);
      imgs.push(im);
    }
    return await body(imgs);
  } catch (e) {
    if (e instanceof Raises) return fail(`OSWorld raises here: ${e.message}`);
    return fail(`cannot read an image: ${(e as Error).message}`);
  }
}

/**
 * OSWorld's `structure_check_by_ssim(a, b, threshold)`: both at least 7 × 7 and of one size,
 * converted to RGB, and scikit-image's SSIM (7 × 7 window, per channel) at or above `threshold`.
 */
export function structureSame(a: PilImage, b: PilImage, threshold = 0.9): { same: boolean; why: string } {
  if (a.width < 7 || a.height < 7 || b.width < 7 || b.height < 7)
    return { same: false, why: `image too small for SSIM (${a.width}×${a.height}, ${b.width}×${b.height})` };
  if (a.width !== b.width || a.height !== b.height) return { same: false, why: `sizes differ: ${a.width}×${a.height} vs ${b.width}×${b.height}` };
  const s = structuralSimilarity(toRGB(a), toRGB(b), { winSize: 7 });
  return { same: s >= threshold, why: `SSIM ${s.toFixed(4)} ${s >= threshold ? "≥" : "<"} ${threshold}` };
}

const mean = (d: Uint8Array) => d.reduce((s, v) => s + v, 0) / d.length;

/** `check_saturation_increase_and_structure_sim(src, tgt)`: src more saturated (mean HSV S) than tgt, hue and value bands alike. */
const checkSaturationIncrease = defineMetric({
  name: "check_saturation_increase_and_structure_sim",
  options: z.strictObject({}),
  run: (src, tgt) =>
    withImages([src, tgt], ([a, b]) => {
      const ha = toHSV(a!);
      const hb = toHSV(b!);
      const more = mean(band(hb, 1).data) < mean(band(ha, 1).data);
      const h = structureSame(band(ha, 0), band(hb, 0));
      const v = structureSame(band(ha, 2), band(hb, 2));
      return more && h.same && v.same ? 1 : fail(`${more ? "" : "not more saturated; "}hue ${h.why}; value ${v.why}`);
    }),
});

/** `check_file_exists_and_structure_sim(src, tgt)`: the exported file is there and alike (SSIM ≥ 0.9). */
const checkFileExistsAndStructureSim = defineMetric({
  name: "check_file_exists_and_structure_sim",
  options: z.strictObject({}),
  run: (src, tgt) =>
    withImages([src, tgt], ([a, b]) => {
      const s = structureSame(a!, b!);
      return s.same ? 1 : fail(s.why);
    }),
});

/** `check_structure_sim_resized(src, tgt)`: src (cropped to its opaque part when it has alpha) resized to tgt's size (bicubic) and alike. */
const checkStructureSimResized = defineMetric({
  name: "check_structure_sim_resized",
  options: z.strictObject({}),
  run: (src, tgt) =>
    withImages([src, tgt], ([a, b]) => {
      let resized: PilImage;
      if (a!.mode === "RGBA" || a!.mode === "LA" || a!.transparency) {
        const rgba = toRGBA(a!);
        const box = bandBBox(rgba, 3);
        if (!box) return fail("the source image is entirely transparent");
        resized = resize(toRGB(crop(rgba, box)), b!.width, b!.height);
      } else resized = resize(a!, b!.width, b!.height);
      const s = structureSame(resized, toRGB(b!));
      return s.same ? 1 : fail(s.why);
    }),
});

/** numpy's `np.std` of every sample (population standard deviation). */
function stdOf(r: PilImage): number {
  if (r.mode === "P") throw new Raises("a palette image's contrast is taken on its palette indices, which Pincer does not keep");
  const m = mean(r.data);
  let s = 0;
  for (const v of r.data) s += (v - m) ** 2;
  return Math.sqrt(s / r.data.length);
}

/** `check_contrast_increase_and_structure_sim(src, tgt)`: src has more contrast (std of samples) than tgt and is alike (SSIM ≥ 0.65). */
const checkContrastIncrease = defineMetric({
  name: "check_contrast_increase_and_structure_sim",
  options: z.strictObject({}),
  run: (src, tgt) =>
    withImages([src, tgt], ([a, b]) => {
      const higher = stdOf(b!) < stdOf(a!);
      const s = structureSame(a!, b!, 0.65);
      return higher && s.same ? 1 : fail(`${higher ? "" : "contrast not higher; "}${s.why}`);
    }),
});

/** `check_palette_and_structure_sim(src, tgt)`: src is a palette image and, in RGB, alike (SSIM ≥ 0.9). */
const checkPaletteAndStructureSim = defineMetric({
  name: "check_palette_and_structure_sim",
  options: z.strictObject({}),
  run: (src, tgt) =>
    withImages([src, tgt], ([a, b]) => {
      const s = structureSame(toRGB(a!), b!);
      return a!.mode === "P" && s.same ? 1 : fail(`${a!.mode === "P" ? "" : `mode ${a!.mode}, not a palette image; `}${s.why}`);
    }),
});

/** `check_textbox_on_leftside(src)`: the leftmost dark (luma < 128) pixel is within the left 5% of the image. */
const checkTextboxOnLeftside = defineMetric({
  name: "check_textbox_on_leftside",
  options: z.strictObject({}),
  run: (src) =>
    withImages([src], ([a]) => {
      const g = toL(a!);
      let left = g.width;
      for (let y = 0; y < g.height; y++) {
        for (let x = 0; x < g.width; x++) {
          if (g.data[y * g.width + x]! < 128) {
            left = Math.min(left, x);
            break;
          }
        }
      }
      return left < g.width * 0.05 ? 1 : fail(`the leftmost dark pixel is at x = ${left} of ${g.width}`);
    }),
});

/** `check_image_mirror(src, tgt)`: src flipped left to right is tgt (SSIM ≥ 0.99). */
const checkImageMirror = defineMetric({
  name: "check_image_mirror",
  options: z.strictObject({}),
  run: (src, tgt) =>
    withImages([src, tgt], ([a, b]) => {
      const s = structureSame(flipLeftRight(a!), b!, 0.99);
      return s.same ? 1 : fail(s.why);
    }),
});

/** `np.array(img)[i, j][:3]` as OSWorld indexes it (row i, column j); raises where numpy does. */
function sampleAt(r: PilImage, i: number, j: number): number[] {
  if (r.channels < 3 || r.mode === "P")
    throw new Raises(`the ${r.mode} image's samples are not colours (numpy gives ${r.mode === "LA" ? "two bands" : "a number"})`);
  if (i >= r.height || j >= r.width)
    throw new Raises(`index (${i}, ${j}) is out of bounds for an image ${r.height} rows high and ${r.width} wide (IndexError)`);
  const at = (i * r.width + j) * r.channels;
  return [r.data[at]!, r.data[at + 1]!, r.data[at + 2]!];
}

/**
 * `check_green_background(src, tgt)`: wherever tgt is not black, src is green (G above R and B).
 * OSWorld indexes `pixels[x, y]` with x over the width, so rows are read as columns.
 */
const checkGreenBackground = defineMetric({
  name: "check_green_background",
  options: z.strictObject({}),
  run: (src, tgt) =>
    withImages([src, tgt], ([a, b]) => {
      for (let x = 0; x < b!.width; x++) {
        for (let y = 0; y < b!.height; y++) {
          const t = sampleAt(b!, x, y);
          if (t[0] === 0 && t[1] === 0 && t[2] === 0) continue;
          const [r, g, bl] = sampleAt(a!, x, y) as [number, number, number];
          if (!(g > r && g > bl)) return fail(`the source at [${x}, ${y}] is (${r}, ${g}, ${bl}), not green`);
        }
      }
      return 1;
    }),
});

/**
 * `check_triangle_position(tgt)`: the pixels of the image's second least common colour (numpy's
 * `unique` and `argsort` order) have their centroid within 5% of the image's centre on both axes.
 */
const checkTrianglePosition = defineMetric({
  name: "check_triangle_position",
  options: z.strictObject({}),
  run: (tgt) =>
    withImages([tgt], ([a]) => {
      const r = a!;
      if (r.channels < 2 || r.mode === "P") throw new Raises(`np.array of a ${r.mode} image has no colour axis (IndexError)`);
      const c = r.channels;
      const counts = new Map<string, number>();
      for (let i = 0; i < r.data.length; i += c) {
        const key = Array.from(r.data.subarray(i, i + c), (v) => String(v).padStart(3, "0")).join(",");
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      const colors = [...counts.keys()].sort();
      if (colors.length < 2) throw new Raises("the image has one colour (IndexError)");
      const order = npArgsort(colors.map((k) => counts.get(k)!));
      const triangle = colors[order[1]!]!;
      let sy = 0;
      let sx = 0;
      let n = 0;
      for (let p = 0; p < r.width * r.height; p++) {
        const key = Array.from(r.data.subarray(p * c, p * c + c), (v) => String(v).padStart(3, "0")).join(",");
        if (key !== triangle) continue;
        sy += Math.floor(p / r.width);
        sx += p % r.width;
        n++;
      }
      const [cy, cx] = [sy / n, sx / n];
      const ok = Math.abs(cy - r.height / 2) < 0.05 * r.height && Math.abs(cx - r.width / 2) < 0.05 * r.width;
      return ok ? 1 : fail(`the shape's centroid is at (${cx.toFixed(1)}, ${cy.toFixed(1)}) in a ${r.width}×${r.height} image`);
    }),
});

/** OSWorld's GIMP image checks. */
export const gimpCheckMetrics: OsworldMetric[] = [
  checkSaturationIncrease,
  checkFileExistsAndStructureSim,
  checkStructureSimResized,
  checkContrastIncrease,
  checkPaletteAndStructureSim,
  checkTextboxOnLeftside,
  checkImageMirror,
  checkGreenBackground,
  checkTrianglePosition,
];
