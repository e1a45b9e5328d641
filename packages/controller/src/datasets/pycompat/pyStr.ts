import { readFile } from "node:fs/promises";

/**
 * Python's `str` methods as the ported metrics and evaluation functions use them, on code points
 * and with Python's whitespace (which is not JavaScript's `\s`: Python counts U+001C-U+001F and
 * U+0085, JavaScript counts U+FEFF), and reading a file in text mode.
 */

/** Python's whitespace (`str.isspace()`), as a regex character-class body. */
export const PY_WS = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const STRIP = new RegExp(`^[${PY_WS}]+|[${PY_WS}]+$`, "g");
const RSTRIP = new RegExp(`[${PY_WS}]+$`);
const RUNS = new RegExp(`[${PY_WS}]+`, "g");
const SPLIT = new RegExp(`[${PY_WS}]+`);

/** Python's `str.strip()` (no argument). */
export function pyStrip(s: string): string {
  return s.replace(STRIP, "");
}

/** Python's `str.rstrip()` (no argument). */
export function pyRstrip(s: string): string {
  return s.replace(RSTRIP, "");
}

/** Python's `str.lstrip(chars)` (`side` "left") or `str.rstrip(chars)` ("right"): the characters of `chars`, by code point. */
export function stripChars(s: string, chars: string, side: "left" | "right"): string {
  const set = new Set(Array.from(chars));
  const cps = Array.from(s);
  if (side === "left") {
    let i = 0;
    while (i < cps.length && set.has(cps[i]!)) i++;
    return cps.slice(i).join("");
  }
  let j = cps.length;
  while (j > 0 && set.has(cps[j - 1]!)) j--;
  return cps.slice(0, j).join("");
}

/** Python's `str.split()` (no argument): the words between runs of whitespace, none empty. */
export function pySplit(s: string): string[] {
  return s.split(SPLIT).filter((w) => w !== "");
}

/** Python's `re.sub(r"\s+", " ", s).strip()`: runs of whitespace made one space, the ends stripped. */
export function collapseBlanks(s: string): string {
  return pyStrip(s.replace(RUNS, " "));
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: Python's line boundaries include these control characters
const LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

/** Python's `str.splitlines()`: splits on every line boundary Python knows; no trailing empty line. */
export function pySplitlines(s: string): string[] {
  if (s === "") return [];
  const lines = s.split(LINE_BREAK);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** The lines of a text as Python iterates a file (`for l in f`, `readlines()`): each keeps its `\n`. */
export function pyLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** Python's `str.expandtabs(tabsize)`: each tab padded with spaces to the next multiple of `tabsize` columns. */
export function expandTabs(line: string, tabsize = 8): string {
  let out = "";
  let column = 0;
  for (const c of line) {
    if (c === "\t") {
      const n = tabsize - (column % tabsize);
      out += " ".repeat(n);
      column += n;
    } else {
      out += c;
      column = c === "\n" || c === "\r" ? 0 : column + 1;
    }
  }
  return out;
}

/**
 * Capital letters whose lower case Unicode 15-17 added (Cyrillic TJE, Latin ones in Latin
 * Extended-D, Garay, Beria Erfe, ...): Python 3.11 (Unicode 14.0) leaves them as they are, as
 * letters it does not know, where JavaScript's toLowerCase (Node's ICU) lowers them.
 */
const NEWER_CAPITALS = /([\u1C89\uA7CB\uA7CC\uA7CE\uA7D2\uA7D4\uA7DA\uA7DC\u{10D50}-\u{10D65}\u{16EA0}-\u{16EB8}])/u;

/** Python 3.11's `str.lower()`: JavaScript's toLowerCase (final sigma too), but not for letters newer than Unicode 14. */
export function pyLower(s: string): string {
  if (!NEWER_CAPITALS.test(s)) return s.toLowerCase();
  // The split keeps the capitals at odd places; to Python they are neither cased nor
  // case-ignorable, so a sigma next to one lowers as it would at the string's edge.
  return s
    .split(NEWER_CAPITALS)
    .map((part, i) => (i % 2 ? part : part.toLowerCase()))
    .join("");
}

/**
 * Digits Python's `str.isdigit()` counts besides decimal ones (Numeric_Type Digit: superscripts,
 * subscripts, circled and parenthesised digits, Ethiopic, Kharoshthi, Rumi, Brahmi; CPython 3.11,
 * Unicode 14.0).
 */
const OTHER_DIGITS = new RegExp(
  `[${[
    "\\u00B2\\u00B3\\u00B9\\u1369-\\u1371\\u19DA\\u2070\\u2074-\\u2079\\u2080-\\u2089\\u2460-\\u2468\\u2474-\\u247C\\u2488-\\u2490",
    "\\u24EA\\u24F5-\\u24FD\\u24FF\\u2776-\\u277E\\u2780-\\u2788\\u278A-\\u2792",
    "\\u{10A40}-\\u{10A43}\\u{10E60}-\\u{10E68}\\u{11052}-\\u{1105A}\\u{1F100}-\\u{1F10A}",
  ].join("")}]`,
  "u",
);

/** Python's `str.isdigit()` for one character. */
export function isPyDigit(c: string): boolean {
  return /\p{Nd}/u.test(c) || OTHER_DIGITS.test(c);
}

/** Text mode's universal newlines: `\r\n` and `\r` read as `\n`. */
export function universalNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/** Bytes decoded as Python's `open(path).read()` does: strict UTF-8 (a BOM kept), universal newlines unless `newline` is false; throws where Python raises. */
export function decodePyText(bytes: Uint8Array, newline = true): string {
  const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  return newline ? universalNewlines(text) : text;
}

/** A file's text as Python's `open(path).read()` gives it: strict UTF-8 (BOM kept), universal newlines; throws where Python raises. */
export async function readPyText(path: string): Promise<string> {
  return decodePyText(await readFile(path));
}
