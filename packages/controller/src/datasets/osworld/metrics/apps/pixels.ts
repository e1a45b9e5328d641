import type { Sharp } from "sharp";
import { decodeLikePil, isBmp } from "../common/pilDecode.js";
import { readBytes } from "./common.js";

/**
 * Decoded pixels, 8 bits a sample, row by row, as Pillow holds an image after `Image.open`:
 * 1 (L), 2 (LA), 3 (RGB) or 4 (RGBA) channels. Palette images arrive expanded to RGB(A).
 */
export interface Raster {
  width: number;
  height: number;
  channels: number;
  data: Uint8Array;
  /** A palette PNG (Pillow mode `P`), expanded here. */
  palette?: boolean;
}

/** sharp, loaded on first use (a controller that never compares images never loads libvips). */
async function sharpOf(input: Buffer | { raster: Raster }): Promise<Sharp> {
  const { default: sharp } = await import("sharp");
  if (Buffer.isBuffer(input)) return sharp(input);
  const { width, height, channels, data } = input.raster;
  return sharp(data, { raw: { width, height, channels: channels as 1 | 2 | 3 | 4 } });
}

/** Runs a sharp pipeline to 8-bit raw pixels. */
async function toRaster(img: Sharp): Promise<Raster> {
  const { data, info } = await img.raw({ depth: "uchar" }).toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels: info.channels, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
}

/** The image file decoded (`Image.open(path)`, see common/pilDecode.ts), or null when there is no file; throws when it is not an image. */
export async function loadRaster(path: string): Promise<Raster | null> {
  const bytes = await readBytes(path);
  return bytes === null ? null : decodeLikePil(bytes);
}

/** The bytes of a file, and whether it is an image Pillow opens with an alpha band or a `transparency` entry. */
export interface ImageFile {
  bytes: Buffer;
  /** Pillow's `img.mode in ('RGBA', 'LA')`. */
  alphaMode: boolean;
  /** Pillow's `'transparency' in img.info` (a PNG tRNS chunk, a GIF's transparent colour). */
  transparencyInfo: boolean;
}

/** PNG chunk types present (IHDR's colour type too), read from the file's structure. */
function pngInfo(bytes: Buffer): { colourType: number; trns: boolean } | null {
  if (bytes.length < 33 || bytes.readUInt32BE(0) !== 0x89504e47) return null;
  const colourType = bytes[25]!;
  let trns = false;
  for (let at = 8; at + 8 <= bytes.length; ) {
    const len = bytes.readUInt32BE(at);
    const type = bytes.toString("latin1", at + 4, at + 8);
    if (type === "tRNS") trns = true;
    if (type === "IDAT" || type === "IEND") break;
    at += 12 + len;
  }
  return { colourType, trns };
}

/** Reads an image file's mode facts as Pillow would see them, or null when there is no file. */
export async function imageFile(path: string): Promise<ImageFile | null> {
  const bytes = await readBytes(path);
  if (bytes === null) return null;
  const png = pngInfo(bytes);
  if (png) return { bytes, alphaMode: png.colourType === 4 || png.colourType === 6, transparencyInfo: png.trns };
  if (isBmp(bytes)) return { bytes, alphaMode: (await decodeLikePil(bytes)).channels === 4, transparencyInfo: false };
  const meta = await (await sharpOf(bytes)).metadata();
  const alpha = meta.hasAlpha === true;
  // Outside PNG, Pillow shows alpha either as an RGBA/LA mode (WebP, TIFF) or as a palette's transparency (GIF).
  return { bytes, alphaMode: alpha && meta.format !== "gif", transparencyInfo: alpha && meta.format === "gif" };
}

/** `img.convert('RGBA').split()[-1].getbbox()`: the box [left, top, right, bottom) of non-zero alpha, or null when all is transparent. */
export async function alphaBBox(bytes: Buffer): Promise<[number, number, number, number] | null> {
  const r = isBmp(bytes) ? await decodeLikePil(bytes) : await toRaster((await sharpOf(bytes)).ensureAlpha());
  if (r.channels !== 2 && r.channels !== 4) return [0, 0, r.width, r.height];
  let [left, top, right, bottom] = [r.width, r.height, 0, 0];
  for (let y = 0; y < r.height; y++) {
    for (let x = 0; x < r.width; x++) {
      if (r.data[(y * r.width + x) * r.channels + r.channels - 1] === 0) continue;
      left = Math.min(left, x);
      top = Math.min(top, y);
      right = Math.max(right, x + 1);
      bottom = Math.max(bottom, y + 1);
    }
  }
  return right === 0 ? null : [left, top, right, bottom];
}

/** The image's size from its header (`Image.open(path).size`). */
export async function imageSize(bytes: Buffer): Promise<{ width: number; height: number }> {
  if (isBmp(bytes)) return decodeLikePil(bytes);
  const meta = await (await sharpOf(bytes)).metadata();
  if (!meta.width || !meta.height) throw new Error("image has no size");
  return { width: meta.width, height: meta.height };
}

/** Pillow's `convert('L')` of one pixel from RGB: ITU-R 601-2 luma in 16-bit fixed point, rounded. */
export function luma(r: number, g: number, b: number): number {
  return (r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16;
}

/** `convert('RGB')`: grey bands replicated, alpha dropped (not composited), as Pillow does. */
export function toRgb(r: Raster): Raster {
  const n = r.width * r.height;
  const out = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) {
    const at = i * r.channels;
    const grey = r.channels < 3;
    out[i * 3] = r.data[at]!;
    out[i * 3 + 1] = r.data[grey ? at : at + 1]!;
    out[i * 3 + 2] = r.data[grey ? at : at + 2]!;
  }
  return { width: r.width, height: r.height, channels: 3, data: out };
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
export function pointAll(r: Raster, lut: (x: number) => number): Raster {
  const table = Uint8Array.from({ length: 256 }, (_, i) => lut(i));
  return { ...r, data: r.data.map((v) => table[v]!) };
}

/** `img.resize(size, Image.LANCZOS)`, with libvips' Lanczos-3 (close to, not bit-identical with, Pillow's). */
export async function resizeLanczos(r: Raster, width: number, height: number): Promise<Raster> {
  return toRaster((await sharpOf({ raster: r })).resize(width, height, { fit: "fill", kernel: "lanczos3" }));
}
