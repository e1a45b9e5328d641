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
  for (let x = 0; x < n; x++) cols.push(dct2(Float64Array.from({ length: n }, (_, y) => small.data[y * n + x]!)));
  const low: number[] = [];
  for (let k = 0; k < hashSize; k++) {
    const row = dct2(Float64Array.from({ length: n }, (_, x) => cols[x]![k]!));
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

/**
 * DCT-II without normalisation, `y[k] = 2 Σ x[i] cos(πk(2i+1)/2N)`, split into its even and odd
 * halves as FFT-based DCTs are: the even outputs are the DCT of `x[i] + x[N-1-i]`, the odd ones sum
 * `x[i] - x[N-1-i]`. Where a symmetry makes a coefficient vanish (a flat image's), it is exactly 0,
 * as scipy's is; the median of a hash then compares the zeros as scipy's does.
 */
function dct2(x: Float64Array): Float64Array {
  const n = x.length;
  if (n === 1) return Float64Array.of(2 * x[0]!);
  if (n % 2) {
    return Float64Array.from({ length: n }, (_, k) => {
      let s = 0;
      for (let i = 0; i < n; i++) s += x[i]! * Math.cos((Math.PI * k * (2 * i + 1)) / (2 * n));
      return 2 * s;
    });
  }
  const h = n / 2;
  const sum = new Float64Array(h);
  const diff = new Float64Array(h);
  for (let i = 0; i < h; i++) {
    sum[i] = x[i]! + x[n - 1 - i]!;
    diff[i] = x[i]! - x[n - 1 - i]!;
  }
  const even = dct2(sum);
  const out = new Float64Array(n);
  const zero = diff.every((v) => v === 0);
  for (let k = 0; k < h; k++) {
    out[2 * k] = even[k]!;
    if (zero) continue;
    let s = 0;
    for (let i = 0; i < h; i++) s += diff[i]! * Math.cos((Math.PI * (2 * k + 1) * (2 * i + 1)) / (2 * n));
    out[2 * k + 1] = 2 * s;
  }
  return out;
}
