import { readFile } from "node:fs/promises";
import { z } from "zod";
import { defineMetric, type MetricResult, type OsworldMetric } from "../metric.js";
import { fail } from "../../../evaluators/verdict.js";
import { show } from "./common/outcome.js";
import { pyStrip } from "../../pycompat/pyStr.js";
import { fuzzRatio } from "../../pycompat/similarity.js";
import { readDocx } from "./office/docx.js";
import { descendants, kids, leafText, parseXml } from "./office/xml.js";

/**
 * OSWorld's document metrics on text and settings (docs.py): the default font in LibreOffice's
 * registry, a paper's references, and a de-duplicated list of train records.
 */

/** The texts of a .docx's body paragraphs, or undefined when it is missing or unreadable. */
async function paragraphTexts(path: unknown): Promise<string[] | undefined> {
  if (typeof path !== "string" || path === "") return undefined;
  return (await readDocx(path))?.paragraphs.map((p) => p.text);
}

/**
 * `find_default_font(config, rules)`: LibreOffice Writer's default font in the user's
 * registrymodifications.xcu (the last `Standard` value under `/org.openoffice.Office.Writer/DefaultFont`)
 * is `rules.font_name`.
 */
const findDefaultFont = defineMetric({
  name: "find_default_font",
  options: z.strictObject({}),
  async run(result, rules): Promise<MetricResult> {
    if (typeof rules !== "object" || rules === null || !Object.hasOwn(rules, "font_name")) throw new Error('find_default_font: the rules need "font_name"');
    const want = (rules as { font_name: unknown }).font_name;
    if (typeof result !== "string" || result === "") return fail("no registrymodifications.xcu");
    let font: string | null | undefined;
    try {
      const root = parseXml(await readFile(result, "utf8"));
      for (const item of descendants(root, "item").filter((i) => i.attrs["oor:path"] === "/org.openoffice.Office.Writer/DefaultFont")) {
        for (const prop of descendants(item, "prop").filter((p) => p.attrs["oor:name"] === "Standard")) {
          for (const value of kids(prop, "value")) font = leafText(value);
        }
      }
    } catch (e) {
      // OSWorld logs the error and compares what it found so far (nothing).
      if (font === undefined) return fail(`cannot read ${result}: ${(e as Error).message}`);
    }
    return font === want ? 1 : fail(`Writer's default font is ${show(font ?? null)}, expected ${show(want)}`);
  },
});

/**
 * `compare_references(a, b, reference_indicator, reference_base_result)`: after the first
 * paragraph that is exactly `reference_indicator` in each document, the non-empty paragraphs pair
 * up, and their mean rapidfuzz ratio, rescaled from `reference_base_result` to 1, is the score
 * (0 below `reference_base_result` + 0.01; 1 when neither document has the heading).
 */
const compareReferences = defineMetric({
  name: "compare_references",
  // compare_references(file1, file2, **options): keys it does not read are ignored.
  options: z.object({ reference_indicator: z.string().default("References"), reference_base_result: z.number().default(0.5) }),
  async run(result, expected, o): Promise<MetricResult> {
    if (typeof result !== "string" || typeof expected !== "string" || !result || !expected) return fail("a document is missing");
    if (!result.endsWith(".docx") || !expected.endsWith(".docx")) return fail("unsupported file types or a mismatch between them");
    const p1 = await paragraphTexts(result);
    const p2 = await paragraphTexts(expected);
    if (!p1 || !p2) return fail(`${!p1 ? result : expected} is not a readable .docx`);
    const i1 = p1.indexOf(o.reference_indicator);
    const i2 = p2.indexOf(o.reference_indicator);
    if (i1 === -1 && i2 === -1) return 1;
    if (i1 === -1 || i2 === -1) return fail(`the ${i1 === -1 ? "result" : "expected document"} has no paragraph ${show(o.reference_indicator)}`);
    const r1 = p1.slice(i1 + 1).filter((p) => pyStrip(p) !== "");
    const r2 = p2.slice(i2 + 1).filter((p) => pyStrip(p) !== "");
    if (r1.length !== r2.length) return fail(`${r1.length} references, expected ${r2.length}`);
    if (r1.length === 0) throw new Error("compare_references: no references after the heading (OSWorld divides by zero)");
    const mean = r1.reduce((s, r, i) => s + fuzzRatio(r, r2[i]!) / 100, 0) / r1.length;
    if (mean < o.reference_base_result + 0.01) return fail(`the references are ${(mean * 100).toFixed(1)}% alike, below ${o.reference_base_result} + 0.01`);
    const score = (mean - o.reference_base_result) / (1 - o.reference_base_result);
    return score >= 1 ? 1 : { score, reason: `the references are ${(mean * 100).toFixed(1)}% alike` };
  },
});

/** The non-empty stripped paragraph lines, and the second field of each line of four comma-separated fields. */
async function trainRecords(path: string): Promise<{ lines: string[]; ids: string[] } | undefined> {
  const texts = await paragraphTexts(path);
  if (!texts) return undefined;
  const lines = texts.map(pyStrip).filter((l) => l !== "");
  return { lines, ids: lines.filter((l) => l.split(",").length === 4).map((l) => pyStrip(l.split(",")[1]!)) };
}

/**
 * `compare_unique_train_records(result, [gold, initial])`: every line of the result was in the
 * initial document, no train id (the second of four fields) repeats, the ids are the gold's, and
 * there are as many lines as in the gold.
 */
const compareUniqueTrainRecords = defineMetric({
  name: "compare_unique_train_records",
  options: z.object({}),
  async run(result, expected): Promise<MetricResult> {
    if (typeof result !== "string" || !result || !Array.isArray(expected) || expected.length < 2)
      return fail("the result, or the gold and initial documents, are missing");
    const [gold, initial] = expected as unknown[];
    if (typeof gold !== "string" || typeof initial !== "string" || !gold || !initial) return fail("the gold or the initial document is missing");
    const got = await trainRecords(result);
    if (!got) return fail(`${result} is not a readable .docx`);
    const want = await trainRecords(gold);
    if (!want) return fail(`${gold} is not a readable .docx`);
    const start = await trainRecords(initial);
    if (!start) return fail(`${initial} is not a readable .docx`);
    const initialLines = new Set(start.lines);
    const extra = got.lines.filter((l) => !initialLines.has(l));
    if (extra.length) return fail(`lines not in the initial document: ${show(extra, 300)}`);
    if (got.ids.length !== new Set(got.ids).size) return fail("a train id repeats");
    const ids = new Set(got.ids);
    const goldIds = new Set(want.ids);
    if (ids.size !== goldIds.size || [...ids].some((i) => !goldIds.has(i)))
      return fail(`the train ids are ${show([...ids], 300)}, expected ${show([...goldIds], 300)}`);
    if (got.lines.length !== want.lines.length) return fail(`${got.lines.length} lines, expected ${want.lines.length}`);
    return 1;
  },
});

/** OSWorld's document metrics on text and settings. */
export const docsTextMetrics: OsworldMetric[] = [findDefaultFont, compareReferences, compareUniqueTrainRecords];
