/**
 * scikit-image's `structural_similarity(a, b, ...)` (Wang, Bovik, Sheikh and Simoncelli, 2004) with
 * K1 = 0.01 and K2 = 0.03: the local means, variances and covariance over a window, the SSIM map
 * cropped by (win − 1) / 2 pixels each side (so the filter's border mode never matters: a 'valid'
 * filter), averaged; for images with several channels (`channel_axis`), the mean over channels of
 * each channel's mean SSIM.
 */

/** An image: `channels` samples a pixel (1 when unset), row by row. */
export interface SsimImage {
  width: number;
  height: number;
  channels?: number;
  data: ArrayLike<number>;
}

/** scikit-image's options of `structural_similarity`, with its defaults. */
export interface SsimOptions {
  /**
   * The window's side. @default 7 (uniform), 11 (Gaussian: skimage's window for σ = 1.5; a smaller
   * odd size is a Gaussian of that many taps, for images under 11 pixels)
   */
  winSize?: number;
  /** A Gaussian window (σ = `sigma`) instead of a uniform one. @default false */
  gaussianWeights?: boolean;
  /** @default 1.5 */
  sigma?: number;
  /** Sample (co)variances, × n/(n − 1) over the window's n pixels; false: population ones, as Wang et al. @default true */
  useSampleCovariance?: boolean;
  /** @default 255 (uint8 images) */
  dataRange?: number;
}

/** The normalised weights of a Gaussian window of `size` taps. */
function gaussianWindow(size: number, sigma: number): Float64Array {
  const k = new Float64Array(size);
  const mid = (size - 1) / 2;
  let sum = 0;
  for (let i = 0; i < size; i++) sum += k[i] = Math.exp(-((i - mid) ** 2) / (2 * sigma * sigma));
  for (let i = 0; i < size; i++) k[i]! /= sum;
  return k;
}

/**
 * Separable 'valid' filtering by a window of `n` taps: (w − n + 1) × (h − n + 1) values. Without
 * weights, the mean of each pass (sum / n, as scipy's uniform_filter); with them, the weighted sum.
 */
function filterValid(src: Float64Array, w: number, h: number, n: number, weights: Float64Array | undefined): Float64Array {
  const ow = w - n + 1;
  const oh = h - n + 1;
  const tmp = new Float64Array(ow * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < ow; x++) {
      let s = 0;
      if (weights) for (let i = 0; i < n; i++) s += src[y * w + x + i]! * weights[i]!;
      else for (let i = 0; i < n; i++) s += src[y * w + x + i]!;
      tmp[y * ow + x] = weights ? s : s / n;
    }
  }
  const out = new Float64Array(ow * oh);
  for (let y = 0; y < oh; y++) {
    for (let x = 0; x < ow; x++) {
      let s = 0;
      if (weights) for (let i = 0; i < n; i++) s += tmp[(y + i) * ow + x]! * weights[i]!;
      else for (let i = 0; i < n; i++) s += tmp[(y + i) * ow + x]!;
      out[y * ow + x] = weights ? s : s / n;
    }
  }
  return out;
}

/** The mean SSIM of one channel. */
function channelSsim(a: SsimImage, b: SsimImage, c: number, n: number, weights: Float64Array | undefined, covNorm: number, dataRange: number): number {
  const { width: w, height: h } = a;
  const stride = a.channels ?? 1;
  const x = new Float64Array(w * h);
  const y = new Float64Array(w * h);
  for (let i = 0; i < x.length; i++) {
    x[i] = a.data[i * stride + c]!;
    y[i] = b.data[i * stride + c]!;
  }
  const product = (u: Float64Array, v: Float64Array) => u.map((e, i) => e * v[i]!);
  const [ux, uy, uxx, uyy, uxy] = [x, y, product(x, x), product(y, y), product(x, y)].map((m) => filterValid(m, w, h, n, weights)) as [
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
  ];
  const c1 = (0.01 * dataRange) ** 2;
  const c2 = (0.03 * dataRange) ** 2;
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

/**
 * `skimage.metrics.structural_similarity(a, b, ...)` (see the module comment): in [-1, 1], 1 for
 * identical images. Throws, as skimage raises, when the shapes differ or a side is under the window.
 */
export function structuralSimilarity(a: SsimImage, b: SsimImage, opts: SsimOptions = {}): number {
  const channels = a.channels ?? 1;
  if (a.width !== b.width || a.height !== b.height || channels !== (b.channels ?? 1)) throw new Error("Input images must have the same dimensions.");
  const n = opts.winSize ?? (opts.gaussianWeights ? 11 : 7);
  if (a.width < n || a.height < n) throw new Error(`win_size exceeds image extent (the images are smaller than ${n} × ${n})`);
  const weights = opts.gaussianWeights ? gaussianWindow(n, opts.sigma ?? 1.5) : undefined;
  const np = n * n;
  const covNorm = (opts.useSampleCovariance ?? true) ? np / (np - 1) : 1;
  let total = 0;
  for (let c = 0; c < channels; c++) total += channelSsim(a, b, c, n, weights, covNorm, opts.dataRange ?? 255);
  return total / channels;
}
