/**
 * How much a channel of a pixel may differ (0-255) before the pixel counts as changed: JPEG's
 * own noise between two saves of the same screen stays below it.
 */
export const PIXEL_TOLERANCE = 48;

/** How two screenshots differ: the fraction of their pixels that changed, or that their sizes differ. */
export interface ScreenDifference {
  /** Fraction of pixels (0-1) where a channel differs by more than {@link PIXEL_TOLERANCE}; 1 when the sizes differ. */
  fraction: number;
  sizes?: { original: string; replay: string };
}

async function rgb(file: string) {
  // Loaded on first use: the runner's entry does not load an image library.
  const { default: sharp } = await import("sharp");
  return sharp(file).removeAlpha().toColourspace("srgb").raw().toBuffer({ resolveWithObject: true });
}

/** Compares two screenshot files pixel by pixel. */
export async function screenDifference(originalFile: string, replayFile: string): Promise<ScreenDifference> {
  const [a, b] = await Promise.all([rgb(originalFile), rgb(replayFile)]);
  if (a.info.width !== b.info.width || a.info.height !== b.info.height || a.info.channels !== b.info.channels) {
    return { fraction: 1, sizes: { original: `${a.info.width}x${a.info.height}`, replay: `${b.info.width}x${b.info.height}` } };
  }
  const channels = a.info.channels;
  const pixels = a.info.width * a.info.height;
  let changed = 0;
  for (let p = 0; p < pixels; p++) {
    const o = p * channels;
    for (let c = 0; c < channels; c++) {
      if (Math.abs(a.data[o + c]! - b.data[o + c]!) > PIXEL_TOLERANCE) {
        changed++;
        break;
      }
    }
  }
  return { fraction: pixels === 0 ? 0 : changed / pixels };
}
