import { readBytes } from "./common.js";
import { loadRaster, luma, type Raster } from "./pixels.js";

/**
 * Pillow's image operations as OSWorld's GIMP metrics use them, in Pillow's integer arithmetic:
 * `Image.open` (with the mode it reports), `resize` (BICUBIC by default, LANCZOS, NEAREST for
 * palette images; RGBA resized premultiplied), `convert` to RGB, L and HSV, and `getbbox`.
 */

/** A decoded image and the mode Pillow gives it ("L", "LA", "RGB", "RGBA", "P"); palette images arrive expanded. */
export interface PilImage extends Raster {
  mode: "L" | "LA" | "RGB" | "RGBA" | "P";
  /** `'transparency' in img.info`: a PNG tRNS chunk. */
  transparency: boolean;
}

/** The PNG's colour type and whether it has a tRNS chunk, or null for another format. */
function pngHeader(bytes: Buffer): { colourType: number; trns: boolean } | null {
  if (bytes.length < 33 || bytes.readUInt32BE(0) !== 0x89504e47) return null;
  let trns = false;
  for (let at = 8; at + 8 <= bytes.length; ) {
    const type = bytes.toString("latin1", at + 4, at + 8);
    if (type === "tRNS") trns = true;
    if (type === "IDAT" || type === "IEND") break;
    at += 12 + bytes.readUInt32BE(at);
  }
  return { colourType: bytes[25]!, trns };
}

/** `Image.open(path)` decoded; null when there is no file; throws when it is not an image. */
export async function openImage(path: string): Promise<PilImage | null> {
  const bytes = await readBytes(path);
  if (bytes === null) return null;
  const r = await loadRaster(path);
  if (r === null) return null;
  const png = pngHeader(bytes);
  const palette = r.palette === true || bytes.toString("latin1", 0, 3) === "GIF";
  const mode = palette ? "P" : (["L", "LA", "RGB", "RGBA"] as const)[r.channels - 1]!;
  return { ...r, mode, transparency: png?.trns === true };
}

const img = (base: PilImage, width: number, height: number, channels: number, data: Uint8Array, mode: PilImage["mode"]): PilImage => ({
  ...base,
  width,
  height,
  channels,
  data,
  mode,
  palette: false,
});

/** `convert("RGB")`: grey bands replicated, alpha dropped. */
export function toRGB(r: PilImage): PilImage {
  const n = r.width * r.height;
  const out = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) {
    const at = i * r.channels;
    const grey = r.channels < 3;
    out[i * 3] = r.data[at]!;
    out[i * 3 + 1] = r.data[grey ? at : at + 1]!;
    out[i * 3 + 2] = r.data[grey ? at : at + 2]!;
  }
  return img(r, r.width, r.height, 3, out, "RGB");
}

/** `convert("RGBA")`: opaque alpha added where there is none (a PNG's tRNS colour is not applied here). */
export function toRGBA(r: PilImage): PilImage {
  if (r.channels === 4) return { ...r, mode: "RGBA" };
  const rgb = toRGB(r);
  const n = r.width * r.height;
  const out = new Uint8Array(n * 4);
  for (let i = 0; i < n; i++) {
    out.set(rgb.data.subarray(i * 3, i * 3 + 3), i * 4);
    out[i * 4 + 3] = r.channels === 2 ? r.data[i * 2 + 1]! : 255;
  }
  return img(r, r.width, r.height, 4, out, "RGBA");
}

/** `convert("L")`: ITU-R 601-2 luma (alpha ignored). */
export function toL(r: PilImage): PilImage {
  const n = r.width * r.height;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const at = i * r.channels;
    out[i] = r.channels < 3 ? r.data[at]! : luma(r.data[at]!, r.data[at + 1]!, r.data[at + 2]!);
  }
  return img(r, r.width, r.height, 1, out, "L");
}

const f32 = Math.fround;
const clip8i = (v: number) => (v <= 0 ? 0 : v >= 255 ? 255 : v);

