import type { Raster } from "./pixels.js";

/**
 * `skimage.metrics.structural_similarity(a, b, win_size=7, channel_axis=2)` on uint8 images, as
 * OSWorld's `structure_check_by_ssim` calls it, which is NOT the SSIM in evaluationHelpers/images.ts
 * (that one is Wang et al.'s reference: an 11 × 11 Gaussian window, population variances,
 * downsampling of large images, grey only). scikit-image's defaults here: a uniform 7 × 7 window
 * (`gaussian_weights=False`), sample (co)variances (`use_sample_covariance=True`, × 49/48),
 * data_range 255 (uint8), K1 = 0.01, K2 = 0.03, the SSIM map cropped by (7 − 1) / 2 = 3 pixels
 * each side (so the filter's border mode never matters: a 'valid' box filter), averaged; with
 * `channel_axis`, the mean over channels of each channel's mean SSIM.
 */
export function skimageSsim(a: Raster, b: Raster, win = 7): number {
  if (a.width !== b.width || a.height !== b.height || a.channels !== b.channels) throw new Error("ssim: images differ in shape");
  if (a.width < win || a.height < win) throw new Error(`ssim: image smaller than the ${win}×${win} window`);
  let total = 0;
  for (let c = 0; c < a.channels; c++) total += channelSsim(a, b, c, win);
  return total / a.channels;
}

/** Mean SSIM of one channel over the cropped map. */
function channelSsim(a: Raster, b: Raster, c: number, win: number): number {
  const { width: w, height: h } = a;
  const n = w * h;
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i] = a.data[i * a.channels + c]!;
    y[i] = b.data[i * b.channels + c]!;
  }
  const sq = (u: Float64Array, v: Float64Array) => u.map((e, i) => e * v[i]!);
  const ux = boxValid(x, w, h, win);
  const uy = boxValid(y, w, h, win);
  const uxx = boxValid(sq(x, x), w, h, win);
  const uyy = boxValid(sq(y, y), w, h, win);
  const uxy = boxValid(sq(x, y), w, h, win);
  const np = win * win;
  const covNorm = np / (np - 1);
  const C1 = (0.01 * 255) ** 2;
  const C2 = (0.03 * 255) ** 2;
  let sum = 0;
  for (let i = 0; i < ux.length; i++) {
    const mx = ux[i]!;
    const my = uy[i]!;
    const vx = covNorm * (uxx[i]! - mx * mx);
    const vy = covNorm * (uyy[i]! - my * my);
    const vxy = covNorm * (uxy[i]! - mx * my);
    sum += ((2 * mx * my + C1) * (2 * vxy + C2)) / ((mx * mx + my * my + C1) * (vx + vy + C2));
  }
  return sum / ux.length;
}

/** The mean over each win × win window lying wholly inside the image: (w − win + 1) × (h − win + 1) values. */
function boxValid(src: Float64Array, w: number, h: number, win: number): Float64Array {
  const ow = w - win + 1;
  const oh = h - win + 1;
  const rows = new Float64Array(ow * h);
  for (let yy = 0; yy < h; yy++) {
    for (let xx = 0; xx < ow; xx++) {
      let s = 0;
      for (let i = 0; i < win; i++) s += src[yy * w + xx + i]!;
      rows[yy * ow + xx] = s / win;
    }
  }
  const out = new Float64Array(ow * oh);
  for (let yy = 0; yy < oh; yy++) {
    for (let xx = 0; xx < ow; xx++) {
      let s = 0;
      for (let i = 0; i < win; i++) s += rows[(yy + i) * ow + xx]!;
      out[yy * ow + xx] = s / win;
    }
  }
  return out;
}
