/**
 * The unscaled DCT-II, `y[k] = Σ x[i]·cos(πk(2i+1)/2N)`, as FFT-based DCTs (pocketfft, scipy's)
 * compute it for even lengths: the even coefficients are the DCT-II of the folded sums
 * `x[i] + x[N-1-i]` (recursively), the odd ones sums over the folded differences, so where a
 * symmetry makes a coefficient vanish (a constant input, a flat image) it is exactly 0, as theirs
 * is. Odd lengths by the direct sum. librosa's MFCCs and imagehash's pHash both read it.
 */
export function dct2(x: Float64Array): Float64Array {
  const n = x.length;
  if (n === 1) return Float64Array.of(x[0]!);
  if (n % 2) {
    return Float64Array.from({ length: n }, (_, k) => {
      let s = 0;
      for (let i = 0; i < n; i++) s += x[i]! * Math.cos((Math.PI * k * (2 * i + 1)) / (2 * n));
      return s;
    });
  }
  const half = n / 2;
  const sum = new Float64Array(half);
  const diff = new Float64Array(half);
  for (let i = 0; i < half; i++) {
    sum[i] = x[i]! + x[n - 1 - i]!;
    diff[i] = x[i]! - x[n - 1 - i]!;
  }
  const even = dct2(sum);
  const out = new Float64Array(n);
  const symmetric = diff.every((v) => v === 0);
  for (let m = 0; m < half; m++) {
    out[2 * m] = even[m]!;
    if (symmetric) continue;
    let s = 0;
    for (let i = 0; i < half; i++) s += diff[i]! * Math.cos((Math.PI * (2 * m + 1) * (2 * i + 1)) / (2 * n));
    out[2 * m + 1] = s;
  }
  return out;
}
