import { readFile } from "node:fs/promises";
import path from "node:path";

/** OSWorld's line-by-line reading of text files (`_safe_read_file`), for `compare_csv` and `sheet_print`. */

// biome-ignore lint/suspicious/noControlCharactersInRegex: Python's splitlines() breaks lines at these
const LINE_BREAKS = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

/** Python's `str.splitlines()`. */
export function splitLines(text: string): string[] {
  const lines = text.split(LINE_BREAKS);
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

const PY_SPACE = " \t\n\r\v\f\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000";

/** Python's `str.strip()` (its whitespace, not JavaScript's). */
export function pyStrip(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && PY_SPACE.includes(s[a]!)) a++;
  while (b > a && PY_SPACE.includes(s[b - 1]!)) b--;
  return s.slice(a, b);
}

/** Python's `str.lstrip(chars)` / `rstrip(chars)`. */
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

/**
 * OSWorld's `_safe_read_file`: UTF-8 (a BOM dropped), else Latin-1 (which reads any bytes), split
 * into lines; undefined when the file cannot be read.
 */
export async function safeReadLines(file: string): Promise<string[] | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch {
    return undefined;
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    text = bytes.toString("latin1");
  }
  return splitLines(text);
}

/**
 * The lines `sheet_print` compares: `<book without extension>-<sheet>.csv` (the CSV LibreOffice
 * exported beside the workbook), each stripped, in reverse order, trailing blank lines dropped.
 */
export async function printedSheetLines(book: string, sheet: string): Promise<string[] | undefined> {
  const ext = path.extname(book);
  const csv = `${ext ? book.slice(0, -ext.length) : book}-${sheet}.csv`;
  const lines = await safeReadLines(csv);
  if (!lines) return undefined;
  const reversed = lines.map(pyStrip).reverse();
  let i = 0;
  while (i < reversed.length && reversed[i] === "") i++;
  return reversed.slice(i);
}
