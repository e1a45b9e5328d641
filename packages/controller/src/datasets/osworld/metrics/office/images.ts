import { openPilImage, type PilImage } from "../../../pycompat/pilImage.js";

/**
 * `Image.open(a).tobytes() == Image.open(b).tobytes()` (PIL) for two image blobs, as far as the
 * controller can decode images: identical bytes are equal; otherwise PNGs must share PIL's mode
 * (IHDR colour type and bit depth), and both images, decoded as Pillow opens them
 * (pycompat/pilImage.ts), must have the same mode, size and samples (alpha and the colour under
 * transparent pixels included). Returns the reason they differ, or undefined when they are equal.
 */
export async function imagesDiffer(a: Buffer, b: Buffer): Promise<string | undefined> {
  if (a.equals(b)) return undefined;
  const png = (x: Buffer) => x.length > 26 && x.readUInt32BE(0) === 0x89504e47;
  if (png(a) && png(b) && (a[24] !== b[24] || a[25] !== b[25])) return "the PNGs have different pixel formats";
  let ia: PilImage;
  let ib: PilImage;
  try {
    [ia, ib] = await Promise.all([openPilImage(a), openPilImage(b)]);
  } catch {
    return "the image bytes differ (and they cannot be decoded to compare pixels)";
  }
  if (ia.mode !== ib.mode || ia.channels !== ib.channels) return `the images' modes differ (${ia.mode} vs ${ib.mode})`;
  if (ia.width !== ib.width || ia.height !== ib.height) return `sizes differ (${ia.width}×${ia.height} vs ${ib.width}×${ib.height})`;
  for (let i = 0; i < ia.data.length; i++) if (ia.data[i] !== ib.data[i]) return "the pixels differ";
  return undefined;
}
