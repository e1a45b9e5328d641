import { z } from "zod";
import { defineEvaluationFunction } from "../helpers.js";
import { envArg, fail, fetchResult, pass, readLocal } from "./common.js";

/**
 * Image similarity: SSIM (Wang, Bovik, Sheikh and Simoncelli, 2004) on grayscale, which compares
 * local structure, so two images with the same colours in different places are not similar (a
 * histogram comparison would call them identical).
 */

/** A single-channel image, one value (0-255) per pixel, row by row. */
export interface GrayImage {
  width: number;
  height: number;
  data: ArrayLike<number>;
}

const K1 = 0.01;
const K2 = 0.03;
const L = 255;
const C1 = (K1 * L) ** 2;
const C2 = (K2 * L) ** 2;

function gaussian(size: number, sigma: number): Float64Array {
  const k = new Float64Array(size);
  const mid = (size - 1) / 2;
  let sum = 0;
  for (let i = 0; i < size; i++) sum += k[i] = Math.exp(-((i - mid) ** 2) / (2 * sigma * sigma));
  for (let i = 0; i < size; i++) k[i]! /= sum;
  return k;
}

/** Separable 'valid' filtering: the output is (w − n + 1) × (h − n + 1). */
function filter(src: Float64Array, w: number, h: number, k: Float64Array): Float64Array {
  const n = k.length;
  const ow = w - n + 1;
  const oh = h - n + 1;
  const tmp = new Float64Array(ow * h);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < ow; x++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += src[row + x + i]! * k[i]!;
      tmp[y * ow + x] = s;
    }
  }
  const out = new Float64Array(ow * oh);
  for (let y = 0; y < oh; y++) {
    for (let x = 0; x < ow; x++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += tmp[(y + i) * ow + x]! * k[i]!;
      out[y * ow + x] = s;
    }
  }
  return out;
}

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
 * Gaussian window (σ = 1.5), K1 = 0.01, K2 = 0.03, and images first averaged down by
 * round(min(width, height) / 256) as the authors recommend (screenshots are compared at the scale
 * a person sees structure, and quickly).
 */
export function ssim(a: GrayImage, b: GrayImage): number {
  if (a.width !== b.width || a.height !== b.height) throw new Error(`ssim: sizes differ (${a.width}×${a.height} and ${b.width}×${b.height})`);
  const f = Math.max(1, Math.round(Math.min(a.width, a.height) / 256));
  if (f > 1) {
    a = downsample(a, f);
    b = downsample(b, f);
  }
  const { width: w, height: h } = a;
  if (w === 0 || h === 0) throw new Error("ssim: empty image");
  let size = Math.min(11, w, h);
  if (size % 2 === 0) size -= 1;
  const k = gaussian(size, 1.5);
  const n = w * h;
  const x = Float64Array.from(a.data);
  const y = Float64Array.from(b.data);
  const xx = new Float64Array(n);
  const yy = new Float64Array(n);
  const xy = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    xx[i] = x[i]! * x[i]!;
    yy[i] = y[i]! * y[i]!;
    xy[i] = x[i]! * y[i]!;
  }
  const mx = filter(x, w, h, k);
  const my = filter(y, w, h, k);
  const sxx = filter(xx, w, h, k);
  const syy = filter(yy, w, h, k);
  const sxy = filter(xy, w, h, k);
  let total = 0;
  for (let i = 0; i < mx.length; i++) {
    const ux = mx[i]!;
    const uy = my[i]!;
    const vx = sxx[i]! - ux * ux;
    const vy = syy[i]! - uy * uy;
    const cxy = sxy[i]! - ux * uy;
    total += ((2 * ux * uy + C1) * (2 * cxy + C2)) / ((ux * ux + uy * uy + C1) * (vx + vy + C2));
  }
  return total / mx.length;
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

/**
 * An image as OpenCV's `imread` + `cvtColor(BGR2GRAY)` gives it: alpha dropped (not blended), then
 * Y = 0.299 R + 0.587 G + 0.114 B in OpenCV's 14-bit fixed point.
 */
