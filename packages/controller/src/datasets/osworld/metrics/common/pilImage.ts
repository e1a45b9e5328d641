import { decodeLikePil } from "./pilDecode.js";

/**
 * What vlc.py's `compare_images` does with Pillow and scikit-image, reproduced: Pillow's
 * `convert("L")`, its LANCZOS resize (fixed-point, two passes) and skimage's default
 * `structural_similarity` on uint8 arrays.
 */

/** An 8-bit single-channel image, row by row. */
export interface Gray8 {
  width: number;
  height: number;
  data: Uint8Array;
}

/**
 * Decodes an image as Pillow's `Image.open(path).convert("L")` does (see pilDecode.ts): alpha dropped
 * (not blended), no colour profile applied, L = (19595 R + 38470 G + 7471 B + 0x8000) >> 16.
 */
export async function decodeGrayLikePil(data: Buffer): Promise<Gray8> {
  const { data: raw, width, height, channels: c } = await decodeLikePil(data);
  const gray = new Uint8Array(width * height);
  if (c < 3) for (let i = 0; i < gray.length; i++) gray[i] = raw[i * c]!;
  else for (let i = 0; i < gray.length; i++) gray[i] = (raw[i * c]! * 19595 + raw[i * c + 1]! * 38470 + raw[i * c + 2]! * 7471 + 0x8000) >>> 16;
  return { width, height, data: gray };
}

const PRECISION_BITS = 32 - 8 - 2;

function sinc(x: number): number {
  if (x === 0) return 1;
  const px = x * Math.PI;
  return Math.sin(px) / px;
}

const lanczos = (x: number) => (x >= -3 && x < 3 ? sinc(x) * sinc(x / 3) : 0);

/** Pillow's `precompute_coeffs` + `normalize_coeffs_8bpc` for LANCZOS (support 3): per output pixel, the first source pixel and integer weights. */
function coefficients(inSize: number, outSize: number): Array<{ min: number; weights: Int32Array }> {
  const scale = inSize / outSize;
  const filterscale = Math.max(scale, 1);
  const support = 3 * filterscale;
  const out: Array<{ min: number; weights: Int32Array }> = [];
  for (let xx = 0; xx < outSize; xx++) {
    const center = (xx + 0.5) * scale;
    const ss = 1 / filterscale;
    const xmin = Math.max(0, Math.trunc(center - support + 0.5));
    const xmax = Math.min(inSize, Math.trunc(center + support + 0.5)) - xmin;
    const w = new Float64Array(Math.max(0, xmax));
    let ww = 0;
    for (let x = 0; x < xmax; x++) ww += w[x] = lanczos((x + xmin - center + 0.5) * ss);
    const weights = new Int32Array(w.length);
    for (let x = 0; x < xmax; x++) {
      const k = ww !== 0 ? w[x]! / ww : w[x]!;
      weights[x] = k < 0 ? Math.trunc(-0.5 + k * (1 << PRECISION_BITS)) : Math.trunc(0.5 + k * (1 << PRECISION_BITS));
    }
    out.push({ min: xmin, weights });
  }
  return out;
}

function clip8(v: number): number {
  if (v >= (1 << PRECISION_BITS) << 8) return 255;
  if (v <= 0) return 0;
  return Math.floor(v / (1 << PRECISION_BITS));
}

/** One resampling pass along x (`horizontal`) or y. */
function pass(img: Gray8, size: number, horizontal: boolean): Gray8 {
  const coeffs = coefficients(horizontal ? img.width : img.height, size);
  const width = horizontal ? size : img.width;
  const height = horizontal ? img.height : size;
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const { min, weights } = coeffs[horizontal ? x : y]!;
      let ss = 1 << (PRECISION_BITS - 1);
      for (let k = 0; k < weights.length; k++) {
        ss += (horizontal ? img.data[y * img.width + min + k]! : img.data[(min + k) * img.width + x]!) * weights[k]!;
      }
      data[y * width + x] = clip8(ss);
    }
  }
  return { width, height, data };
}

/** Pillow's `image.resize((width, height), Image.Resampling.LANCZOS)` of an "L" image (a copy when the size is unchanged). */
export function resizeLanczosLikePil(img: Gray8, width: number, height: number): Gray8 {
  let out = img;
  if (width !== img.width) out = pass(out, width, true);
  if (height !== img.height) out = pass(out, height, false);
  return out;
}

/** Sums over each 7 × 7 window lying wholly inside the image: (w − 6) × (h − 6) values, divided by 49. */
function boxMean(src: Float64Array, w: number, h: number, n: number): Float64Array {
  const ow = w - n + 1;
  const oh = h - n + 1;
  const rows = new Float64Array(ow * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < ow; x++) for (let i = 0; i < n; i++) rows[y * ow + x]! += src[y * w + x + i]!;
  const out = new Float64Array(ow * oh);
  for (let y = 0; y < oh; y++) for (let x = 0; x < ow; x++) for (let i = 0; i < n; i++) out[y * ow + x]! += rows[(y + i) * ow + x]!;
  for (let i = 0; i < out.length; i++) out[i]! /= n * n;
  return out;
}

/**
 * scikit-image's `structural_similarity(a, b)` with its defaults for two uint8 images: a 7 × 7
 * uniform window, sample covariance (× 49/48), K1 = 0.01, K2 = 0.03, data range 255, and the mean
 * over the pixels at least 3 from the border. Throws, as skimage does, when a side is under 7.
 */
export function skimageSsim(a: Gray8, b: Gray8): number {
  if (a.width !== b.width || a.height !== b.height) throw new Error("Input images must have the same dimensions.");
  const n = 7;
  if (a.width < n || a.height < n) throw new Error("win_size exceeds image extent (the images are smaller than 7 × 7)");
  const x = Float64Array.from(a.data);
  const y = Float64Array.from(b.data);
  const xx = x.map((v) => v * v);
  const yy = y.map((v) => v * v);
  const xy = x.map((v, i) => v * y[i]!);
  const [ux, uy, uxx, uyy, uxy] = [x, y, xx, yy, xy].map((m) => boxMean(m, a.width, a.height, n)) as [
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
  ];
  const covNorm = (n * n) / (n * n - 1);
  const c1 = (0.01 * 255) ** 2;
  const c2 = (0.03 * 255) ** 2;
  let total = 0;
  for (let i = 0; i < ux.length; i++) {
    const [mx, my] = [ux[i]!, uy[i]!];
    const vx = covNorm * (uxx[i]! - mx * mx);
    const vy = covNorm * (uyy[i]! - my * my);
    const vxy = covNorm * (uxy[i]! - mx * my);
    total += ((2 * mx * my + c1) * (2 * vxy + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2));
  }
  return total / ux.length;
}
