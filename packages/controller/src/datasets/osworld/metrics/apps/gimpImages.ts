import { z } from "zod";
import { defineMetric, type MetricResult, type OsworldMetric } from "../../metric.js";
import { fail, passIf, pathOf } from "./common.js";
import { loadRaster, meanBrightness, pointAll, type Raster, resizeLanczos, toRgb } from "./pixels.js";
import { skimageSsim } from "./skimageSsim.js";

/** Both images decoded, or the reason a metric scores 0 (a missing path or file, an unreadable image). */
async function loadPair(result: unknown, expected: unknown): Promise<[Raster, Raster] | string> {
  const src = pathOf(result);
  const tgt = pathOf(expected);
  if (src === null || tgt === null) return src === null ? "no result image" : "no expected image";
  try {
    const a = await loadRaster(src);
    const b = await loadRaster(tgt);
    if (a === null || b === null) return a === null ? `no image at ${src}` : `no image at ${tgt}`;
    return [a, b];
  } catch (e) {
    return `cannot read an image: ${(e as Error).message}`;
  }
}

/**
 * OSWorld's `structure_check_by_ssim`: both at least 7 × 7 and of one size, converted to RGB, and
 * scikit-image's SSIM (7 × 7 window, per channel) at or above `threshold`. Returns the SSIM, or the
 * reason it is not computed.
 */
function structureSsim(a: Raster, b: Raster): number | string {
  if (a.width < 7 || a.height < 7 || b.width < 7 || b.height < 7) return `image too small for SSIM (${a.width}×${a.height}, ${b.width}×${b.height})`;
  if (a.width !== b.width || a.height !== b.height) return `sizes differ: ${a.width}×${a.height} vs ${b.width}×${b.height}`;
  return skimageSsim(toRgb(a), toRgb(b), 7);
}

/** `check_structure_sim`: the result image has the expected one's size and an RGB SSIM of at least 0.9 with it. */
const checkStructureSim = defineMetric({
  name: "check_structure_sim",
  options: z.strictObject({}),
  async run(result, expected): Promise<MetricResult> {
    const pair = await loadPair(result, expected);
    if (typeof pair === "string") return fail(pair);
    const s = structureSsim(...pair);
    if (typeof s === "string") return fail(s);
    return passIf(s >= 0.9, `SSIM ${s.toFixed(4)} < 0.9`);
  },
});

/** `normalize_brightness(img, 128)`: every band scaled by 128 / mean luma, truncated and clipped to 0-255. */
function normalizeBrightness(r: Raster, brightness: number): Raster {
  const factor = 128 / brightness;
  return pointAll(r, (x) => Math.min(255, Math.max(0, Math.trunc(x * factor))));
}

/**
 * `structure_check_by_mse`: the first image resized (Lanczos) to the second's size when they differ,
 * both converted to RGB, and the mean squared difference of samples scaled to [0, 1].
 */
async function mse(a: Raster, b: Raster): Promise<number> {
  if (a.width !== b.width || a.height !== b.height) a = await resizeLanczos(a, b.width, b.height);
  const x = toRgb(a).data;
  const y = toRgb(b).data;
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
    const err = await mse(normalizeBrightness(src, bSrc), normalizeBrightness(tgt, bTgt));
    const reasons = [
      ...(darker ? [] : [`brightness ${bSrc.toFixed(2)} is not below ${bTgt.toFixed(2)}`]),
      ...(err < options.threshold ? [] : [`normalised MSE ${err.toFixed(4)} ≥ ${options.threshold}`]),
    ];
    return passIf(reasons.length === 0, reasons.join("; "));
  },
});

/** OSWorld's GIMP image-comparison metrics (`gimp.py`). */
export const gimpImageMetrics: OsworldMetric[] = [checkStructureSim, checkBrightnessDecreaseAndStructureSim];
