import type { ImageFormat } from "@pincer/shared";
import screenshotDesktop from "screenshot-desktop";
import sharp from "sharp";
import type { Frame, PointXY, ScreenDriver } from "./drivers.js";

export type { Frame } from "./drivers.js";
import type { XConnection } from "./xConnection.js";

export interface CaptureOptions {
  format: ImageFormat;
  /** JPEG/WebP quality 1-100. */
  quality: number;
  pngCompressionLevel: number;
  region: { x: number; y: number; width: number; height: number };
  maxWidth: number;
  maxHeight: number;
  includeCursor: boolean;
}

export interface Capture {
  data: Buffer;
  width: number;
  height: number;
  scale: number;
  cursor: PointXY;
}

// sharp runs one encode per call on the libuv pool; extra threads per image only add contention here.
sharp.concurrency(1);
// libvips's operation cache (50 MB by default) never serves the daemon: every encode starts from a
// new capture buffer, so it only keeps the last ones' pixels resident.
sharp.cache(false);

/** A black-and-white arrow pointer, 14x22 at scale 1. Its hot spot is the top-left corner. */
const CURSOR_PATH = "M1 1 L1 18 L5 14 L8 21 L11 20 L8 13 L13 13 Z";
const cursorSprites = new Map<string, Promise<{ data: Buffer; width: number; height: number }>>();
/** The pointer drawn at a screenshot's scale, as raw RGBA; drawn once per size. */
function cursorSprite(scale: number): Promise<{ data: Buffer; width: number; height: number }> {
  const width = Math.max(2, Math.round(14 * scale));
  const height = Math.max(3, Math.round(22 * scale));
  const key = `${width}x${height}`;
  let sprite = cursorSprites.get(key);
  if (!sprite) {
    if (cursorSprites.size >= 32) cursorSprites.clear();
    const svg =
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 14 22">` +
      `<path d="${CURSOR_PATH}" fill="white" stroke="black" stroke-width="1.2"/></svg>`;
    sprite = sharp(Buffer.from(svg))
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true })
      .then(({ data, info }) => ({ data, width: info.width, height: info.height }));
    cursorSprites.set(key, sprite);
  }
  return sprite;
}

/** Blends an RGBA sprite over packed RGB pixels with its top-left corner at (left, top), clipped to the image. */
function drawSprite(rgb: Buffer, width: number, height: number, sprite: { data: Buffer; width: number; height: number }, left: number, top: number): void {
  for (let sy = 0; sy < sprite.height && top + sy < height; sy++) {
    for (let sx = 0; sx < sprite.width && left + sx < width; sx++) {
      const s = (sy * sprite.width + sx) * 4;
      const a = sprite.data[s + 3]!;
      if (a === 0) continue;
      const d = ((top + sy) * width + left + sx) * 3;
      for (let c = 0; c < 3; c++) rgb[d + c] = Math.round((sprite.data[s + c]! * a + rgb[d + c]! * (255 - a)) / 255);
    }
  }
}

/** Bit offsets of red and blue in a frame's words (green is always at 8). */
function shifts(order: Frame["order"]): { r: number; b: number } {
  return order === "bgrx" ? { r: 16, b: 0 } : { r: 0, b: 16 };
}

/** Where the conversions below get their output: a new buffer, or one kept from an earlier screenshot. */
export type Allocate = (bytes: number) => Buffer;

