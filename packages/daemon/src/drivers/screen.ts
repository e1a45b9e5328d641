import { Region as NutRegion, screen } from "@nut-tree-fork/nut-js";
import screenshotDesktop from "screenshot-desktop";
import sharp from "sharp";
import type { Desktop, PointXY } from "./desktop.js";

export type ImageFormatName = "png" | "jpeg" | "webp" | "raw";

export interface CaptureOptions {
  format: ImageFormatName;
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

let cursorSprite: Promise<Buffer> | undefined;
/** A black-and-white arrow pointer, drawn once. Its hot spot is the top-left corner. */
function cursorImage(): Promise<Buffer> {
  cursorSprite ??= sharp(
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="14" height="22"><path d="M1 1 L1 18 L5 14 L8 21 L11 20 L8 13 L13 13 Z" fill="white" stroke="black" ` +
        `stroke-width="1.2"/></svg>`,
    ),
  )
    .png()
    .toBuffer();
  return cursorSprite;
}

/**
 * Grabs a region of the screen in-process and returns it as packed RGBA. X11 hands over BGRA with
 * an undefined (zero) alpha byte; this swaps red and blue and makes every pixel opaque in one pass.
 */
export async function grabRgba(region: CaptureOptions["region"]): Promise<{ rgba: Buffer; width: number; height: number }> {
  const img = await screen.grabRegion(new NutRegion(region.x, region.y, region.width, region.height));
  const { width, height } = img;
  const src = img.data as Buffer;
  const rowBytes = width * 4;
  const stride = (img as unknown as { byteWidth?: number }).byteWidth ?? rowBytes;
  let packed = src;
  if (stride !== rowBytes) {
    packed = Buffer.allocUnsafe(rowBytes * height);
    for (let y = 0; y < height; y++) src.copy(packed, y * rowBytes, y * stride, y * stride + rowBytes);
  }
  const px = new Uint32Array(packed.buffer, packed.byteOffset, (rowBytes * height) / 4);
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
 *   nut-js, else screenshot-desktop;
 * - `nut-js`: libnut's in-process XGetImage (pixels travel over the X socket);
 * - `screenshot-desktop`: ImageMagick's `import` per call (hundreds of ms), the last fallback.
 */
export type CaptureMethod = "auto" | "nut-js" | "screenshot-desktop";

/** The slow path: ImageMagick's `import` through screenshot-desktop, cropped with sharp. */
export async function grabRgbaWithScreenshotDesktop(region: CaptureOptions["region"]): Promise<{ rgba: Buffer; width: number; height: number }> {
  const png = await screenshotDesktop({ format: "png" });
  const rgba = await sharp(png).extract({ left: region.x, top: region.y, width: region.width, height: region.height }).ensureAlpha().raw().toBuffer();
  return { rgba, width: region.width, height: region.height };
}

let nutFailed = false;

/** Captures and encodes a screenshot. */
export async function capture(desktop: Desktop, opts: CaptureOptions, method: CaptureMethod = "auto"): Promise<Capture> {
  const { shm } = await desktop.connection();
  const cursor = await desktop.cursor();
  let grabbed: { rgba: Buffer; width: number; height: number };
  if (method === "auto" && shm) {
    grabbed = await shm.grab(opts.region);
  } else if (method !== "screenshot-desktop" && !nutFailed) {
    try {
      grabbed = await grabRgba(opts.region);
    } catch {
      // Remembered so later calls do not pay for a failing grab first.
      nutFailed = true;
      grabbed = await grabRgbaWithScreenshotDesktop(opts.region);
    }
  } else {
    grabbed = await grabRgbaWithScreenshotDesktop(opts.region);
  }
  const { rgba, width, height } = grabbed;
  let img = sharp(rgba, { raw: { width, height, channels: 4 } });

  if (opts.includeCursor) {
    const cx = cursor.x - opts.region.x;
    const cy = cursor.y - opts.region.y;
    if (cx >= 0 && cy >= 0 && cx < width && cy < height) {
      // Composite needs a materialized base when a resize follows.
      const withCursor = await img
        .composite([{ input: await cursorImage(), left: cx, top: cy }])
        .raw()
        .toBuffer();
      img = sharp(withCursor, { raw: { width, height, channels: 4 } });
    }
  }

  let outWidth = width;
  let outHeight = height;
  const fitW = opts.maxWidth > 0 ? opts.maxWidth / width : 1;
  const fitH = opts.maxHeight > 0 ? opts.maxHeight / height : 1;
  const scale = Math.min(1, fitW, fitH);
  if (scale < 1) {
    outWidth = Math.max(1, Math.round(width * scale));
    outHeight = Math.max(1, Math.round(height * scale));
    img = img.resize(outWidth, outHeight, { fit: "fill", kernel: "lanczos3" });
  }
  img = img.removeAlpha();
  let data: Buffer;
  switch (opts.format) {
    case "jpeg":
      // Huffman optimisation saves a few per cent of bytes for 10-20% more encode time; loopback does not need it.
      data = await img.jpeg({ quality: opts.quality, optimiseCoding: false }).toBuffer();
      break;
    case "webp":
      data = await img.webp({ quality: opts.quality, effort: 0 }).toBuffer();
      break;
    case "raw":
      data = await img.raw().toBuffer();
      break;
    default:
      data = await img.png({ compressionLevel: opts.pngCompressionLevel, adaptiveFiltering: false }).toBuffer();
  }
  return { data, width: outWidth, height: outHeight, scale: outWidth / width, cursor };
}
