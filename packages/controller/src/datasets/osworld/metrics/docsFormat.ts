import { z } from "zod";
import { defineMetric, type MetricResult, type OsworldMetric, scoreOf } from "../metric.js";
import { rgbDeltaE } from "../../pycompat/colorDiff.js";
import { fail, type Verdict } from "../../../evaluators/verdict.js";
import { ruleKey, show } from "./common/outcome.js";
import { isPyDigit, pySplit, pyStrip } from "../../pycompat/pyStr.js";
import { docsMetrics } from "./docs.js";
import { type DocxFormatDocument, type DocxFormatParagraph, readDocxFormat } from "./office/docxFormat.js";
import { PythonWouldRaise } from "./office/package.js";

/**
 * OSWorld's document metrics on formatting (docs.py): fonts, subscripts, page breaks, footers'
 * page numbers, alignment, tab stops, colours, strike-through and italics, read from the .docx as
 * python-docx reads it (see office/docxFormat.ts).
 */

const noOptions = z.strictObject({});

/** Opens a document for a metric; a missing path or unreadable file scores 0 as OSWorld's `return 0` does. */
async function open(path: unknown): Promise<DocxFormatDocument | Verdict> {
  if (typeof path !== "string" || path === "") return fail("the document is missing");
  return (await readDocxFormat(path)) ?? fail(`${path} is missing or not a readable .docx`);
}
const failed = (d: DocxFormatDocument | Verdict): d is Verdict => "reason" in d;

/** Runs a metric body; where python-docx would raise on the agent's file, the score is 0 with the reason. */
async function guarded(metric: string, body: () => Promise<MetricResult>): Promise<MetricResult> {
  try {
    return await body();
  } catch (e) {
    if (e instanceof PythonWouldRaise) return fail(`OSWorld's ${metric} raises here: ${e.message}`);
    throw e;
  }
}

/** OSWorld's `compare_docx_files(a, b)` with its default options (the texts match). */
async function sameText(a: unknown, b: unknown): Promise<MetricResult> {
  const compare = docsMetrics.find((m) => m.name === "compare_docx_files")!;
  return compare.run(a, b, compare.options.parse({}));
}

/** Every run of the document's body paragraphs. */
const bodyRuns = (d: DocxFormatDocument) => d.paragraphs.flatMap((p) => p.runs);

/** `contains_page_break(docx, rules)`: a page break (`w:br w:type="page"`) in a run; exactly `rules.page_break_count` of them when given. */
const containsPageBreak = defineMetric({
  name: "contains_page_break",
  options: noOptions,
  run: (result, rules) =>
    guarded("contains_page_break", async () => {
      const d = await open(result);
      if (failed(d)) return d;
      const want = typeof rules === "object" && rules !== null ? (rules as Record<string, unknown>).page_break_count : undefined;
      const count = bodyRuns(d).reduce((n, r) => n + r.breaks.filter((b) => b.attrs["w:type"] === "page").length, 0);
      if (want !== undefined && want !== null && count !== want) return fail(`${count} page break(s), expected ${show(want)}`);
      return count > 0 ? 1 : fail("no page break");
    }),
});

/** `compare_font_names(docx, rules)`: every run of the body's paragraphs names the font `rules.font_name`. */
const compareFontNames = defineMetric({
  name: "compare_font_names",
  options: noOptions,
  run: (result, rules) =>
    guarded("compare_font_names", async () => {
      const want = ruleKey("compare_font_names", rules, "font_name");
      const d = await open(result);
      if (failed(d)) return d;
      const other = bodyRuns(d).find((r) => r.fontName !== want);
      return other ? fail(`the run ${show(other.text)} has the font ${show(other.fontName)}, expected ${show(want)}`) : 1;
    }),
});

/** `compare_subscript_contains(a, b)`: some run of a paragraph is subscript in both documents (runs paired in order). */
const compareSubscriptContains = defineMetric({
  name: "compare_subscript_contains",
  options: noOptions,
  run: (result, expected) =>
    guarded("compare_subscript_contains", async () => {
      const a = await open(result);
      if (failed(a)) return a;
      const b = await open(expected);
      if (failed(b)) return b;
      for (const [i, p] of a.paragraphs.entries()) {
        const q = b.paragraphs[i];
        if (!q) break;
        for (const [j, r] of p.runs.entries()) if (q.runs[j] && r.subscript && q.runs[j]!.subscript) return 1;
      }
      return fail("no run is subscript in both documents");
    }),
});

