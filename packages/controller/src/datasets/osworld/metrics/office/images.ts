import { decodeGray } from "../../../evaluationHelpers/images.js";

/**
 * `Image.open(a).tobytes() == Image.open(b).tobytes()` (PIL) for two image blobs, as far as the
 * controller can decode images: identical bytes are equal; otherwise PNGs must share PIL's mode
 * (IHDR colour type and bit depth) and both images must decode to the same size and the same
 * grey levels. Returns the reason they differ, or undefined when they are equal.
 */
export async function imagesDiffer(a: Buffer, b: Buffer): Promise<string | undefined> {
  if (a.equals(b)) return undefined;
  const png = (x: Buffer) => x.length > 26 && x.readUInt32BE(0) === 0x89504e47;
  if (png(a) && png(b) && (a[24] !== b[24] || a[25] !== b[25])) return "the PNGs have different pixel formats";
  let ga: Awaited<ReturnType<typeof decodeGray>>;
  let gb: Awaited<ReturnType<typeof decodeGray>>;
  try {
    [ga, gb] = await Promise.all([decodeGray(a), decodeGray(b)]);
  } catch {
    return "the image bytes differ (and they cannot be decoded to compare pixels)";
  }
  if (ga.width !== gb.width || ga.height !== gb.height) return `sizes differ (${ga.width}×${ga.height} vs ${gb.width}×${gb.height})`;
  for (let i = 0; i < ga.data.length; i++) if (ga.data[i] !== gb.data[i]) return "the pixels differ";
  return undefined;
}