/** Packed RGB of a frame at its size, four pixels (three output words) per step. */
export function frameToRgb(f: Frame, alloc: Allocate = Buffer.allocUnsafe): Buffer {
  const count = f.width * f.height;
  const src = new Uint32Array(f.data.buffer, f.data.byteOffset, count);
  const rgb = alloc(count * 3);
  const out = new Uint32Array(rgb.buffer, rgb.byteOffset, (count * 3) >> 2);
  const { r: rs, b: bs } = shifts(f.order);
  const whole = count & ~3;
  let j = 0;
  for (let i = 0; i < whole; i += 4) {
    const p = src[i]!;
    const q = src[i + 1]!;
    const s = src[i + 2]!;
    const t = src[i + 3]!;
    // Bytes R0 G0 B0 R1 | G1 B1 R2 G2 | B2 R3 G3 B3, little-endian words.
    out[j++] = (((p >>> rs) & 0xff) | (p & 0xff00) | (((p >>> bs) & 0xff) << 16) | (((q >>> rs) & 0xff) << 24)) >>> 0;
    out[j++] = (((q >>> 8) & 0xff) | (((q >>> bs) & 0xff) << 8) | (((s >>> rs) & 0xff) << 16) | (((s >>> 8) & 0xff) << 24)) >>> 0;
    out[j++] = (((s >>> bs) & 0xff) | (((t >>> rs) & 0xff) << 8) | ((t & 0xff00) << 8) | (((t >>> bs) & 0xff) << 24)) >>> 0;
  }
  for (let i = whole; i < count; i++) {
    const v = src[i]!;
    rgb[i * 3] = (v >>> rs) & 0xff;
    rgb[i * 3 + 1] = (v >>> 8) & 0xff;
    rgb[i * 3 + 2] = (v >>> bs) & 0xff;
  }
  return rgb;
}

/**
 * Packed RGB of a frame shrunk to 2/3 of its size (both sides multiples of 3), each output pixel
 * the average of the 1.5x1.5 source pixels it covers: a 3x3 block gives 2x2 pixels, each weighing
 * its corner 4, its two edge neighbours 2 and the centre 1, out of 9. Red and blue are summed
 * together in the two 16-bit halves of one word.
 */
export function frameTwoThirdsRgb(f: Frame, alloc: Allocate = Buffer.allocUnsafe): Buffer {
  const { width: w, height: h } = f;
  const ow = (w / 3) * 2;
  const src = new Uint32Array(f.data.buffer, f.data.byteOffset, w * h);
  const rgb = alloc(ow * ((h / 3) * 2) * 3);
  const M = 0xff00ff;
  const { r: rs, b: bs } = shifts(f.order);
  // x / 9, rounded, exact for 0 ≤ x ≤ 9·255.
  const div9 = (x: number) => (x * 7282 + 32768) >>> 16;
  let top = 0;
  for (let y = 0; y < h; y += 3) {
    let bottom = top + ow * 3;
    const r0 = y * w;
    const r1 = r0 + w;
    const r2 = r1 + w;
    for (let x = 0; x < w; x += 3) {
      const p00 = src[r0 + x]!;
      const p01 = src[r0 + x + 1]!;
      const p02 = src[r0 + x + 2]!;
      const p10 = src[r1 + x]!;
      const p11 = src[r1 + x + 1]!;
      const p12 = src[r1 + x + 2]!;
      const p20 = src[r2 + x]!;
      const p21 = src[r2 + x + 1]!;
      const p22 = src[r2 + x + 2]!;
      const rbCentre = p11 & M;
      const rbTop = 2 * (p01 & M) + rbCentre;
      const rbBottom = 2 * (p21 & M) + rbCentre;
      const gCentre = (p11 >>> 8) & 0xff;
      const gTop = 2 * ((p01 >>> 8) & 0xff) + gCentre;
      const gBottom = 2 * ((p21 >>> 8) & 0xff) + gCentre;
      const rbLeft = 2 * (p10 & M);
      const rbRight = 2 * (p12 & M);
      const gLeft = 2 * ((p10 >>> 8) & 0xff);
      const gRight = 2 * ((p12 >>> 8) & 0xff);
      let rb = 4 * (p00 & M) + rbTop + rbLeft;
      let g = 4 * ((p00 >>> 8) & 0xff) + gTop + gLeft;
      rgb[top] = div9((rb >>> rs) & 0xffff);
      rgb[top + 1] = div9(g);
      rgb[top + 2] = div9((rb >>> bs) & 0xffff);
      rb = 4 * (p02 & M) + rbTop + rbRight;
      g = 4 * ((p02 >>> 8) & 0xff) + gTop + gRight;
      rgb[top + 3] = div9((rb >>> rs) & 0xffff);
      rgb[top + 4] = div9(g);
      rgb[top + 5] = div9((rb >>> bs) & 0xffff);
      rb = 4 * (p20 & M) + rbBottom + rbLeft;
      g = 4 * ((p20 >>> 8) & 0xff) + gBottom + gLeft;
      rgb[bottom] = div9((rb >>> rs) & 0xffff);
      rgb[bottom + 1] = div9(g);
      rgb[bottom + 2] = div9((rb >>> bs) & 0xffff);
      rb = 4 * (p22 & M) + rbBottom + rbRight;
      g = 4 * ((p22 >>> 8) & 0xff) + gBottom + gRight;
      rgb[bottom + 3] = div9((rb >>> rs) & 0xffff);
      rgb[bottom + 4] = div9(g);
      rgb[bottom + 5] = div9((rb >>> bs) & 0xffff);
      top += 6;
      bottom += 6;
    }
    top += ow * 3;
  }
  return rgb;
}

