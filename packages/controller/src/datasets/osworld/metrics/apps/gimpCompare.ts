import { z } from "zod";
import { defineMetric, type MetricResult, type OsworldMetric } from "../../metric.js";
import { fail } from "../../../../evaluators/verdict.js";
import { filePath } from "../common/outcome.js";
import { type PilImage, toL, toRGB, toRGBA } from "../../../pycompat/pilImage.js";
import { resize } from "../../../pycompat/pilResize.js";
import { structuralSimilarity } from "../../../pycompat/skimageSsim.js";
import { openImageFile } from "./common.js";

/**
 * OSWorld's GIMP image comparisons (gimp.py): `compare_image_list` (images equal pixel for pixel
 * once resized and converted as OSWorld does) and `check_structure_sim_with_threshold` (RGB SSIM
 * at or above a threshold, the window shrunk for small images).
 */

/** `img.convert(mode)` to the modes OSWorld's images come in. */
function convertTo(r: PilImage, mode: PilImage["mode"]): PilImage {
  if (mode === "RGB" || mode === "P") return toRGB(r);
  if (mode === "RGBA") return toRGBA(r);
  if (mode === "L") return toL(r);
  const l = toL(r);
  const rgba = toRGBA(r);
  const data = new Uint8Array(r.width * r.height * 2);
  for (let i = 0; i < r.width * r.height; i++) [data[i * 2], data[i * 2 + 1]] = [l.data[i]!, rgba.data[i * 4 + 3]!];
  return { ...l, channels: 2, data, mode: "LA" };
}

/**
 * `ImageChops.difference(a, b).getbbox()` is not None, with Pillow 11's `getbbox`: for an image with
 * alpha only the alpha band counts (`alpha_only=True`), for RGB the three colour bands.
 */
function differs(a: PilImage, b: PilImage): boolean {
  const alphaOnly = a.mode === "RGBA" || a.mode === "LA";
  const c = a.channels;
  for (let i = 0; i < a.data.length; i += c) {
    if (alphaOnly) {
      if (a.data[i + c - 1] !== b.data[i + c - 1]) return true;
      continue;
    }
    for (let k = 0; k < c; k++) if (a.data[i + k] !== b.data[i + k]) return true;
  }
  return false;
}

/** `compare_image_list(pred, gold)`: each predicted image, resized (Lanczos) and converted to its gold's size and mode, has no pixel different from it. */
const compareImageList = defineMetric({
  name: "compare_image_list",
  options: z.strictObject({}),
  async run(result, expected): Promise<MetricResult> {
    const preds = Array.isArray(result) ? result : [result];
    const golds = Array.isArray(result) ? (expected as unknown[]) : [expected];
    if (!Array.isArray(golds)) throw new Error("compare_image_list: the expected images must be a list like the results");
    for (let i = 0; i < Math.min(preds.length, golds.length); i++) {
      const p = filePath(preds[i]);
      const g = filePath(golds[i]);
      if (p === undefined || g === undefined) return fail(`image ${i + 1} is missing`);
      let pred: PilImage | null;
      let gold: PilImage | null;
      try {
        pred = await openImageFile(p);
        gold = await openImageFile(g);
      } catch (e) {
        return fail(`cannot read image ${i + 1}: ${(e as Error).message}`);
      }
      if (!pred || !gold) return fail(`image ${i + 1} is not there (OSWorld raises)`);
      if (pred.width !== gold.width || pred.height !== gold.height) pred = resize(pred, gold.width, gold.height, "lanczos");
      if (pred.mode !== gold.mode) pred = convertTo(pred, gold.mode);
      if (gold.mode === "P") gold = toRGB(gold);
      if (differs(pred, gold)) return fail(`image ${i + 1} (${p}) differs from the expected one`);
    }
    return 1;
  },
});

/** `check_structure_sim_with_threshold(src, tgt, ssim_threshold)`: src, resized (Lanczos) to tgt's size, has an RGB SSIM of at least the threshold with it. */
const checkStructureSimWithThreshold = defineMetric({
  name: "check_structure_sim_with_threshold",
  // check_structure_sim_with_threshold(src_path, tgt_path, **options): other keys are ignored.
  options: z.object({ ssim_threshold: z.number().default(0.85) }),
  async run(result, expected, o): Promise<MetricResult> {
    const src = filePath(result);
    const tgt = filePath(expected);
    if (src === undefined || tgt === undefined) return fail("an image path is missing");
    try {
      let a = await openImageFile(src);
      const b = await openImageFile(tgt);
      if (!a || !b) return fail("an image file is missing");
      if (a.width !== b.width || a.height !== b.height) a = resize(a, b.width, b.height, "lanczos");
      const x = toRGB(a);
      const y = toRGB(b);
      const minDim = Math.min(x.width, x.height);
      const win = minDim < 7 ? (minDim % 2 === 1 ? minDim : minDim - 1) : 7;
      if (win < 1) return fail("the image is too small for SSIM");
      // skimage refuses a window larger than the image: OSWorld catches that and scores 0.
      if (win > y.width || win > y.height) return fail("the window is larger than the image");
      const s = structuralSimilarity(x, y, { winSize: win });
      return s >= o.ssim_threshold ? 1 : fail(`SSIM ${s.toFixed(4)} < ${o.ssim_threshold}`);
    } catch (e) {
      return fail(`cannot compare the images: ${(e as Error).message}`);
    }
  },
});

/** OSWorld's GIMP image comparisons. */
export const gimpCompareMetrics: OsworldMetric[] = [compareImageList, checkStructureSimWithThreshold];
