import { readFile } from "node:fs/promises";
import path from "node:path";
import { pySplitlines, pyStrip } from "../../../pycompat/pyStr.js";

/** OSWorld's line-by-line reading of text files (`_safe_read_file`), for `compare_csv` and `sheet_print`. */

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
  return pySplitlines(text);
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