/** Packed RGB of a frame shrunk to half its size (both sides even), each output pixel the average of a 2x2 block. */
export function frameHalfRgb(f: Frame, alloc: Allocate = Buffer.allocUnsafe): Buffer {
  const { width: w, height: h } = f;
  const src = new Uint32Array(f.data.buffer, f.data.byteOffset, w * h);
  const rgb = alloc((w / 2) * (h / 2) * 3);
  const M = 0xff00ff;
  const { r: rs, b: bs } = shifts(f.order);
  let o = 0;
  for (let y = 0; y < h; y += 2) {
    const r0 = y * w;
    const r1 = r0 + w;
    for (let x = 0; x < w; x += 2) {
      const p = src[r0 + x]!;
      const q = src[r0 + x + 1]!;
      const s = src[r1 + x]!;
      const t = src[r1 + x + 1]!;
      const rb = (p & M) + (q & M) + (s & M) + (t & M) + 0x20002;
      rgb[o++] = ((rb >>> rs) & 0xffff) >>> 2;
      rgb[o++] = (((p >>> 8) & 0xff) + ((q >>> 8) & 0xff) + ((s >>> 8) & 0xff) + ((t >>> 8) & 0xff) + 2) >>> 2;
      rgb[o++] = ((rb >>> bs) & 0xffff) >>> 2;
    }
  }
  return rgb;
}

/**
 * Packed RGB of a frame, shrunk in the same pass by a box filter where one fits: to 1/2 or 2/3
 * (e.g. a 2560- or 1920-wide screen to 1280) when the asked size is that or smaller, else at full
 * size. Whatever is left to shrink, sharp resizes, from fewer pixels.
 */
export function frameRgb(f: Frame, width: number, height: number, alloc: Allocate = Buffer.allocUnsafe): { rgb: Buffer; width: number; height: number } {
  const { width: w, height: h } = f;
  if (width * 2 <= w && height * 2 <= h && w % 2 === 0 && h % 2 === 0) return { rgb: frameHalfRgb(f, alloc), width: w / 2, height: h / 2 };
  if (width * 3 <= w * 2 && height * 3 <= h * 2 && w % 3 === 0 && h % 3 === 0) {
    return { rgb: frameTwoThirdsRgb(f, alloc), width: (w / 3) * 2, height: (h / 3) * 2 };
  }
  return { rgb: frameToRgb(f, alloc), width: w, height: h };
}

/**
 * Packed-RGB buffers kept from one screenshot for the next. The daemon maps a buffer this large on
 * its own and unmaps it when freed (memory.ts, TRIMMED_MMAP_THRESHOLD), so a new one per screenshot
 * is a new mapping whose pages the kernel faults in and zeroes again: about 1500 page faults for a
 * 1920x1080 screen. At most {@link KEPT_RGB_BUFFERS} are kept (screenshots taken at once each need
 * their own), and none once the daemon goes idle ({@link releaseCaptureBuffers}).
 */
class KeptBuffers {
  private readonly free: Buffer[] = [];
  constructor(private readonly keep: number) {}
  /** A buffer of exactly `bytes`, kept or new; its contents are undefined. */
  take(bytes: number): Buffer {
    const i = this.free.findIndex((b) => b.length === bytes);
    return i >= 0 ? this.free.splice(i, 1)[0]! : Buffer.allocUnsafe(bytes);
  }
  /** Keeps `buf` for a later take; nothing may use it after this. */
  give(buf: Buffer): void {
    this.free.push(buf);
    if (this.free.length > this.keep) this.free.shift();
  }
  release(): void {
    this.free.length = 0;
  }
}

