import { parse } from "csv-parse/sync";

/**
 * The records of a CSV text as Python's `csv.DictReader` gives them: the first row names the
 * fields, empty lines are skipped, a short row's missing fields are None (null) and a long row's
 * extra values are a list under the key None (null); a repeated field name keeps its last value.
 */
export function parseCsvRecords(text: string): Array<Map<string | null, unknown>> {
  const rows = parse(text, { skip_empty_lines: true, relax_column_count: true, relax_quotes: true }) as string[][];
  const [header, ...body] = rows;
  if (!header) return [];
  return body.map((row) => {
    const rec = new Map<string | null, unknown>();
    header.forEach((name, i) => {
      rec.set(name, i < row.length ? row[i] : null);
    });
    if (row.length > header.length) rec.set(null, row.slice(header.length));
    return rec;
  });
}
