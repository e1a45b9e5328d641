import { decodeLikePil, isGif, pngHeader, type Raster } from "./pilDecode.js";

/**
 * Pillow's `Image` as the ported metrics use it, in Pillow's integer arithmetic: `Image.open` (with
 * the mode it reports), `convert` to RGB, RGBA, L and HSV, `split()`, `point()` and
 * `ImageStat.Stat(...).mean`. Resizing is pilResize.ts, geometry pilOps.ts.
 */

/** Pillow's image modes as the ported code meets them; palette images (P) are held expanded to their colours. */
export type PilMode = "L" | "LA" | "RGB" | "RGBA" | "P";

/** A decoded image with the mode Pillow gives it. */
export interface PilImage extends Raster {
  mode: PilMode;
  /** `'transparency' in img.info`: a PNG tRNS chunk. */
  transparency: boolean;
}

/** `Image.open(...)` of an image file's bytes (see pilDecode.ts); throws when they are not an image. */
export async function openPilImage(bytes: Buffer): Promise<PilImage> {
  const r = await decodeLikePil(bytes);
  const palette = r.palette === true || isGif(bytes);
  const mode = palette ? "P" : (["L", "LA", "RGB", "RGBA"] as const)[r.channels - 1]!;
  return { ...r, mode, transparency: pngHeader(bytes)?.trns === true };
}

/** An "L" image of 8-bit grey samples, row by row. */
export function greyImage(width: number, height: number, data: Uint8Array): PilImage {
  return { width, height, channels: 1, data, mode: "L", transparency: false };
}

/** A converted image: the source's other facts kept, no longer a palette image. */
const converted = (base: PilImage, channels: number, data: Uint8Array, mode: PilMode): PilImage => ({ ...base, channels, data, mode, palette: false });

/** Pillow's `convert('L')` of one pixel from RGB: ITU-R 601-2 luma in 16-bit fixed point, rounded. */
export function luma(r: number, g: number, b: number): number {
  return (r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16;
}

/** `convert("RGB")`: grey bands replicated, alpha dropped (not composited). */
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
  return converted(r, 3, out, "RGB");
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
  return converted(r, 4, out, "RGBA");
}

/** `convert("L")`: ITU-R 601-2 luma (alpha ignored, not composited). */
export function toL(r: PilImage): PilImage {
  const n = r.width * r.height;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const at = i * r.channels;
    out[i] = r.channels < 3 ? r.data[at]! : luma(r.data[at]!, r.data[at + 1]!, r.data[at + 2]!);
  }
  return converted(r, 1, out, "L");
}

/**
 * `Image.open(path).convert("L")` of an image file's bytes (see pilDecode.ts): alpha dropped (not
 * blended), no colour profile applied.
 */
export async function decodeGrayLikePil(bytes: Buffer): Promise<PilImage> {
  return toL(await openPilImage(bytes));
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
  return converted(r, 3, out, "RGB");
}

/** One band of an image as an "L" image (`split()[band]`). */
export function band(r: PilImage, b: number): PilImage {
  const out = new Uint8Array(r.width * r.height);
  for (let i = 0; i < out.length; i++) out[i] = r.data[i * r.channels + b]!;
  return converted(r, 1, out, "L");
}

/** `ImageStat.Stat(img.convert('L')).mean[0]`: the mean luma. */
export function meanBrightness(r: Raster): number {
  const n = r.width * r.height;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const at = i * r.channels;
    sum += r.channels < 3 ? r.data[at]! : luma(r.data[at]!, r.data[at + 1]!, r.data[at + 2]!);
  }
  return sum / n;
}

/** `img.point(lut)`: the same 256-entry table applied to every band (alpha included, as Pillow does). */
export function pointAll<T extends Raster>(r: T, lut: (x: number) => number): T {
  const table = Uint8Array.from({ length: 256 }, (_, i) => lut(i));
  return { ...r, data: r.data.map((v) => table[v]!) };
}
