/**
 * An image file decoded to the samples Pillow's `Image.open(path)` holds, 8 bits each, for the
 * conversions OSWorld applies (`convert("L")`, `convert("RGB")`). libvips (sharp) decodes most
 * formats the same way; where Pillow differs, this follows Pillow:
 * - a GIF's transparent palette index keeps its palette colour (Pillow's mode P ignores
 *   transparency when converting to L or RGB; libvips makes those pixels transparent black);
 * - a 16-bit greyscale PNG is Pillow's mode I;16, whose conversions clip each value at 255 where
 *   libvips scales 0-65535 down to 0-255;
 * - a BMP (which libvips does not read) is decoded here: uncompressed 1, 4, 8, 24 and 32 bits.
 */

/** Decoded samples, 8 bits each, row by row: 1 (L), 2 (LA), 3 (RGB) or 4 (RGBA) channels. Palette images arrive expanded. */
export interface Raster {
  width: number;
  height: number;
  channels: number;
  data: Uint8Array;
  /** A palette image (Pillow's mode P: a palette PNG, a GIF, a BMP of 8 bits or fewer), given here as its colours. */
  palette?: boolean;
}

/** A PNG's IHDR (colour type, bit depth) and whether a tRNS chunk comes before its image data; null when the bytes are not a PNG. */
export function pngHeader(bytes: Buffer): { colourType: number; depth: number; trns: boolean } | null {
  if (bytes.length < 33 || bytes.readUInt32BE(0) !== 0x89504e47) return null;
  let trns = false;
  for (let at = 8; at + 8 <= bytes.length; ) {
    const type = bytes.toString("latin1", at + 4, at + 8);
    if (type === "tRNS") trns = true;
    if (type === "IDAT" || type === "IEND") break;
    at += 12 + bytes.readUInt32BE(at);
  }
  return { depth: bytes[24]!, colourType: bytes[25]!, trns };
}

/** A GIF (87a or 89a). */
export const isGif = (b: Buffer) => b.length >= 6 && (b.toString("latin1", 0, 6) === "GIF87a" || b.toString("latin1", 0, 6) === "GIF89a");
/** A Windows bitmap (which libvips does not read). */
export const isBmp = (b: Buffer) => b.length >= 26 && b.toString("latin1", 0, 2) === "BM";

/** The GIF with the "transparent colour" flag of every graphic control extension cleared. */
function gifWithoutTransparency(src: Buffer): Buffer {
  const b = Buffer.from(src);
  const skipBlocks = (p: number) => {
    while (p < b.length && b[p] !== 0) p += b[p]! + 1;
    return p + 1;
  };
  const table = (packed: number) => (packed & 0x80 ? 3 * 2 ** ((packed & 7) + 1) : 0);
  let p = 13 + table(b[10]!);
  while (p < b.length) {
    const c = b[p]!;
    if (c === 0x21) {
      if (b[p + 1] === 0xf9 && b[p + 2] === 4) b[p + 3] = b[p + 3]! & ~1;
      p = skipBlocks(p + 2);
    } else if (c === 0x2c) {
      p = skipBlocks(p + 10 + table(b[p + 9]!) + 1);
    } else break;
  }
  return b;
}

/** A BMP as Pillow reads it: palette images as their colours, 32-bit with an alpha mask as RGBA. */
function decodeBmp(b: Buffer): Raster {
  const offset = b.readUInt32LE(10);
  const headerSize = b.readUInt32LE(14);
  const core = headerSize === 12;
  const width = core ? b.readUInt16LE(18) : b.readInt32LE(18);
  const rawHeight = core ? b.readInt16LE(20) : b.readInt32LE(22);
  const bpp = core ? b.readUInt16LE(24) : b.readUInt16LE(28);
  const compression = core ? 0 : b.readUInt32LE(30);
  const height = Math.abs(rawHeight);
  const alphaMask = !core && compression === 3 && headerSize >= 56 ? b.readUInt32LE(54) : 0;
  if (!(compression === 0 || (compression === 3 && bpp === 32)) || ![1, 4, 8, 24, 32].includes(bpp)) {
    throw new Error(`BMP with ${bpp} bits per pixel and compression ${compression} is not supported`);
  }
  const channels = bpp === 32 && alphaMask === 0xff000000 ? 4 : 3;
  const entry = core ? 3 : 4;
  const colours = bpp <= 8 ? (!core && b.readUInt32LE(46)) || 2 ** bpp : 0;
  const palette = 14 + headerSize;
  const stride = Math.ceil((width * bpp) / 32) * 4;
  const data = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++) {
    const row = offset + (rawHeight > 0 ? height - 1 - y : y) * stride;
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * channels;
      let at: number;
      if (bpp <= 8) {
        const bit = x * bpp;
        const index = (b[row + (bit >> 3)]! >> (8 - bpp - (bit & 7))) & ((1 << bpp) - 1);
        at = palette + Math.min(index, colours - 1) * entry;
      } else at = row + x * (bpp / 8);
      data[o] = b[at + 2]!;
      data[o + 1] = b[at + 1]!;
      data[o + 2] = b[at]!;
      if (channels === 4) data[o + 3] = b[at + 3]!;
    }
  }
  return { width, height, channels, data, ...(bpp <= 8 ? { palette: true } : {}) };
}

/** Decodes an image file as Pillow opens it (see the module comment); throws when it is not an image. */
export async function decodeLikePil(bytes: Buffer): Promise<Raster> {
  if (isBmp(bytes)) return decodeBmp(bytes);
  const { default: sharp } = await import("sharp");
  const png = pngHeader(bytes);
  if (png && png.colourType === 0 && png.depth === 16) {
    const pipeline = sharp(bytes, { ignoreIcc: true }).toColourspace("grey16");
    const { data, info } = await pipeline.raw({ depth: "ushort" }).toBuffer({ resolveWithObject: true });
    const u16 = new Uint16Array(data.buffer, data.byteOffset, data.length / 2);
    const out = new Uint8Array(info.width * info.height);
    for (let i = 0; i < out.length; i++) out[i] = Math.min(255, u16[i * info.channels]!);
    return { width: info.width, height: info.height, channels: 1, data: out };
  }
  const input = isGif(bytes) ? gifWithoutTransparency(bytes) : bytes;
  let pipeline = sharp(input, { ignoreIcc: true });
  // A CMYK JPEG: libvips' conversion to RGB stands in for Pillow's.
  if ((await pipeline.metadata()).space === "cmyk") pipeline = pipeline.toColourspace("srgb");
  const { data, info } = await pipeline.raw({ depth: "uchar" }).toBuffer({ resolveWithObject: true });
  const palette = png?.colourType === 3 || isGif(bytes);
  return {
    width: info.width,
    height: info.height,
    channels: info.channels,
    data: new Uint8Array(data.buffer, data.byteOffset, data.length),
    ...(palette ? { palette } : {}),
  };
}
