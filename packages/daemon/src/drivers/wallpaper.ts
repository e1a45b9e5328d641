import { readFile } from "node:fs/promises";
import sharp from "sharp";
import type { XConnection } from "./xConnection.js";

/**
 * The desktop the daemon draws on its own Xvfb (`--wallpaper`): a blue gradient, Pincer's name, and
 * a bar along the bottom with the screen's size, drawn into the root window's background. Nothing
 * in it is a window: the window list, the accessibility tree and the focus are as on a bare screen,
 * and windows cover it as they would any desktop. The same screen size gives the same pixels.
 */
export function defaultWallpaperSvg(width: number, height: number): string {
  const bar = Math.max(24, Math.round(height / 25));
  const text = Math.round(bar * 0.44);
  const base = height - Math.round(bar * 0.34);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#1d3a5f"/><stop offset="1" stop-color="#3d6f8e"/></linearGradient></defs>
<rect width="100%" height="100%" fill="url(#g)"/>
<text x="${width / 2}" y="${height / 2}" font-family="sans-serif" font-size="${Math.round(height / 10)}" font-weight="bold" fill="#ffffff"
 fill-opacity="0.16" text-anchor="middle">pincer</text>
<rect x="0" y="${height - bar}" width="${width}" height="${bar}" fill="#15202b"/>
<text x="${Math.round(bar / 2)}" y="${base}" font-family="sans-serif" font-size="${text}" fill="#d8e2ec">Pincer machine</text>
<text x="${width - Math.round(bar / 2)}" y="${base}" font-family="sans-serif" font-size="${text}" fill="#8fa3b5" text-anchor="end">${width}×${height}</text>
</svg>`;
}

/** The wallpaper's pixels at the screen's size, 4 bytes a pixel in X's order (blue, green, red, unused). */
async function wallpaperPixels(source: string | true, width: number, height: number): Promise<Buffer> {
  let input: Buffer;
  if (source === true) input = Buffer.from(defaultWallpaperSvg(width, height));
  else {
    try {
      input = await readFile(source);
    } catch (err) {
      throw new Error(`--wallpaper ${source}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); give an image file`);
    }
  }
  try {
    // "cover": the image fills the screen, cut at the longer side, as desktops show a wallpaper.
    // Red and blue swapped, and a fourth byte: X's order for a 24-bit screen (blue, green, red, unused).
    return await sharp(input)
      .resize(width, height, { fit: "cover" })
      .removeAlpha()
      .recomb([
        [0, 0, 1],
        [0, 1, 0],
        [1, 0, 0],
      ])
      .ensureAlpha()
      .raw()
      .toBuffer();
  } catch (err) {
    throw new Error(`--wallpaper ${source === true ? "" : source}: not an image sharp can read (${(err as Error).message}); give a PNG, JPEG or SVG`);
  }
}

/** The largest image request without BIG-REQUESTS is 2^16 - 1 words, 24 bytes of them the header. */
const MAX_IMAGE_BYTES = 0xffff * 4 - 24;

/**
 * Makes `source` (an image file, or `true` for Pincer's own) the root window's background and
 * shows it. The pixmap is freed as soon as the root holds it, as xsetroot does: the server keeps
 * it as long as the root does. Needs a 24-bit TrueColor screen, which the daemon's Xvfb has.
 */
export async function paintWallpaper(x: XConnection, source: string | true): Promise<void> {
  const { screenWidth: width, screenHeight: height } = x;
  const pixels = await wallpaperPixels(source, width, height);
  const pixmap = x.allocId();
  const gc = x.allocId();
  x.send("CreatePixmap", pixmap, x.root, 24, width, height);
  x.send("CreateGC", gc, pixmap, {});
  const rowBytes = width * 4;
  const rows = Math.max(1, Math.floor(MAX_IMAGE_BYTES / rowBytes));
  for (let y = 0; y < height; y += rows) {
    const n = Math.min(rows, height - y);
    x.send("PutImage", 2, pixmap, gc, width, n, 0, y, 0, 24, pixels.subarray(y * rowBytes, (y + n) * rowBytes));
  }
  x.send("ChangeWindowAttributes", x.root, { backgroundPixmap: pixmap });
  x.send("ClearArea", x.root, 0, 0, 0, 0, 0);
  x.send("FreeGC", gc);
  x.send("FreePixmap", pixmap);
  await x.sync();
}
