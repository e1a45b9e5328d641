import screenshotDesktop from "screenshot-desktop";
import sharp from "sharp";
import type { Desktop, PointXY } from "./desktop.js";
import type { XConnection } from "./xConnection.js";

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
 * Grabs a region of the screen with a core GetImage request on the daemon's X connection (the
 * pixels travel over the X socket) and returns it as packed RGBA. X11 hands over BGRX (depth 24,
 * 32 bits per pixel, rows padded to 32 bits, so packed) with an undefined alpha byte; this swaps red
 * and blue and makes every pixel opaque in one pass.
 */
export async function grabRgba(x: XConnection, region: CaptureOptions["region"]): Promise<{ rgba: Buffer; width: number; height: number }> {
  const { width, height } = region;
  const ZPixmap = 2;
  const img = await x.request<{ depth: number; data: Buffer }>("GetImage", ZPixmap, x.root, region.x, region.y, width, height, 0xffffffff);
  if (img.depth !== 24 && img.depth !== 32) throw new Error(`GetImage: depth ${img.depth} is not supported (start the X server with depth 24)`);
  if (img.data.length < width * height * 4) throw new Error(`GetImage: ${img.data.length} bytes for ${width}x${height}`);
  const packed = Buffer.from(img.data.subarray(0, width * height * 4));
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

let getImageFailed = false;

/** Captures and encodes a screenshot. */
export async function capture(desktop: Desktop, opts: CaptureOptions, method: CaptureMethod = "auto"): Promise<Capture> {
  const { shm, x } = await desktop.connection();
  const cursor = await desktop.cursor();
  let grabbed: { rgba: Buffer; width: number; height: number };
  if (method === "auto" && shm) {
    grabbed = await shm.grab(opts.region);
  } else if (method !== "screenshot-desktop" && !getImageFailed) {
    try {
      grabbed = await grabRgba(x, opts.region);
    } catch (err) {
      if (x.closed) throw err; // the X server went away: not a reason to give up on GetImage
      // Remembered so later calls do not pay for a failing grab first.
      getImageFailed = true;
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
