import { PY_WS, pyStrip } from "../common/pyCompat.js";
import { fuzzRatio as rapidfuzzRatio } from "../common/similarity.js";
/**
 * Python string semantics the ported metrics depend on: `str.strip()`, `re.sub(r"\s+", " ", s)`,
 * `sorted()` of strings (code-point order) and rapidfuzz's `fuzz.ratio`.
 */

/** Runs of Python's whitespace (what `\s+` matches in a `str` regex). */
const RUNS = new RegExp(`[${PY_WS}]+`, "g");

export { pyStrip };

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

/** rapidfuzz's `fuzz.ratio(a, b) / 100`: the normalized Indel similarity, 1 for two empty strings. */
export const fuzzRatio = (a: string, b: string): number => rapidfuzzRatio(a, b) / 100;
