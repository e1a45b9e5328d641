import { z } from "zod";
import { defineMetric } from "../../metric.js";
import { pyCell } from "./cells.js";
import { safeReadLines } from "./textFiles.js";
import { pyStrip } from "../../../pycompat/pyStr.js";
import { cellStr, type PyVal } from "../../../pycompat/cellValues.js";
import { floatRepr } from "../../../pycompat/pyNumbers.js";
import { loadBook, parseRef } from "./xlsx.js";
import { fail } from "../../../../evaluators/verdict.js";

/** `compare_csv`: the result's lines equal one expected file's lines (optionally stripped, lowercased). */
export const compareCsvMetric = defineMetric({
  name: "compare_csv",
  // compare_csv(result, expected, **options): other keys are ignored.
  options: z.object({
    strict: z.boolean().default(true).describe("false: whitespace around each line is ignored"),
    ignore_case: z.boolean().default(false).describe("lines compare regardless of case"),
  }),
  async run(result, expected, options) {
    if (typeof result !== "string") return fail("the result file is missing");
    const got = await safeReadLines(result);
    if (!got) return fail(`the result file ${result} cannot be read`);
    const prep = (lines: string[]) => {
      let out = options.strict ? lines : lines.map(pyStrip);
      if (options.ignore_case) out = out.map((l) => l.toLowerCase());
      return out;
    };
    const r = prep(got);
    const files = (Array.isArray(expected) ? expected : [expected]).filter((f): f is string => typeof f === "string");
    let firstDiff = "";
    for (const file of files) {
      const lines = await safeReadLines(file);
      if (!lines) continue;
      const e = prep(lines);
      if (e.length === r.length && e.every((l, i) => l === r[i])) return 1;
      if (!firstDiff) {
        const i = e.findIndex((l, k) => l !== r[k]);
        firstDiff =
          i < 0 || i >= r.length
            ? `the result has ${r.length} line(s), the expected file ${e.length}`
            : `line ${i + 1}: expected ${JSON.stringify(e[i])}, got ${JSON.stringify(r[i])}`;
      }
    }
    if (!files.length) return fail("no expected file to compare with");
    return fail(`the CSV matches no expected file (${files.length}); ${firstDiff || "none could be read"}`);
  },
});

/** Python's `str()` of an openpyxl cell value (ints without ".0"). */
const cellText = (v: PyVal): string => (typeof v === "number" ? (Number.isInteger(v) ? String(v) : floatRepr(v)) : cellStr(v));

/** OSWorld's `_normalize_city_string`: accents dropped, lowercased, punctuation to spaces. */
export function normalizeCity(value: PyVal): string {
  if (value === null) return "";
  const s = cellText(value)
    .normalize("NFKD")
    .replace(/\p{Mn}/gu, "");
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

/** `compare_conference_city_in_order`: C2:C22 of the active sheet name the expected cities in order. */
export const compareConferenceCityMetric = defineMetric({
  name: "compare_conference_city_in_order",
  options: z.strictObject({}),
  async run(result, expected) {
    if (typeof result !== "string") return fail("the result file is missing");
    const list = (expected as { expected?: unknown } | undefined)?.expected;
    if (!Array.isArray(list)) throw new Error("compare_conference_city_in_order needs the rules {expected: [...]}");
    let book: Awaited<ReturnType<typeof loadBook>>;
    try {
      book = await loadBook(result);
    } catch (e) {
      return fail(`the result is not a readable xlsx: ${(e as Error).message}`);
    }
    const view = book.zip.file("xl/workbook.xml") ? await book.zip.file("xl/workbook.xml")!.async("string") : "";
    const active = Number(/<(?:\w+:)?workbookView[^>]*\sactiveTab="(\d+)"/.exec(view)?.[1] ?? 0);
    const entry = book.sheets[active];
    const sheet = entry ? await book.sheet(entry.name) : undefined;
    if (!sheet) return fail("the active sheet cannot be read");
    const [first] = parseRef("C2")!;
    for (let i = 0; i <= 20; i++) {
      const actual = pyCell(book, sheet, first + i, 3).value;
      const want = list[i];
      if (want === undefined) return fail(`the expected list has only ${list.length} entries`);
      const candidates = typeof want === "string" ? [want] : Array.isArray(want) ? (want as string[]) : undefined;
      if (!candidates) return fail("an expected city is neither a string nor a list of strings");
      const got = normalizeCity(actual);
      if (!candidates.some((c) => normalizeCity(c) !== "" && got.includes(normalizeCity(c)))) {
        return fail(`C${first + i}: expected ${JSON.stringify(want)}, got ${JSON.stringify(actual === null ? null : cellText(actual))}`);
      }
    }
    return 1;
  },
});
