/**
 * The two string similarities OSWorld's metrics use: rapidfuzz's `fuzz.ratio` and Python difflib's
 * `SequenceMatcher.ratio()`, reproduced exactly.
 */

import { pyNumber } from "./pyJson.js";

/** The length of the longest common subsequence, by Hyyrö's bit-parallel algorithm (32-bit blocks over the shorter sequence). */
function lcsLength(x: readonly number[], y: readonly number[]): number {
  const [a, b] = x.length <= y.length ? [x, y] : [y, x];
  if (a.length === 0) return 0;
  const words = Math.ceil(a.length / 32);
  const masks = new Map<number, Uint32Array>();
  for (let i = 0; i < a.length; i++) {
    const m = masks.get(a[i]!) ?? new Uint32Array(words);
    masks.set(a[i]!, m);
    m[i >>> 5]! |= 1 << (i & 31);
  }
  const s = new Uint32Array(words).fill(0xffffffff);
  for (const c of b) {
    const m = masks.get(c);
    if (!m) continue;
    let carry = 0;
    for (let w = 0; w < words; w++) {
      const sw = s[w]!;
      const u = (sw & m[w]!) >>> 0;
      const sum = sw + u + carry;
      carry = sum > 0xffffffff ? 1 : 0;
      s[w] = (sum >>> 0) | (sw & ~u);
    }
  }
  let lcs = 0;
  for (let i = 0; i < a.length; i++) if (((s[i >>> 5]! >>> (i & 31)) & 1) === 0) lcs++;
  return lcs;
}

const codePoints = (s: string) => Array.from(s, (c) => c.codePointAt(0)!);

function indelRatio(a: readonly number[], b: readonly number[]): number {
  const lensum = a.length + b.length;
  if (lensum === 0) return 100;
  const indel = lensum - 2 * lcsLength(a, b);
  return (1 - indel / lensum) * 100;
}

/**
 * The key rapidfuzz compares a list's element by: a one-character string by its code point, any other
 * element by Python's `hash()`, so `97`, `97.0`, `"a"` and (for 1) `True` are the same element.
 * Lists and objects (dicts) are unhashable: Python raises TypeError.
 */
function elementKey(v: unknown): string {
  if (typeof v === "string") {
    const cps = Array.from(v);
    return cps.length === 1 ? `n${cps[0]!.codePointAt(0)}` : `s${v}`;
  }
  if (typeof v === "boolean") return `n${Number(v)}`;
  const n = pyNumber(v);
  if (n !== undefined) return Number.isInteger(n) ? `n${n}` : `f${n}`;
  if (v === null || v === undefined) return "None";
  throw new TypeError(`unhashable type: ${Array.isArray(v) ? "list" : "dict"}`);
}

/**
 * rapidfuzz's `fuzz.ratio(s1, s2)` (processor None): the normalised Indel similarity in [0, 100],
 * `100 * (1 - indel / (len1 + len2))` with `indel = len1 + len2 - 2 * LCS`, lengths in code points;
 * 100 for two empty strings. Lists are compared element by element, by {@link elementKey} (a string
 * against a list, by its characters); an unhashable element throws TypeError, as rapidfuzz raises.
 */
export function fuzzRatio(s1: string | readonly unknown[], s2: string | readonly unknown[]): number {
  if (typeof s1 === "string" && typeof s2 === "string") return indelRatio(codePoints(s1), codePoints(s2));
  const ids = new Map<string, number>();
  const id = (v: unknown) => {
    const key = elementKey(v);
    if (!ids.has(key)) ids.set(key, ids.size);
    return ids.get(key)!;
  };
  return indelRatio(Array.from(s1, id), Array.from(s2, id));
}

/** Python's `difflib.SequenceMatcher(None, a, b)` (autojunk on), enough for `ratio()`. */
class SequenceMatcher {
  private readonly b2j = new Map<string, number[]>();

  constructor(
    private readonly a: readonly string[],
    private readonly b: readonly string[],
  ) {
    b.forEach((elt, i) => {
      const list = this.b2j.get(elt);
      if (list) list.push(i);
      else this.b2j.set(elt, [i]);
    });
    if (b.length >= 200) {
      const ntest = Math.floor(b.length / 100) + 1;
      for (const [elt, idxs] of [...this.b2j]) if (idxs.length > ntest) this.b2j.delete(elt);
    }
  }

  private findLongestMatch(alo: number, ahi: number, blo: number, bhi: number): [number, number, number] {
    const { a, b } = this;
    let [besti, bestj, bestsize] = [alo, blo, 0];
    let j2len = new Map<number, number>();
    for (let i = alo; i < ahi; i++) {
      const newj2len = new Map<number, number>();
      for (const j of this.b2j.get(a[i]!) ?? []) {
        if (j < blo) continue;
        if (j >= bhi) break;
        const k = (j2len.get(j - 1) ?? 0) + 1;
        newj2len.set(j, k);
        if (k > bestsize) [besti, bestj, bestsize] = [i - k + 1, j - k + 1, k];
      }
      j2len = newj2len;
    }
    // No element is junk (isjunk is None); popular elements are matched by extension.
    while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) [besti, bestj, bestsize] = [besti - 1, bestj - 1, bestsize + 1];
    while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize]) bestsize++;
    return [besti, bestj, bestsize];
  }

  /** The total size of the matching blocks. */
  matches(): number {
    const queue: Array<[number, number, number, number]> = [[0, this.a.length, 0, this.b.length]];
    let total = 0;
    while (queue.length) {
      const [alo, ahi, blo, bhi] = queue.pop()!;
      const [i, j, k] = this.findLongestMatch(alo, ahi, blo, bhi);
      if (k === 0) continue;
      total += k;
      if (alo < i && blo < j) queue.push([alo, i, blo, j]);
      if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
    }
    return total;
  }
}

/** Python's `difflib.SequenceMatcher(a=a, b=b).ratio()` for two lists of strings: 2·matches / (len(a) + len(b)), 1 when both are empty. */
export function sequenceRatio(a: readonly string[], b: readonly string[]): number {
  const length = a.length + b.length;
  return length ? (2 * new SequenceMatcher(a, b).matches()) / length : 1;
}
