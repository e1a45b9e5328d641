import { dct2 } from "./dct.js";
import type { PilImage } from "./pilImage.js";
import { toL } from "./pilImage.js";
import { resize } from "./pilResize.js";

/**
 * imagehash's `phash` (4.3, as OSWorld's metrics call it with its defaults): the image in Pillow's
 * "L", resized to 32×32 with LANCZOS, scipy.fftpack's DCT-II (unnormalised) along its columns then
 * its rows, and a bit for each of the 8×8 lowest frequencies above their median. `ImageHash - ImageHash`
 * is the number of bits that differ.
 */
export function phash(img: PilImage, hashSize = 8, highfreqFactor = 4): Uint8Array {
  const n = hashSize * highfreqFactor;
  const small = resize(toL(img), n, n, "lanczos");
  const cols: Float64Array[] = [];
  for (let x = 0; x < n; x++) cols.push(scipyDct(Float64Array.from({ length: n }, (_, y) => small.data[y * n + x]!)));
  const low: number[] = [];
  for (let k = 0; k < hashSize; k++) {
    const row = scipyDct(Float64Array.from({ length: n }, (_, x) => cols[x]![k]!));
    for (let j = 0; j < hashSize; j++) low.push(row[j]!);
  }
  const sorted = [...low].sort((a, b) => a - b);
  const m = sorted.length;
  const median = m % 2 ? sorted[(m - 1) / 2]! : (sorted[m / 2 - 1]! + sorted[m / 2]!) / 2;
  return Uint8Array.from(low, (v) => (v > median ? 1 : 0));
}

/** `hash1 - hash2`: how many bits differ. */
export function hashDistance(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) throw new Error("ImageHashes must be of the same shape.");
  let d = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) d++;
  return d;
}

/** DCT-II without normalisation as scipy.fftpack gives it, `y[k] = 2 Σ x[i] cos(πk(2i+1)/2N)`: twice the unscaled one (exactly: doubling is). */
const scipyDct = (x: Float64Array): Float64Array => dct2(x).map((v) => 2 * v);
