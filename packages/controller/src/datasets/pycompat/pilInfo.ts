import { decodeLikePil, isBmp, pngHeader, type Raster } from "./pilDecode.js";
import { bandBBox } from "./pilOps.js";

/**
 * What Pillow tells of an image file without converting it: its size (`Image.open(path).size`),
 * whether its mode has alpha or its info a transparency, and the box of its opaque pixels. sharp
 * (libvips) is loaded on first use, so a controller that never looks at images never loads it.
 */

/** An image file's bytes, and whether Pillow opens it with an alpha band or a `transparency` entry. */
export interface ImageFileFacts {
  bytes: Buffer;
  /** Pillow's `img.mode in ('RGBA', 'LA')`. */
  alphaMode: boolean;
  /** Pillow's `'transparency' in img.info` (a PNG tRNS chunk, a GIF's transparent colour). */
  transparencyInfo: boolean;
}

/** The mode facts of an image file's bytes as Pillow would see them. */
export async function imageFileFacts(bytes: Buffer): Promise<ImageFileFacts> {
  const png = pngHeader(bytes);
  if (png) return { bytes, alphaMode: png.colourType === 4 || png.colourType === 6, transparencyInfo: png.trns };
  if (isBmp(bytes)) return { bytes, alphaMode: (await decodeLikePil(bytes)).channels === 4, transparencyInfo: false };
  const { default: sharp } = await import("sharp");
  const meta = await sharp(bytes).metadata();
  const alpha = meta.hasAlpha === true;
  // Outside PNG, Pillow shows alpha either as an RGBA/LA mode (WebP, TIFF) or as a palette's transparency (GIF).
  return { bytes, alphaMode: alpha && meta.format !== "gif", transparencyInfo: alpha && meta.format === "gif" };
}

/** `img.convert('RGBA').split()[-1].getbbox()`: the box [left, top, right, bottom) of non-zero alpha, or null when all is transparent. */
export async function alphaBBox(bytes: Buffer): Promise<[number, number, number, number] | null> {
  let r: Raster;
  if (isBmp(bytes)) r = await decodeLikePil(bytes);
  else {
    const { default: sharp } = await import("sharp");
    const { data, info } = await sharp(bytes).ensureAlpha().raw({ depth: "uchar" }).toBuffer({ resolveWithObject: true });
    r = { width: info.width, height: info.height, channels: info.channels, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
  }
  if (r.channels !== 2 && r.channels !== 4) return [0, 0, r.width, r.height];
  return bandBBox(r, r.channels - 1);
}

/** The image's size from its header (`Image.open(path).size`). */
export async function imageSize(bytes: Buffer): Promise<{ width: number; height: number }> {
  if (isBmp(bytes)) return decodeLikePil(bytes);
  const { default: sharp } = await import("sharp");
  const meta = await sharp(bytes).metadata();
  if (!meta.width || !meta.height) throw new Error("image has no size");
  return { width: meta.width, height: meta.height };
}