/** `has_page_numbers_in_footers(docx)`: the first paragraph of every section's footer has a digit. */
const hasPageNumbersInFooters = defineMetric({
  name: "has_page_numbers_in_footers",
  options: noOptions,
  run: (result) =>
    guarded("has_page_numbers_in_footers", async () => {
      const d = await open(result);
      if (failed(d)) return d;
      for (const [i, s] of d.sections.entries()) {
        const text = await s.footerFirstParagraph();
        if (!Array.from(text).some(isPyDigit)) return fail(`section ${i + 1}'s footer ${show(text)} has no page number`);
      }
      return 1;
    }),
});

/** `is_first_line_centered(docx)`: the first paragraph is centred. */
const isFirstLineCentered = defineMetric({
  name: "is_first_line_centered",
  options: noOptions,
  run: (result) =>
    guarded("is_first_line_centered", async () => {
      const d = await open(result);
      if (failed(d)) return d;
      const first = d.paragraphs[0];
      if (!first) throw new PythonWouldRaise("the document has no paragraph (IndexError)");
      const a = first.alignment();
      return a === "center" ? 1 : fail(`the first paragraph is aligned ${show(a ?? "by its style")}, not centred`);
    }),
});

/**
 * `check_tabstops(a, b, word_number_split_by_tabstop, index)`: the non-empty paragraphs pair up,
 * with the same tab stops' alignments (the default left stop at 0 and cleared stops aside); the
 * score is 1 less the mean over paragraphs of the stops' distance in page widths. With
 * `word_number_split_by_tabstop`, each of the result's paragraphs has that many words before its
 * `index`-th tab.
 */
const checkTabstops = defineMetric({
  name: "check_tabstops",
  // check_tabstops(docx_file1, docx_file2, **kwargs): keys it does not read are ignored.
  options: z.object({ word_number_split_by_tabstop: z.number().int().nullable().optional(), index: z.number().int().default(0) }),
  run: (result, expected, o) =>
    guarded("check_tabstops", async () => {
      const a = await open(result);
      if (failed(a)) return a;
      const b = await open(expected);
      if (failed(b)) return b;
      const nonEmpty = (ps: DocxFormatParagraph[]) => ps.filter((p) => pyStrip(p.text) !== "");
      const p1 = nonEmpty(a.paragraphs);
      const p2 = nonEmpty(b.paragraphs);
      if (p1.length !== p2.length) return fail(`${p1.length} non-empty paragraphs, expected ${p2.length}`);
      if (o.word_number_split_by_tabstop !== undefined && o.word_number_split_by_tabstop !== null) {
        for (const p of p1) {
          const splits = p.text.split("\t");
          const part = splits[o.index < 0 ? splits.length + o.index : o.index];
          if (part === undefined) throw new PythonWouldRaise(`paragraph ${show(p.text)} has no part ${o.index} between tabs (IndexError)`);
          // `re.split(r'\s', part)` with the empty words dropped: the words of str.split().
          const n = pySplit(part).length;
          if (n !== o.word_number_split_by_tabstop) return fail(`${show(part)} has ${n} word(s) before the tab, expected ${o.word_number_split_by_tabstop}`);
        }
      }
      const section = b.sections[0];
      if (!section) throw new Error("check_tabstops: the expected document has no section (IndexError)");
      if (section.pageWidth === null || section.leftMargin === null || section.rightMargin === null) {
        throw new Error("check_tabstops: the expected document's page size or margins are not set (TypeError)");
      }
      const width = section.pageWidth - section.leftMargin - section.rightMargin;
      const kept = (p: DocxFormatParagraph) => p.tabStops().filter((t) => !(t.alignment === "clear" || (t.alignment === "left" && t.position === 0)));
      let minus = 0;
      for (const [i, p] of p1.entries()) {
        const t1 = kept(p);
        const t2 = kept(p2[i]!);
        if (t1.length !== t2.length) return fail(`paragraph ${show(p.text)} has ${t1.length} tab stop(s), expected ${t2.length}`);
        let difference = 0;
        for (const [k, t] of t1.entries()) {
          if (t.alignment !== t2[k]!.alignment) return fail(`paragraph ${show(p.text)}: a ${t.alignment} tab stop where a ${t2[k]!.alignment} one is expected`);
          difference += Math.abs(t.position - t2[k]!.position);
        }
        minus += difference / width;
      }
      if (p1.length === 0) throw new PythonWouldRaise("no non-empty paragraph (ZeroDivisionError)");
      const score = 1 - minus / p1.length;
      return score >= 1 ? 1 : { score, reason: `tab stops off by ${(minus / p1.length).toFixed(4)} page widths on average` };
    }),
});