/** `convert("HSV")` (via RGB): Pillow's rgb2hsv in single precision, each band 0-255. */
export function toHSV(r: PilImage): PilImage {
  const rgb = toRGB(r);
  const out = new Uint8Array(rgb.data.length);
  for (let i = 0; i < rgb.data.length; i += 3) {
    const [R, G, B] = [rgb.data[i]!, rgb.data[i + 1]!, rgb.data[i + 2]!];
    const maxc = Math.max(R, G, B);
    const minc = Math.min(R, G, B);
    out[i + 2] = maxc;
    if (minc === maxc) continue;
    const cr = f32(maxc - minc);
    const s = f32(cr / maxc);
    const rc = f32((maxc - R) / cr);
    const gc = f32((maxc - G) / cr);
    const bc = f32((maxc - B) / cr);
    let h = R === maxc ? f32(bc - gc) : G === maxc ? f32(2.0 + rc - bc) : f32(4.0 + gc - rc);
    h = f32((h / 6.0 + 1.0) % 1.0);
    out[i] = clip8i(Math.trunc(h * 255.0));
    out[i + 1] = clip8i(Math.trunc(s * 255.0));
  }
  return img(r, r.width, r.height, 3, out, "RGB");
}

/** One band of a 3-band image as an "L" image (`split()[band]`). */
export function band(r: PilImage, b: number): PilImage {
  const out = new Uint8Array(r.width * r.height);
  for (let i = 0; i < out.length; i++) out[i] = r.data[i * r.channels + b]!;
  return img(r, r.width, r.height, 1, out, "L");
}

/** `transpose(FLIP_LEFT_RIGHT)`. */
export function flipLeftRight(r: PilImage): PilImage {
  const out = new Uint8Array(r.data.length);
  const c = r.channels;
  for (let y = 0; y < r.height; y++) {
    for (let x = 0; x < r.width; x++) out.set(r.data.subarray((y * r.width + x) * c, (y * r.width + x + 1) * c), (y * r.width + (r.width - 1 - x)) * c);
  }
  return { ...r, data: out };
}

/** `crop((left, top, right, bottom))` within the image. */
export function crop(r: PilImage, [l, t, rr, b]: readonly [number, number, number, number]): PilImage {
  const w = rr - l;
  const h = b - t;
  const out = new Uint8Array(w * h * r.channels);
  for (let y = 0; y < h; y++) out.set(r.data.subarray(((t + y) * r.width + l) * r.channels, ((t + y) * r.width + l + w) * r.channels), y * w * r.channels);
  return { ...r, width: w, height: h, data: out };
}

/** `band.getbbox()` of one band: the box of its non-zero samples, or null. */
export function bandBBox(r: PilImage, b: number): [number, number, number, number] | null {
  let [l, t, rr, bb] = [r.width, r.height, 0, 0];
  for (let y = 0; y < r.height; y++) {
    for (let x = 0; x < r.width; x++) {
      if (r.data[(y * r.width + x) * r.channels + b] === 0) continue;
      l = Math.min(l, x);
      t = Math.min(t, y);
      rr = Math.max(rr, x + 1);
      bb = Math.max(bb, y + 1);
    }
  }
  return rr === 0 ? null : [l, t, rr, bb];
}

export type Filter = "bicubic" | "lanczos";
const PRECISION_BITS = 32 - 8 - 2;
const sinc = (x: number) => (x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x));
const FILTERS: Record<Filter, { support: number; f: (x: number) => number }> = {
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
function coefficients(inSize: number, outSize: number, filter: Filter): Array<{ min: number; k: Int32Array }> {
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

function pass(r: PilImage, size: number, horizontal: boolean, filter: Filter): PilImage {
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

/** `resize((width, height), filter)` (filter BICUBIC when not given; NEAREST for a palette image). */
export function resize(r: PilImage, width: number, height: number, filter: Filter = "bicubic"): PilImage {
  if (r.width === width && r.height === height) return r;
  if (r.mode === "P") {
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
