import { z } from "zod";
import { defineMetric, type MetricResult, type OsworldMetric } from "../metric.js";
import { type DocxDocument, readDocx } from "./office/docx.js";
import { readOdtParagraphs } from "./office/odt.js";
import { imagesDiffer } from "./office/images.js";
import { PythonWouldRaise } from "./office/package.js";
import { fuzzRatio } from "../../pycompat/similarity.js";
import { collapseBlanks, pyLower, pyStrip } from "../../pycompat/pyStr.js";
import { pySorted } from "../../pycompat/pyValues.js";
import { fail, type Verdict } from "../../../evaluators/verdict.js";

/**
 * OSWorld's document metrics (`desktop_env/evaluators/metrics/docs.py`), reading .docx files the
 * way python-docx does (see ./office/docx.ts) and, for compare_docx_files, .odt files the way odfpy
 * does (./office/odt.ts).
 */

// compare_docx_files(file1, file2, **options): keys it does not read are ignored.
const compareDocxOptions = z.object({
  ignore_blanks: z.boolean().default(true),
  ignore_case: z.boolean().default(false),
  ignore_order: z.boolean().default(false),
  content_only: z.boolean().default(false),
  fuzzy_match: z.boolean().default(false),
  delete_empty_lines: z.boolean().default(false),
});

type CompareDocxOptions = z.infer<typeof compareDocxOptions>;
type Opened = { doc1: DocxDocument; doc2: DocxDocument } | { fail: Verdict };

const failOpen = (reason: string) => ({ fail: fail(reason) });
const quote = (s: string) => JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s);

/** Opens both documents; a missing path or an unreadable file fails as OSWorld's `return 0` does. */
async function openBoth(file1: unknown, file2: unknown, extensionCheck: boolean): Promise<Opened> {
  if (typeof file1 !== "string" || file1 === "") return failOpen("the result file is missing");
  if (typeof file2 !== "string" || file2 === "") return failOpen("the expected file is missing");
  if (extensionCheck && !(file1.endsWith(".docx") && file2.endsWith(".docx"))) {
    return failOpen(`unsupported file types or a mismatch between them (${file1}, ${file2})`);
  }
  const doc1 = await readDocx(file1);
  if (!doc1) return failOpen(`${file1} is missing or not a readable .docx`);
  const doc2 = await readDocx(file2);
  if (!doc2) return failOpen(`${file2} is missing or not a readable .docx`);
  return { doc1, doc2 };
}

function compareParagraphs(ps1: string[], ps2: string[], o: CompareDocxOptions): MetricResult {
  const lower = (s: string) => (o.ignore_case ? pyLower(s) : s);
  if (o.content_only || o.ignore_blanks) {
    const t1 = lower(collapseBlanks(ps1.join("\n")));
    const t2 = lower(collapseBlanks(ps2.join("\n")));
    if (o.content_only || o.fuzzy_match) return fuzzRatio(t1, t2) / 100;
    return t1 === t2 ? 1 : fail("the texts differ (blanks collapsed)");
  }
  if (ps1.length !== ps2.length) return fail(`${ps1.length} paragraphs, expected ${ps2.length}`);
  if (o.fuzzy_match) {
    if (ps1.length === 0) return 1;
    return ps1.reduce((sum, p, i) => sum + fuzzRatio(lower(p), lower(ps2[i]!)) / 100, 0) / ps1.length;
  }
  for (let i = 0; i < ps1.length; i++) {
    if (lower(ps1[i]!) !== lower(ps2[i]!)) return fail(`paragraph ${i + 1} is ${quote(ps1[i]!)}, expected ${quote(ps2[i]!)}`);
  }
  return 1;
}

/** Both .odt documents' paragraphs, or why the comparison scores 0 (OSWorld returns 0 when odfpy cannot load one). */
async function odtParagraphs(file1: string, file2: string): Promise<[string[], string[]] | { fail: Verdict }> {
  const ps1 = await readOdtParagraphs(file1);
  if (!ps1) return failOpen(`${file1} is missing or not a readable .odt`);
  const ps2 = await readOdtParagraphs(file2);
  if (!ps2) return failOpen(`${file2} is missing or not a readable .odt`);
  return [ps1, ps2];
}

async function compareDocx(file1: unknown, file2: unknown, o: CompareDocxOptions): Promise<MetricResult> {
  let ps1: string[];
  let ps2: string[];
  if (typeof file1 === "string" && typeof file2 === "string" && file1.endsWith(".odt") && file2.endsWith(".odt")) {
    const read = await odtParagraphs(file1, file2);
    if ("fail" in read) return read.fail;
    [ps1, ps2] = read;
  } else {
    const opened = await openBoth(file1, file2, true);
    if ("fail" in opened) return opened.fail;
    ps1 = opened.doc1.paragraphs.map((p) => p.text);
    ps2 = opened.doc2.paragraphs.map((p) => p.text);
  }
  if (o.ignore_order) [ps1, ps2] = [pySorted(ps1) as string[], pySorted(ps2) as string[]];
  if (o.delete_empty_lines) [ps1, ps2] = [ps1.filter((p) => pyStrip(p)), ps2.filter((p) => pyStrip(p))];
  return compareParagraphs(ps1, ps2, o);
}

