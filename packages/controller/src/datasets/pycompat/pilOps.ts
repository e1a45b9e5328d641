import type { PilImage } from "./pilImage.js";

/** Pillow's geometry on an image: `transpose(FLIP_LEFT_RIGHT)`, `crop` and a band's `getbbox()`. */

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

/** `band.getbbox()` of one band: the box [left, top, right, bottom) of its non-zero samples, or null. */
export function bandBBox(r: { width: number; height: number; channels: number; data: Uint8Array }, b: number): [number, number, number, number] | null {
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
