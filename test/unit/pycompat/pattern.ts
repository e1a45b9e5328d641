/**
 * The samples of the pycompat tests' images and arrays: a fixed formula, so that the same input can
 * be built in Python to ask the library the helper mirrors for the expected answer.
 */
export function pattern(n: number, seed: number, mod = 256): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => ((i * 37 + ((i * i) >> 3) + seed * 11) & 255) % mod);
}

/** Samples as lowercase hex, as Python's `bytes(array).hex()` prints them. */
export const hex = (data: ArrayLike<number>): string => Buffer.from(Uint8Array.from(data)).toString("hex");
