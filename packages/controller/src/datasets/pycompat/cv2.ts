/**
 * OpenCV's Python binding (`cv2`) as the JSON task format's published evaluator uses it: `imread` and
 * `cvtColor(BGR2GRAY)`, `resize` with INTER_AREA, `calcHist` + `normalize(NORM_MINMAX)` and
 * `compareHist(HISTCMP_CORREL)`. sharp (libvips) decodes, loaded on first use.
 */

/** A single-channel image, one value (0-255) per pixel, row by row. */
export interface GrayImage {
  width: number;
  height: number;
  data: ArrayLike<number>;
}

/**
 * An image as OpenCV's `imread` + `cvtColor(BGR2GRAY)` gives it: alpha dropped (not blended), then
 * Y = 0.299 R + 0.587 G + 0.114 B in OpenCV 4's 15-bit fixed point (OpenCV 2 and 3 used 14 bits,
 * which differs by 1 for some colours).
 */
export async function decodeGrayLikeOpenCv(data: Buffer): Promise<GrayImage> {
  const { default: sharp } = await import("sharp");
  const { data: raw, info } = await sharp(data).removeAlpha().toColourspace("srgb").raw().toBuffer({ resolveWithObject: true });
  const c = info.channels;
  const gray = new Uint8Array(info.width * info.height);
  for (let i = 0; i < gray.length; i++) gray[i] = (raw[i * c]! * 9798 + raw[i * c + 1]! * 19235 + raw[i * c + 2]! * 3735 + 16384) >> 15;
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
