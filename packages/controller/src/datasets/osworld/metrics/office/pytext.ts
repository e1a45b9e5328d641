/**
 * Python string semantics the ported metrics depend on: `str.strip()`, `re.sub(r"\s+", " ", s)`,
 * `sorted()` of strings (code-point order) and rapidfuzz's `fuzz.ratio`.
 */

/** Python's `str.isspace()` characters (also what `\s` matches in a `str` regex). */
const PY_WS = "\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const STRIP = new RegExp(`^[${PY_WS}]+|[${PY_WS}]+$`, "g");
const RUNS = new RegExp(`[${PY_WS}]+`, "g");

/** Python's `s.strip()`. */
export function pyStrip(s: string): string {
  return s.replace(STRIP, "");
}

/** Python's `re.sub(r'\s+', ' ', s).strip()`. */
export function collapseBlanks(s: string): string {
  return pyStrip(s.replace(RUNS, " "));
}

/** Python's `sorted()` of strings: by code point, not by UTF-16 unit. */
export function pySorted(xs: readonly string[]): string[] {
  const cmp = (a: string, b: string) => {
    const ca = Array.from(a);
    const cb = Array.from(b);
    for (let i = 0; i < Math.min(ca.length, cb.length); i++) {
      const d = ca[i]!.codePointAt(0)! - cb[i]!.codePointAt(0)!;
      if (d !== 0) return d;
    }
    return ca.length - cb.length;
  };
  return [...xs].sort(cmp);
}

/** Length of the longest common subsequence of two code-point arrays (bit-parallel, Hyyrö 2004). */
function lcsLength(a: readonly number[], b: readonly number[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const words = Math.ceil(a.length / 32);
  const masks = new Map<number, Uint32Array>();
  a.forEach((c, i) => {
    let m = masks.get(c);
    if (!m) {
      m = new Uint32Array(words);
      masks.set(c, m);
    }
    m[i >>> 5]! |= 1 << (i & 31);
  });
  const v = new Uint32Array(words).fill(0xffffffff);
  const zero = new Uint32Array(words);
  for (const c of b) {
    const m = masks.get(c) ?? zero;
    let carry = 0;
    for (let w = 0; w < words; w++) {
      const vw = v[w]!;
      const u = vw & m[w]!;
      const sum = vw + u + carry;
      carry = sum > 0xffffffff ? 1 : 0;
      v[w] = (sum >>> 0) | (vw & ~u);
    }
  }
  let ones = 0;
  for (let i = 0; i < a.length; i++) if ((v[i >>> 5]! >>> (i & 31)) & 1) ones++;
  return a.length - ones;
}

/** rapidfuzz's `fuzz.ratio(a, b) / 100`: the normalized Indel similarity, 1 for two empty strings. */
export function fuzzRatio(a: string, b: string): number {
  const ca = Array.from(a, (c) => c.codePointAt(0)!);
  const cb = Array.from(b, (c) => c.codePointAt(0)!);
  const total = ca.length + cb.length;
  if (total === 0) return 1;
  const dist = total - 2 * lcsLength(ca, cb);
  return ((1 - dist / total) * 100) / 100;
}
