import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ExcelJS from "exceljs";
import { scoreOf } from "../../../packages/controller/src/datasets/osworld/metric.js";
import { tableMetrics } from "../../../packages/controller/src/datasets/osworld/metrics/table.js";

/** A fresh folder for one test file's fixtures. */
export const workDir = () => mkdtempSync(join(tmpdir(), "osworld-table-"));

/** Writes an xlsx built by `build` and returns its path. */
export async function xlsx(dir: string, name: string, build: (wb: ExcelJS.Workbook) => void): Promise<string> {
  const wb = new ExcelJS.Workbook();
  build(wb);
  const file = join(dir, name);
  await wb.xlsx.writeFile(file);
  return file;
}

/** Writes a text file and returns its path. */
export function text(dir: string, name: string, content: string): string {
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
}

/** Runs a table metric as the dataset runner would: options parsed by its schema. */
export async function run(name: string, result: unknown, expected: unknown, options: unknown) {
  const metric = tableMetrics.find((m) => m.name === name);
  if (!metric) throw new Error(`no metric ${name}`);
  const opts = metric.options.parse(options);
  return scoreOf(await metric.run(result, expected, opts));
}

/** The names `unsupported()` gives for these options. */
export function unsupported(name: string, options: unknown): string[] {
  const metric = tableMetrics.find((m) => m.name === name)!;
  return metric.unsupported?.(metric.options.parse(options)) ?? [];
}

/** A sheet of rows, first row the header. */
export const sheet = (wb: ExcelJS.Workbook, name: string, rows: unknown[][]) => {
  const ws = wb.addWorksheet(name);
  for (const r of rows) ws.addRow(r);
  return ws;
};
