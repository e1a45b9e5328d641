import { z } from "zod";
import { defineEvaluationFunction } from "../taskFunctions.js";
import { decodeGrayLikeOpenCv, type GrayImage, histogramCorrelation } from "../pycompat/cv2.js";
import { structuralSimilarity } from "../pycompat/skimageSsim.js";
import { envArg, fail, fetchResult, pass, readLocal } from "./common.js";

/**
 * Image similarity: SSIM (Wang, Bovik, Sheikh and Simoncelli, 2004) on grayscale, which compares
 * local structure, so two images with the same colours in different places are not similar (a
 * histogram comparison would call them identical); and the published evaluator's histogram check, with
 * OpenCV's arithmetic (pycompat/cv2.ts).
 */

/** Averages f × f blocks (what the reference implementation does before measuring large images). */
function downsample(img: GrayImage, f: number): GrayImage {
  const width = Math.floor(img.width / f);
  const height = Math.floor(img.height / f);
  const data = new Float64Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let s = 0;
      for (let dy = 0; dy < f; dy++) for (let dx = 0; dx < f; dx++) s += img.data[(y * f + dy) * img.width + x * f + dx]!;
      data[y * width + x] = s / (f * f);
    }
  }
  return { width, height, data };
}

/**
 * The mean SSIM of two grayscale images of the same size, in [-1, 1] (1 = identical): an 11 × 11
 * Gaussian window (σ = 1.5), population variances, K1 = 0.01, K2 = 0.03 (scikit-image's
 * `structural_similarity(gaussian_weights=True, use_sample_covariance=False)`), after the images are
 * averaged down by round(min(width, height) / 256) as the authors recommend (screenshots are
 * compared at the scale a person sees structure, and quickly). Images under 11 pixels get the
 * largest odd window that fits.
 */
export function ssim(a: GrayImage, b: GrayImage): number {
  if (a.width !== b.width || a.height !== b.height) throw new Error(`ssim: sizes differ (${a.width}×${a.height} and ${b.width}×${b.height})`);
  const f = Math.max(1, Math.round(Math.min(a.width, a.height) / 256));
  if (f > 1) {
    a = downsample(a, f);
    b = downsample(b, f);
  }
  if (a.width === 0 || a.height === 0) throw new Error("ssim: empty image");
  let size = Math.min(11, a.width, a.height);
  if (size % 2 === 0) size -= 1;
  return structuralSimilarity(a, b, { winSize: size, gaussianWeights: true, sigma: 1.5, useSampleCovariance: false });
}

/**
 * Decodes an image (PNG, JPEG, WebP, GIF, TIFF, AVIF, SVG: what sharp reads) to grayscale,
 * transparent pixels over white, optionally resized (stretched) to `size`. sharp is loaded on first
 * use, so a controller that never compares images never loads libvips.
 */
export async function decodeGray(data: Buffer, size?: { width: number; height: number }): Promise<GrayImage> {
  const { default: sharp } = await import("sharp");
  let img = sharp(data).flatten({ background: "#ffffff" });
  if (size) img = img.resize(size.width, size.height, { fit: "fill" });
  const { data: raw, info } = await img.greyscale().raw().toBuffer({ resolveWithObject: true });
  const channels = info.channels;
  const gray = new Uint8Array(info.width * info.height);
  for (let i = 0; i < gray.length; i++) gray[i] = raw[i * channels]!;
  return { width: info.width, height: info.height, data: gray };
}

/** `compare_images`: the result image looks like the expected one (SSIM at or above a threshold). */
export const compareImages = defineEvaluationFunction({
  name: "compare_images",
  description:
    "Compares an image on the machine with an expected image by structural similarity (SSIM on grayscale, the result resized to the expected size); " +
    "passes at or above the threshold",
  args: z.strictObject({
    local_expected: z.string().min(1).describe("The expected image, relative to the task folder"),
    vm_result: z.string().min(1).describe("The image on the machine"),
    threshold: z.number().min(0).max(1).default(0.95).describe("Least SSIM that passes"),
    env: envArg,
  }),
  /** Score 1 when SSIM ≥ threshold, else 0 (no partial credit: unrelated screenshots often reach 0.3-0.5); the reason gives the SSIM. */
  async run(args, ctx) {
    const expectedBytes = await readLocal(ctx, args.local_expected);
    let expected: GrayImage;
    try {
      expected = await decodeGray(expectedBytes);
    } catch (e) {
      throw new Error(`local_expected ${args.local_expected} is not an image: ${(e as Error).message}`, { cause: e });
    }
    const fetched = await fetchResult(ctx, args.env, args.vm_result);
    if (!fetched.ok) return fetched.outcome;
    let result: GrayImage;
    try {
      result = await decodeGray(fetched.data, { width: expected.width, height: expected.height });
    } catch (e) {
      return fail(`the result ${args.vm_result} is not an image: ${(e as Error).message}`);
    }
    const s = ssim(expected, result);
    const shown = s.toFixed(4);
    return s >= args.threshold ? pass(`SSIM ${shown} ≥ threshold ${args.threshold}`) : fail(`SSIM ${shown} < threshold ${args.threshold}`);
  },
});

/** `compare_jupyterlab_images`: the dataset's histogram check (or, as an option, SSIM) of an image on the machine. */
export const compareJupyterlabImages = defineEvaluationFunction({
  name: "compare_jupyterlab_images",
  description:
    "Compares an image on the machine with an expected one as the published evaluator does (grey-level histogram correlation ≥ similarity_threshold); " +
    "method: ssim judges structure instead",
  args: z.strictObject({
    local_expected_image: z.string().min(1).describe("The expected image, relative to the task folder"),
    vm_result_image: z.string().min(1).describe("The image on the machine"),
    similarity_threshold: z.number().min(-1).max(1).default(0.95).describe("Least similarity that passes"),
    method: z
      .enum(["histogram", "ssim"])
      .default("histogram")
      .describe("histogram: the dataset's check, which passes flipped or rearranged images; ssim: structural similarity, the stricter verdict"),
    env: envArg,
  }),
  async run(args, ctx) {
    const expectedBytes = await readLocal(ctx, args.local_expected_image, "local_expected_image");
    const fetched = await fetchResult(ctx, args.env, args.vm_result_image, "result image");
    if (!fetched.ok) return fetched.outcome;
    let expected: GrayImage;
    try {
      expected = args.method === "ssim" ? await decodeGray(expectedBytes) : await decodeGrayLikeOpenCv(expectedBytes);
    } catch (e) {
      throw new Error(`local_expected_image ${args.local_expected_image} is not an image: ${(e as Error).message}`, { cause: e });
    }
    let result: GrayImage;
    try {
      result =
        args.method === "ssim" ? await decodeGray(fetched.data, { width: expected.width, height: expected.height }) : await decodeGrayLikeOpenCv(fetched.data);
    } catch (e) {
      return fail(`the result ${args.vm_result_image} is not an image: ${(e as Error).message}`);
    }
    const [what, s] = args.method === "ssim" ? ["SSIM", ssim(expected, result)] : ["histogram correlation", histogramCorrelation(expected, result)];
    const shown = s.toFixed(4);
    const t = args.similarity_threshold;
    return s >= t ? pass(`${what} ${shown} ≥ threshold ${t}`) : fail(`${what} ${shown} < threshold ${t}`);
  },
});