/** `compare_docx_files(result, expected, **options)`: the documents' paragraph texts match (or their similarity). */
const compareDocxFiles = defineMetric({
  name: "compare_docx_files",
  options: compareDocxOptions,
  run: (result, expected, options) => compareDocx(result, expected, options),
});

/** `compare_docx_tables(result, expected)`: same tables, same sizes, same (stripped) cell texts. */
const compareDocxTables = defineMetric({
  name: "compare_docx_tables",
  options: z.strictObject({}),
  async run(result, expected) {
    const opened = await openBoth(result, expected, false);
    if ("fail" in opened) return opened.fail;
    const { tables: t1 } = opened.doc1;
    const { tables: t2 } = opened.doc2;
    if (t1.length !== t2.length) return fail(`${t1.length} tables, expected ${t2.length}`);
    try {
      for (const [k, a] of t1.entries()) {
        const b = t2[k]!;
        if (a.rows !== b.rows || a.columns !== b.columns) {
          return fail(`table ${k + 1} is ${a.rows}×${a.columns}, expected ${b.rows}×${b.columns}`);
        }
        for (let i = 0; i < a.rows; i++) {
          for (let j = 0; j < a.columns; j++) {
            const x = pyStrip(a.cellText(i, j));
            const y = pyStrip(b.cellText(i, j));
            if (x !== y) return fail(`table ${k + 1}, cell (${i}, ${j}) is ${quote(x)}, expected ${quote(y)}`);
          }
        }
      }
    } catch (e) {
      if (e instanceof PythonWouldRaise) return fail(`OSWorld's compare_docx_tables would raise here: ${e.message}`);
      throw e;
    }
    return 1;
  },
});

/** `compare_line_spacing(result, expected)`: the texts match and every paragraph has the same line spacing. */
const compareLineSpacing = defineMetric({
  name: "compare_line_spacing",
  options: z.strictObject({}),
  async run(result, expected) {
    const text = await compareDocx(result, expected, compareDocxOptions.parse({}));
    if (text !== 1) return typeof text === "number" ? fail("the texts differ") : text;
    const opened = await openBoth(result, expected, false);
    if ("fail" in opened) return opened.fail;
    const ps1 = opened.doc1.paragraphs;
    const ps2 = opened.doc2.paragraphs;
    if (ps1.length !== ps2.length) return fail(`${ps1.length} paragraphs, expected ${ps2.length}`);
    for (let i = 0; i < ps1.length; i++) {
      const a = ps1[i]!.lineSpacing;
      const b = ps2[i]!.lineSpacing;
      const raised = [a, b].find((x) => x instanceof PythonWouldRaise);
      if (raised) return fail(`OSWorld's compare_line_spacing would raise here: ${raised.message}`);
      if (a !== b) return fail(`paragraph ${i + 1} (${quote(ps1[i]!.text)}): line spacing ${a}, expected ${b}`);
    }
    return 1;
  },
});

/** `compare_docx_images(result, expected)`: the documents relate to the same images, pixel for pixel, in the same order. */
const compareDocxImages = defineMetric({
  name: "compare_docx_images",
  options: z.strictObject({}),
  async run(result, expected) {
    const opened = await openBoth(result, expected, false);
    if ("fail" in opened) return opened.fail;
    try {
      const i1 = await opened.doc1.images();
      const i2 = await opened.doc2.images();
      if (i1.length !== i2.length) return fail(`${i1.length} images, expected ${i2.length}`);
      for (let k = 0; k < i1.length; k++) {
        const why = await imagesDiffer(i1[k]!, i2[k]!);
        if (why) return fail(`image ${k + 1}: ${why}`);
      }
    } catch (e) {
      if (e instanceof PythonWouldRaise) return fail(`OSWorld's compare_docx_images would raise here: ${e.message}`);
      throw e;
    }
    return 1;
  },
});

/** `compare_docx_files_and_ignore_new_lines(result, expected, ignore_blanks)`: the texts match once empty paragraphs are dropped. */
const compareDocxFilesAndIgnoreNewLines = defineMetric({
  name: "compare_docx_files_and_ignore_new_lines",
  options: z.object({ ignore_blanks: z.boolean().default(true) }),
  async run(result, expected, options) {
    const opened = await openBoth(result, expected, true);
    if ("fail" in opened) return opened.fail;
    const ps1 = opened.doc1.paragraphs.map((p) => p.text).filter((t) => t !== "");
    const ps2 = opened.doc2.paragraphs.map((p) => p.text).filter((t) => t !== "");
    return compareParagraphs(ps1, ps2, { ...compareDocxOptions.parse({}), ignore_blanks: options.ignore_blanks });
  },
});

/** OSWorld's metrics of this family, ported. */
export const docsMetrics: OsworldMetric[] = [compareDocxFiles, compareDocxTables, compareLineSpacing, compareDocxImages, compareDocxFilesAndIgnoreNewLines];