const hexRgb = (h: string) => [0, 2, 4].map((i) => Number.parseInt(h.slice(i, i + 2), 16));

/**
 * `evaluate_colored_words_in_tables(a, b, threshold)`: the texts match, and in the tables each word
 * starting with a vowel is red, the others blue (CIEDE2000 within `threshold`).
 */
const evaluateColoredWordsInTables = defineMetric({
  name: "evaluate_colored_words_in_tables",
  options: z.object({ threshold: z.number().default(3.5) }),
  run: (result, expected, o) =>
    guarded("evaluate_colored_words_in_tables", async () => {
      if (typeof result !== "string" || typeof expected !== "string" || !result || !expected) return fail("a document is missing");
      if (scoreOf(await sameText(result, expected)).score === 0) return fail("the text differs from the expected document's");
      const d = await open(result);
      if (failed(d)) return d;
      for (const run of d.tables.flat(3).flatMap((p) => p.runs)) {
        if (!run.text) continue;
        const vowel = "aeiou".includes(run.text[0]!.toLowerCase());
        const rgb = run.rgb();
        if (rgb === null) throw new PythonWouldRaise(`the run ${show(run.text)} has no colour of its own (TypeError)`);
        const want = vowel ? [255, 0, 0] : [0, 0, 255];
        const delta = rgbDeltaE(hexRgb(rgb), want);
        if (delta > o.threshold) return fail(`${show(run.text)} is #${rgb}, not ${vowel ? "red" : "blue"} (ΔE ${delta.toFixed(2)})`);
      }
      return 1;
    }),
});

/** `evaluate_strike_through_last_paragraph(a, b)`: the texts match and every run of the last paragraph is struck through. */
const evaluateStrikeThroughLastParagraph = defineMetric({
  name: "evaluate_strike_through_last_paragraph",
  options: noOptions,
  run: (result, expected) =>
    guarded("evaluate_strike_through_last_paragraph", async () => {
      if (typeof result !== "string" || typeof expected !== "string" || !result || !expected) return fail("a document is missing");
      if (scoreOf(await sameText(result, expected)).score === 0) return fail("the text differs from the expected document's");
      const d = await open(result);
      if (failed(d)) return d;
      const last = d.paragraphs[d.paragraphs.length - 1];
      if (!last) throw new PythonWouldRaise("the document has no paragraph (IndexError)");
      const plain = last.runs.find((r) => !r.strike);
      return plain ? fail(`${show(plain.text)} in the last paragraph is not struck through`) : 1;
    }),
});

/** `check_italic_font_size_14(a, b)`: the texts match and every italic run of the body is 14 pt. */
const checkItalicFontSize14 = defineMetric({
  name: "check_italic_font_size_14",
  options: noOptions,
  run: (result, expected) =>
    guarded("check_italic_font_size_14", async () => {
      if (typeof result !== "string" || typeof expected !== "string" || !result || !expected) return fail("a document is missing");
      if (scoreOf(await sameText(result, expected)).score === 0) return fail("the text differs from the expected document's");
      const d = await open(result);
      if (failed(d)) return d;
      const wrong = bodyRuns(d).find((r) => r.italic && r.sizePt !== 14);
      return wrong ? fail(`the italic run ${show(wrong.text)} is ${wrong.sizePt === null ? "of its style's size" : `${wrong.sizePt} pt`}, not 14 pt`) : 1;
    }),
});

/** OSWorld's document formatting metrics. */
export const docsFormatMetrics: OsworldMetric[] = [
  containsPageBreak,
  compareFontNames,
  compareSubscriptContains,
  hasPageNumbersInFooters,
  isFirstLineCentered,
  checkTabstops,
  evaluateColoredWordsInTables,
  evaluateStrikeThroughLastParagraph,
  checkItalicFontSize14,
];