const KEPT_RGB_BUFFERS = 2;
const rgbBuffers = new KeptBuffers(KEPT_RGB_BUFFERS);
const takeRgb: Allocate = (bytes) => rgbBuffers.take(bytes);

/** Lets go of the RGB buffers kept between screenshots (the daemon calls it once idle). */
export function releaseCaptureBuffers(): void {
  rgbBuffers.release();
}

/** A Buffer that starts on a 4-byte boundary, as Uint32Array views need. */
export function aligned(buf: Buffer): Buffer {
  return buf.byteOffset % 4 === 0 ? buf : Buffer.from(buf);
}

/**
 * Grabs a region of the screen with a core GetImage request on the daemon's X connection (the
 * pixels travel over the X socket), as X hands it over: BGRX words (depth 24, 32 bits per pixel,
 * rows padded to 32 bits, so packed) with an undefined top byte.
 */
export async function grabFrame(x: XConnection, region: CaptureOptions["region"]): Promise<Frame> {
  const { width, height } = region;
  const ZPixmap = 2;
  const img = await x.request<{ depth: number; data: Buffer }>("GetImage", ZPixmap, x.root, region.x, region.y, width, height, 0xffffffff);
  if (img.depth !== 24 && img.depth !== 32) throw new Error(`GetImage: depth ${img.depth} is not supported (start the X server with depth 24)`);
  if (img.data.length < width * height * 4) throw new Error(`GetImage: ${img.data.length} bytes for ${width}x${height}`);
  return { data: aligned(img.data.subarray(0, width * height * 4)), width, height, order: "bgrx" };
}

/** {@link grabFrame} as packed, opaque RGBA: red and blue swapped in one pass. */
export async function grabRgba(x: XConnection, region: CaptureOptions["region"]): Promise<{ rgba: Buffer; width: number; height: number }> {
  const { data, width, height } = await grabFrame(x, region);
  const packed = Buffer.from(data);
  const px = new Uint32Array(packed.buffer, packed.byteOffset, width * height);
  for (let i = 0; i < px.length; i++) {
    const v = px[i]!;
    // Little-endian BGRA word: 0xAARRGGBB → RGBA word 0xFFBBGGRR.
    px[i] = (0xff000000 | ((v & 0xff) << 16) | (v & 0xff00) | ((v >>> 16) & 0xff)) >>> 0;
  }
  return { rgba: packed, width, height };
}

/**
 * How the screen is read:
 * - `auto`: MIT-SHM on the daemon's X connection (the X server writes into shared memory), else
 *   GetImage, else screenshot-desktop;
 * - `getimage`: a core GetImage request on the daemon's X connection (pixels travel over the X
 *   socket; works where shared memory does not, e.g. an X server on another host);
 * - `screenshot-desktop`: ImageMagick's `import` per call (hundreds of ms), the last fallback.
 * `nut-js`, the name of `getimage` before libnut was dropped, is still accepted.
 */
export type CaptureMethod = "auto" | "getimage" | "nut-js" | "screenshot-desktop";

/** The slow path: ImageMagick's `import` through screenshot-desktop, cropped with sharp. */
export async function grabRgbaWithScreenshotDesktop(region: CaptureOptions["region"]): Promise<{ rgba: Buffer; width: number; height: number }> {
  const png = await screenshotDesktop({ format: "png" });
  const rgba = await sharp(png).extract({ left: region.x, top: region.y, width: region.width, height: region.height }).ensureAlpha().raw().toBuffer();
  return { rgba, width: region.width, height: region.height };
}

/**
 * Captures and encodes a screenshot. The grabbed pixels are read once, in JavaScript, into packed
 * RGB (straight from the shared segment with MIT-SHM), box-shrunk on the way where that fits (see
 * {@link frameRgb}); sharp resizes what is left with lanczos3 and encodes. sharp gets three
 * channels: with an alpha channel it would premultiply, resize and unpremultiply in floating point,
 * and drop the channel only after all that.
 */
