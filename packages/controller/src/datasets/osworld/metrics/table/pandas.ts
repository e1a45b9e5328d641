import { dataOnlyValue } from "./values.js";
import type { Book } from "./xlsx.js";
import { type Frame, frameFromSheetRows, type Raw } from "../../../pycompat/pandasExcel.js";

/**
 * `pd.read_excel(book, sheet)` as OSWorld's `sheet_data` rule uses it: the sheet's rows as pandas'
 * openpyxl reader gets them from the workbook, made a frame as pandas does (pycompat/pandasExcel.ts).
 */

/** The rows pandas' openpyxl reader gets from the sheet (`get_sheet_data`). */
async function sheetRows(book: Book, name: string): Promise<Raw[][] | undefined> {
  const sheet = await book.sheet(name);
  if (!sheet) return undefined;
  const data: Raw[][] = [];
  let counter = 1;
  let lastWithData = -1;
  for (const row of sheet.rows) {
    for (; counter < row.r; counter++) data.push([]);
    if (counter > row.r) continue;
    counter++;
    const width = row.cells.length ? row.cells[row.cells.length - 1]!.col : 0;
    const out: Raw[] = new Array(width).fill("");
    for (const cell of row.cells) {
      if (cell.col < 1 || cell.col > width) continue;
      const { value, error } = dataOnlyValue(book, cell);
      out[cell.col - 1] = error ? null : value === null ? "" : value;
    }
    while (out.length && out[out.length - 1] === "") out.pop();
    if (out.length) lastWithData = data.length;
    data.push(out);
  }
  const kept = data.slice(0, lastWithData + 1);
  const width = Math.max(0, ...kept.map((r) => r.length));
  return kept.map((r) => [...r, ...new Array(width - r.length).fill("")]);
}

/** Reads a sheet as `pd.read_excel(file, sheet)` does; undefined when the sheet is not there. */
export async function readExcelLikePandas(book: Book, sheetName: string): Promise<Frame | undefined> {
  const rows = await sheetRows(book, sheetName);
  return rows && frameFromSheetRows(rows);
}
