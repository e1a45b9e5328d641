import type { PilImage } from "./pilImage.js";

/**
 * Pillow's `Image.resize(size, filter)` in its integer arithmetic (`ImagingResample`): BICUBIC (the
 * default) and LANCZOS, two separable passes with fixed-point weights (`precompute_coeffs`,
 * `normalize_coeffs_8bpc`); NEAREST for a palette image; RGBA and LA resized premultiplied.
 */

/** The resampling filters ported. */
export type PilFilter = "bicubic" | "lanczos";

const PRECISION_BITS = 32 - 8 - 2;
const sinc = (x: number) => (x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x));
const FILTERS: Record<PilFilter, { support: number; f: (x: number) => number }> = {
  bicubic: {
    support: 2,
    f: (x) => {
      const a = -0.5;
      const ax = Math.abs(x);
      if (ax < 1) return ((a + 2) * ax - (a + 3)) * ax * ax + 1;
      if (ax < 2) return (((ax - 5) * ax + 8) * ax - 4) * a;
      return 0;
    },
  },
  lanczos: { support: 3, f: (x) => (x >= -3 && x < 3 ? sinc(x) * sinc(x / 3) : 0) },
};

/** Pillow's `precompute_coeffs` and `normalize_coeffs_8bpc`: per output pixel, the first source pixel and fixed-point weights. */
function coefficients(inSize: number, outSize: number, filter: PilFilter): Array<{ min: number; k: Int32Array }> {
  const { support: base, f } = FILTERS[filter];
  const scale = inSize / outSize;
  const filterscale = Math.max(scale, 1);
  const support = base * filterscale;
  const ss = 1 / filterscale;
  const out: Array<{ min: number; k: Int32Array }> = [];
  for (let xx = 0; xx < outSize; xx++) {
    const center = (xx + 0.5) * scale;
    const xmin = Math.max(0, Math.trunc(center - support + 0.5));
    const n = Math.min(inSize, Math.trunc(center + support + 0.5)) - xmin;
    const w = new Float64Array(Math.max(0, n));
    let ww = 0;
    for (let x = 0; x < n; x++) ww += w[x] = f((x + xmin - center + 0.5) * ss);
    const k = new Int32Array(w.length);
    for (let x = 0; x < n; x++) {
      const p = ww !== 0 ? w[x]! / ww : w[x]!;
      k[x] = p < 0 ? Math.trunc(-0.5 + p * (1 << PRECISION_BITS)) : Math.trunc(0.5 + p * (1 << PRECISION_BITS));
    }
    out.push({ min: xmin, k });
  }
  return out;
}

const clip8 = (v: number) => (v >= (1 << PRECISION_BITS) << 8 ? 255 : v <= 0 ? 0 : Math.floor(v / (1 << PRECISION_BITS)));

/** One resampling pass along x (`horizontal`) or y. */
function pass(r: PilImage, size: number, horizontal: boolean, filter: PilFilter): PilImage {
  const co = coefficients(horizontal ? r.width : r.height, size, filter);
  const width = horizontal ? size : r.width;
  const height = horizontal ? r.height : size;
  const c = r.channels;
  const out = new Uint8Array(width * height * c);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const { min, k } = co[horizontal ? x : y]!;
      for (let ch = 0; ch < c; ch++) {
        let ss = 1 << (PRECISION_BITS - 1);
        for (let i = 0; i < k.length; i++) {
          const src = horizontal ? (y * r.width + min + i) * c + ch : ((min + i) * r.width + x) * c + ch;
          ss += r.data[src]! * k[i]!;
        }
        out[(y * width + x) * c + ch] = clip8(ss);
      }
    }
  }
  return { ...r, width, height, data: out };
}

const muldiv255 = (a: number, b: number) => {
  const t = a * b + 128;
  return ((t >> 8) + t) >> 8;
};

/** A palette image resized as Pillow does (NEAREST, whatever the filter). */
function resizeNearest(r: PilImage, width: number, height: number): PilImage {
  const out = new Uint8Array(width * height * r.channels);
  for (let y = 0; y < height; y++) {
    const sy = Math.trunc(((y + 0.5) * r.height) / height);
    for (let x = 0; x < width; x++) {
      const sx = Math.trunc(((x + 0.5) * r.width) / width);
      out.set(r.data.subarray((sy * r.width + sx) * r.channels, (sy * r.width + sx + 1) * r.channels), (y * width + x) * r.channels);
    }
  }
  return { ...r, width, height, data: out };
}

/** `resize((width, height), filter)` (BICUBIC when not given; NEAREST for a palette image); the image itself when the size is unchanged. */
export function resize(r: PilImage, width: number, height: number, filter: PilFilter = "bicubic"): PilImage {
  if (r.width === width && r.height === height) return r;
  if (r.mode === "P") return resizeNearest(r, width, height);
  const alpha = r.mode === "RGBA" || r.mode === "LA";
  let src = r;
  if (alpha) {
    const pre = Uint8Array.from(r.data);
    const c = r.channels;
    for (let i = 0; i < pre.length; i += c) for (let b = 0; b < c - 1; b++) pre[i + b] = muldiv255(pre[i + b]!, pre[i + c - 1]!);
    src = { ...r, data: pre };
  }
  let out = src;
  if (width !== r.width) out = pass(out, width, true, filter);
  if (height !== r.height) out = pass(out, height, false, filter);
  if (alpha) {
    const c = r.channels;
    const d = out.data;
    for (let i = 0; i < d.length; i += c) {
      const a = d[i + c - 1]!;
      if (a === 0 || a === 255) continue;
      for (let b = 0; b < c - 1; b++) d[i + b] = Math.min(255, Math.trunc((255 * d[i + b]!) / a));
    }
  }
  return out;
}