export async function decodeGrayLikeOpenCv(data: Buffer): Promise<GrayImage> {
  const { default: sharp } = await import("sharp");
  const { data: raw, info } = await sharp(data).removeAlpha().toColourspace("srgb").raw().toBuffer({ resolveWithObject: true });
  const c = info.channels;
  const gray = new Uint8Array(info.width * info.height);
  for (let i = 0; i < gray.length; i++) gray[i] = (raw[i * c]! * 4899 + raw[i * c + 1]! * 9617 + raw[i * c + 2]! * 1868 + 8192) >> 14;
  return { width: info.width, height: info.height, data: gray };
}

/** Weights of area resampling along one axis: for each output position, the source positions it covers and by how much. */
function areaWeights(from: number, to: number): Array<Array<[number, number]>> {
  const scale = from / to;
  return Array.from({ length: to }, (_, o) => {
    const start = o * scale;
    const end = Math.min(from, start + scale);
    const out: Array<[number, number]> = [];
    for (let s = Math.floor(start); s < end; s++) {
      const w = Math.min(end, s + 1) - Math.max(start, s);
      if (w > 1e-12) out.push([s, w / scale]);
    }
    return out;
  });
}

/** Resizes by averaging the source area each output pixel covers (OpenCV's INTER_AREA when shrinking), rounded to 0-255. */
export function resizeArea(img: GrayImage, width: number, height: number): GrayImage {
  if (img.width === width && img.height === height) return img;
  const wx = areaWeights(img.width, width);
  const wy = areaWeights(img.height, height);
  const rows = new Float64Array(width * img.height);
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < width; x++) {
      let s = 0;
      for (const [sx, w] of wx[x]!) s += img.data[y * img.width + sx]! * w;
      rows[y * width + x] = s;
    }
  }
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let s = 0;
      for (const [sy, w] of wy[y]!) s += rows[sy * width + x]! * w;
      data[y * width + x] = Math.min(255, Math.max(0, Math.round(s)));
    }
  }
  return { width, height, data };
}

/** A 256-bin grey-level histogram scaled to [0, 1] (min-max, in float32, as OpenCV stores it). */
function normalizedHistogram(img: GrayImage): Float64Array {
  const h = new Float64Array(256);
  for (let i = 0; i < img.data.length; i++) h[img.data[i]!]! += 1;
  let min = Infinity;
  let max = -Infinity;
  for (const v of h) {
    min = Math.min(min, v);
    max = Math.max(max, v);
  }
  const scale = max - min > Number.EPSILON ? 1 / (max - min) : 0;
  return h.map((v) => Math.fround((v - min) * scale));
}

/**
 * The published evaluator's `compare_jupyterlab_images` measure: both images in grey, the larger (by
 * pixel count) shrunk to the smaller's size, then the correlation of their min-max normalised
 * 256-bin histograms (OpenCV's HISTCMP_CORREL; 1 when either histogram is flat). It sees only how
 * much of each grey there is, not where: a flipped or rearranged image scores 1.
 */
export function histogramCorrelation(a: GrayImage, b: GrayImage): number {
  const [x, y] = a.width * a.height > b.width * b.height ? [resizeArea(a, b.width, b.height), b] : [a, resizeArea(b, a.width, a.height)];
  const h1 = normalizedHistogram(x);
  const h2 = normalizedHistogram(y);
  let s1 = 0;
  let s2 = 0;
  let s11 = 0;
  let s12 = 0;
  let s22 = 0;
  for (let i = 0; i < 256; i++) {
    s1 += h1[i]!;
    s2 += h2[i]!;
    s11 += h1[i]! * h1[i]!;
    s12 += h1[i]! * h2[i]!;
    s22 += h2[i]! * h2[i]!;
  }
  const num = s12 - (s1 * s2) / 256;
  const denom = (s11 - (s1 * s1) / 256) * (s22 - (s2 * s2) / 256);
  return Math.abs(denom) > Number.EPSILON ? num / Math.sqrt(denom) : 1;
}

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
