import { z } from "zod";
import { defineMetric, type MetricResult, type OsworldMetric } from "../../metric.js";
import { fail } from "../../../../evaluators/verdict.js";
import { filePath } from "../common/outcome.js";
import { meanBrightness, type PilImage, pointAll, toRGB } from "../../../pycompat/pilImage.js";
import { resize } from "../../../pycompat/pilResize.js";
import { openImageFile } from "./common.js";
import { structureSame } from "./gimpChecks.js";

/** Both images decoded, or the reason a metric scores 0 (a missing path or file, an unreadable image). */
async function loadPair(result: unknown, expected: unknown): Promise<[PilImage, PilImage] | string> {
  const src = filePath(result);
  const tgt = filePath(expected);
  if (src === undefined || tgt === undefined) return src === undefined ? "no result image" : "no expected image";
  try {
    const a = await openImageFile(src);
    const b = await openImageFile(tgt);
    if (a === null || b === null) return a === null ? `no image at ${src}` : `no image at ${tgt}`;
    return [a, b];
  } catch (e) {
    return `cannot read an image: ${(e as Error).message}`;
  }
}

/** `check_structure_sim`: the result image has the expected one's size and an RGB SSIM of at least 0.9 with it. */
const checkStructureSim = defineMetric({
  name: "check_structure_sim",
  options: z.strictObject({}),
  async run(result, expected): Promise<MetricResult> {
    const pair = await loadPair(result, expected);
    if (typeof pair === "string") return fail(pair);
    const { same, why } = structureSame(...pair);
    return same ? 1 : fail(why);
  },
});

/** `normalize_brightness(img, 128)`: every band scaled by 128 / mean luma, truncated and clipped to 0-255. */
function normalizeBrightness(r: PilImage, brightness: number): PilImage {
  const factor = 128 / brightness;
  return pointAll(r, (x) => Math.min(255, Math.max(0, Math.trunc(x * factor))));
}

/**
 * `structure_check_by_mse`: the first image resized (Lanczos) to the second's size when they differ,
 * both converted to RGB, and the mean squared difference of samples scaled to [0, 1].
 */
function mse(a: PilImage, b: PilImage): number {
  if (a.width !== b.width || a.height !== b.height) a = resize(a, b.width, b.height, "lanczos");
  const x = toRGB(a).data;
  const y = toRGB(b).data;
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += (x[i]! / 255 - y[i]! / 255) ** 2;
  return sum / x.length;
}

/**
 * `check_brightness_decrease_and_structure_sim`: the result image is darker than the expected one
 * (mean luma) and, both normalised to a mean brightness of 128, their MSE is below `threshold`.
 */
const checkBrightnessDecreaseAndStructureSim = defineMetric({
  name: "check_brightness_decrease_and_structure_sim",
  options: z.strictObject({ threshold: z.number().default(0.03) }),
  async run(result, expected, options): Promise<MetricResult> {
    const pair = await loadPair(result, expected);
    if (typeof pair === "string") return fail(pair);
    const [src, tgt] = pair;
    // Pillow's point() on a palette image maps palette indices, not colours: OSWorld's numbers there are not reproduced.
    if (src.palette || tgt.palette) throw new Error("check_brightness_decrease_and_structure_sim: palette (mode P) PNGs are not supported");
    const bSrc = meanBrightness(src);
    const bTgt = meanBrightness(tgt);
    // OSWorld divides by the brightness: an all-black image raises there.
    if (bSrc === 0 || bTgt === 0) return fail("an image is entirely black (OSWorld divides by its brightness)");
    const darker = bTgt > bSrc;
    const err = mse(normalizeBrightness(src, bSrc), normalizeBrightness(tgt, bTgt));
    const reasons = [
      ...(darker ? [] : [`brightness ${bSrc.toFixed(2)} is not below ${bTgt.toFixed(2)}`]),
      ...(err < options.threshold ? [] : [`normalised MSE ${err.toFixed(4)} ≥ ${options.threshold}`]),
    ];
    return reasons.length === 0 ? 1 : fail(reasons.join("; "));
  },
});

/** OSWorld's GIMP image-comparison metrics (`gimp.py`). */
export const gimpImageMetrics: OsworldMetric[] = [checkStructureSim, checkBrightnessDecreaseAndStructureSim];