export async function capture(screen: ScreenDriver, opts: CaptureOptions): Promise<Capture> {
  const cursor = await screen.cursor();
  const { region } = opts;
  const { width, height } = region;
  const fitW = opts.maxWidth > 0 ? opts.maxWidth / width : 1;
  const fitH = opts.maxHeight > 0 ? opts.maxHeight / height : 1;
  const fit = Math.min(1, fitW, fitH);
  const outWidth = fit < 1 ? Math.max(1, Math.round(width * fit)) : width;
  const outHeight = fit < 1 ? Math.max(1, Math.round(height * fit)) : height;
  const got = await screen.withFrame(region, (f) => frameRgb(f, outWidth, outHeight, takeRgb));
  let data: Buffer | undefined;
  try {
    data = await encode(got, { ...opts, outWidth, outHeight, cx: cursor.x - region.x, cy: cursor.y - region.y });
    return { data, width: outWidth, height: outHeight, scale: outWidth / width, cursor };
  } finally {
    // Once encoded (or failed), sharp is done with the pixels; raw pixels go out as they are.
    if (data !== got.rgb) rgbBuffers.give(got.rgb);
  }
}

/**
 * Encodes a frame grabbed earlier (a {@link frameRgb} of it, `got`) as JPEG or WebP at `outWidth` x
 * `outHeight`, without the pointer: the screen stream's encoder. `got.rgb` goes back to the kept
 * buffers once encoded.
 */
export async function encodeRgb(
  got: { rgb: Buffer; width: number; height: number },
  o: { format: "jpeg" | "webp"; quality: number; sourceWidth: number; sourceHeight: number; outWidth: number; outHeight: number },
): Promise<Buffer> {
  try {
    const region = { x: 0, y: 0, width: o.sourceWidth, height: o.sourceHeight };
    const opts = { format: o.format, quality: o.quality, pngCompressionLevel: 1, region, maxWidth: 0, maxHeight: 0, includeCursor: false };
    return await encode(got, { ...opts, outWidth: o.outWidth, outHeight: o.outHeight, cx: -1, cy: -1 });
  } finally {
    rgbBuffers.give(got.rgb);
  }
}

/** {@link frameRgb} into a buffer kept between screenshots (give it back through {@link encodeRgb}). */
export function frameRgbKept(f: Frame, width: number, height: number): { rgb: Buffer; width: number; height: number } {
  return frameRgb(f, width, height, takeRgb);
}

/** Encodes packed RGB pixels at the asked size, with the pointer drawn at (cx, cy) of the region when asked. */
async function encode(
  got: { rgb: Buffer; width: number; height: number },
  o: CaptureOptions & { outWidth: number; outHeight: number; cx: number; cy: number },
): Promise<Buffer> {
  const { outWidth, outHeight, cx, cy } = o;
  const { width, height } = o.region;
  const resized = got.width !== outWidth || got.height !== outHeight;
  let img = sharp(got.rgb, { raw: { width: got.width, height: got.height, channels: 3 } });
  if (resized) img = img.resize(outWidth, outHeight, { fit: "fill", kernel: "lanczos3" });
  let rgb = resized ? undefined : got.rgb;
  if (o.includeCursor && cx >= 0 && cy >= 0 && cx < width && cy < height) {
    // Drawn at the output size (the pointer as sharp as at full size), over pixels that are this call's own.
    rgb ??= await img.raw().toBuffer();
    const sprite = await cursorSprite(outWidth / width);
    drawSprite(rgb, outWidth, outHeight, sprite, Math.floor((cx * outWidth) / width), Math.floor((cy * outHeight) / height));
    img = sharp(rgb, { raw: { width: outWidth, height: outHeight, channels: 3 } });
  }
  switch (o.format) {
    case "jpeg":
      // Huffman optimisation saves a few per cent of bytes for 10-20% more encode time; loopback does not need it.
      return img.jpeg({ quality: o.quality, optimiseCoding: false }).toBuffer();
    case "webp":
      return img.webp({ quality: o.quality, effort: 0 }).toBuffer();
    case "raw":
      return rgb ?? img.raw().toBuffer();
    default:
      return img.png({ compressionLevel: o.pngCompressionLevel, adaptiveFiltering: false }).toBuffer();
  }
}
