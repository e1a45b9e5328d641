import { readFile } from "node:fs/promises";
import JSZip from "jszip";
import initSqlJs from "sql.js";
import { z } from "zod";
import { defineMetric, type MetricResult, type OsworldMetric } from "../metric.js";
import { matchValueToRule, type ValueRule } from "./common/matchRule.js";
import { fail } from "../../../evaluators/verdict.js";
import { ruleKey, show } from "./common/outcome.js";
import { expandTabs, pyRstrip, pySplit, pySplitlines, pyStrip, readPyText } from "../../pycompat/pyStr.js";
import { pyFloat } from "../../pycompat/pyNumbers.js";
import { fuzzRatio, sequenceRatio } from "../../pycompat/similarity.js";
import { pdfText } from "../../pycompat/pdfText.js";
import { readDocx } from "./office/docx.js";
import { id3Text } from "./id3.js";

/**
 * OSWorld's small metrics of its other modules: general.py (`fuzzy_place_math`, `run_sqlite3`,
 * `compare_python_pure_text`), basic_os.py (`check_moved_jpgs`, `is_in_vm_clickboard`), pdf.py
 * (`check_pdf_pages`), vscode.py (`compare_result_files`, `compare_zip_files`) and others.py
 * (`check_mp3_meta`).
 */

const noOptions = z.strictObject({});

/** `fuzzy_place_math(docx, rules)`: the document has exactly three words; the mean of each one's best rapidfuzz ratio with `rules.expected`. */
const fuzzyPlaceMath = defineMetric({
  name: "fuzzy_place_math",
  options: noOptions,
  async run(result, rules): Promise<MetricResult> {
    if (result === null || result === undefined) return fail("no document");
    const expected = ruleKey("fuzzy_place_math", rules, "expected");
    if (!Array.isArray(expected)) throw new Error("fuzzy_place_math: rules.expected must be a list");
    const doc = typeof result === "string" ? await readDocx(result) : undefined;
    if (!doc) return fail(`${String(result)} is not a readable .docx (python-docx raises)`);
    const words = doc.paragraphs.flatMap((p) => pySplit(p.text));
    // Every word is scored before the count is checked: an answer rapidfuzz cannot read (a number,
    // an object) raises TypeError whenever there is a word; None scores 0; a list is compared
    // element by element with the word's letters.
    const ratio = (w: string, a: unknown) => {
      if (a === null) return 0;
      if (typeof a === "string") return fuzzRatio(w, a) / 100;
      if (Array.isArray(a)) {
        try {
          return fuzzRatio(w, a) / 100;
        } catch {
          // an unhashable element: reported below
        }
      }
      throw new Error(`fuzzy_place_math: rapidfuzz cannot compare a word with the answer ${show(a)} (Python raises)`);
    };
    const best = words.map((w) => Math.max(0, ...expected.map((a) => ratio(w, a))));
    if (words.length !== 3) return fail(`${words.length} words, expected 3: ${show(words, 300)}`);
    const score = best.reduce((s, x) => s + x, 0) / 3;
    return score >= 1 ? 1 : { score, reason: `the words match ${best.map((b) => b.toFixed(3)).join(", ")}` };
  },
});

/** `run_sqlite3(db, rules)`: the first column of the first row `rules.sql` gives, as a number (NULL, 0 or "" as 0). */
const runSqlite3 = defineMetric({
  name: "run_sqlite3",
  options: noOptions,
  async run(result, rules): Promise<MetricResult> {
    const sql = ruleKey("run_sqlite3", rules, "sql");
    if (typeof result !== "string" || result === "") return fail("no database (OSWorld's sqlite3.connect raises)");
    let bytes: Buffer;
    try {
      bytes = await readFile(result);
    } catch {
      return fail(`${result} is not there: an empty database has none of the query's tables`);
    }
    const SQL = await initSqlJs();
    const db = new SQL.Database(bytes);
    try {
      const rows = db.exec(String(sql));
      const v = rows[0]?.values[0]?.[0];
      if (rows.length === 0 || rows[0]!.values.length === 0) return fail("the query gives no row (OSWorld raises TypeError)");
      const n = v === null || v === 0 || v === "" ? 0 : typeof v === "number" ? v : Number(v);
      if (Number.isNaN(n)) return fail(`the query gives ${show(v)}, not a number`);
      // OSWorld returns the number itself; a score is kept within [0, 1].
      return n === 1 ? 1 : { score: Math.min(1, Math.max(0, n)), reason: `the query gives ${n}` };
    } catch (e) {
      return fail(`the query fails on the database: ${(e as Error).message}`);
    } finally {
      db.close();
    }
  },
});

/**
 * compare_python_pure_text's `_normalize`: leading shebang and coding lines (within the first
 * three) dropped, blank lines dropped, tabs expanded, trailing blanks cut.
 */
function normalizePython(text: string): string {
  const lines = pySplitlines(text);
  let i = 0;
  while (i < lines.length && i < 3) {
    const s = pyStrip(lines[i]!);
    if (s.startsWith("#!") || s.startsWith("# -*- coding:") || s.startsWith("# coding:") || s.startsWith("# coding=")) i++;
    else break;
  }
  const out: string[] = [];
  for (; i < lines.length; i++) if (pyStrip(lines[i]!)) out.push(pyRstrip(expandTabs(lines[i]!, 4)));
  return out.join("\n");
}

/** Reads a text file as Python's `open(path, encoding="utf-8").read()` does; undefined where it raises. */
async function pyRead(path: string): Promise<string | undefined> {
  try {
    return await readPyText(path);
  } catch {
    return undefined;
  }
}

/** `compare_python_pure_text(py, gold)`: the two files are the same code once normalised. */
const comparePythonPureText = defineMetric({
  name: "compare_python_pure_text",
  options: noOptions,
  async run(result, expected): Promise<MetricResult> {
    if (typeof result !== "string" || typeof expected !== "string" || !result || !expected) return fail("a file is missing");
    const a = await pyRead(result);
    const b = await pyRead(expected);
    if (a === undefined || b === undefined) return fail("a file cannot be read as UTF-8 text");
    return normalizePython(a) === normalizePython(b) ? 1 : fail("the code differs from the expected file's");
  },
});

/** `check_moved_jpgs(tree, rules)`: the folder holds exactly the files `rules.expected` (any order). */
const checkMovedJpgs = defineMetric({
  name: "check_moved_jpgs",
  options: noOptions,
  async run(result, rules): Promise<MetricResult> {
    const expected = ruleKey("check_moved_jpgs", rules, "expected");
    if (!Array.isArray(expected)) throw new Error("check_moved_jpgs: rules.expected must be a list");
    const children = (result as { children?: unknown } | null)?.children;
    if (!Array.isArray(children)) return fail("the folder is not there (OSWorld raises TypeError)");
    const names = children.map((c) => (c as { name?: unknown }).name);
    if (names.length !== expected.length) return fail(`${names.length} entries, expected ${expected.length}: ${show(names, 300)}`);
    const a = new Set(names.map(String));
    const same = a.size === new Set(expected.map(String)).size && expected.every((e) => a.has(String(e)));
    return same ? 1 : fail(`the folder holds ${show(names, 300)}, expected ${show(expected, 300)}`);
  },
});

/** `is_in_vm_clickboard(rules, clipboard)`: the clipboard's text contains `rules.expected` (each of them, for a list). */
const isInVmClickboard = defineMetric({
  name: "is_in_vm_clickboard",
  options: noOptions,
  async run(result, expected): Promise<MetricResult> {
    const want = ruleKey("is_in_vm_clickboard", result, "expected");
    if (typeof expected !== "string") return fail("the clipboard could not be read (OSWorld raises TypeError)");
    const all = Array.isArray(want) ? want : [want];
    const missing = all.filter((w) => !expected.includes(String(w)));
    return missing.length ? fail(`the clipboard (${show(expected)}) lacks ${show(missing)}`) : 1;
  },
});

const RELATIONS: Record<string, (a: number, b: number) => boolean> = {
  eq: (a, b) => a === b,
  ne: (a, b) => a !== b,
  lt: (a, b) => a < b,
  le: (a, b) => a <= b,
  gt: (a, b) => a > b,
  ge: (a, b) => a >= b,
};

/** `check_pdf_pages(pdf, rules)`: the page count stands in `rules.relation` (an `operator` name) to `rules.ref_value`. */
const checkPdfPages = defineMetric({
  name: "check_pdf_pages",
  options: noOptions,
  async run(result, rules): Promise<MetricResult> {
    const relation = RELATIONS[String(ruleKey("check_pdf_pages", rules, "relation"))];
    const ref = Number(ruleKey("check_pdf_pages", rules, "ref_value"));
    if (!relation) throw new Error("check_pdf_pages: rules.relation must be eq, ne, lt, le, gt or ge");
    if (typeof result !== "string" || result === "") return fail("no PDF");
    let pages: number;
    try {
      const pdfjs = await import("pdfjs-dist/legacy/build/pdf.mjs");
      const doc = await pdfjs.getDocument({ data: new Uint8Array(await readFile(result)), isEvalSupported: false, verbosity: 0 }).promise;
      pages = doc.numPages;
      await doc.destroy();
    } catch (e) {
      return fail(`${result} is not a readable PDF: ${(e as Error).message}`);
    }
    return relation(pages, ref) ? 1 : fail(`${pages} page(s), not ${String((rules as { relation: string }).relation)} ${ref}`);
  },
});

/**
 * `compare_result_files(src, tgt)`: with a number as the expected text, the result contains that
 * text or is a number within 1e-4 of it; otherwise the stripped texts are equal.
 */
const compareResultFiles = defineMetric({
  name: "compare_result_files",
  options: noOptions,
  async run(result, expected): Promise<MetricResult> {
    if (typeof result !== "string" || typeof expected !== "string" || !result || !expected) return fail("a file is missing");
    const read = async (p: string) => pyStrip((await pyRead(p)) ?? "");
    const src = await read(result);
    const tgt = await read(expected);
    const t = pyFloat(tgt);
    if (t !== undefined) {
      if (src.includes(tgt)) return 1;
      const s = pyFloat(src);
      if (s !== undefined) return Math.abs(s - t) < 1e-4 ? 1 : fail(`${src} is not ${tgt}`);
    }
    return src === tgt ? 1 : fail(`the result is ${show(src)}, expected ${show(tgt)}`);
  },
});

/** `compare_zip_files(actual, expected)`: the same file names, each file the same bytes (PDFs: their texts 95% alike). */
const compareZipFiles = defineMetric({
  name: "compare_zip_files",
  // compare_zip_files(actual, expected, **options): options are ignored.
  options: z.object({}),
  async run(result, expected): Promise<MetricResult> {
    if (typeof result !== "string" || result === "") return fail("no zip file");
    if (typeof expected !== "string") throw new Error("compare_zip_files: the expected zip file is missing");
    let z1: JSZip;
    try {
      z1 = await JSZip.loadAsync(await readFile(result));
    } catch (e) {
      return fail(`${result} is not a readable zip (OSWorld raises): ${(e as Error).message}`);
    }
    const z2 = await JSZip.loadAsync(await readFile(expected));
    const names = (z: JSZip) => Object.values(z.files).map((f) => f.name);
    const n1 = new Set(names(z1));
    const n2 = new Set(names(z2));
    if (n1.size !== n2.size || [...n1].some((n) => !n2.has(n)))
      return fail(`the archives hold different files: ${show([...n1], 300)} vs ${show([...n2], 300)}`);
    for (const name of n1) {
      // z.files, not z.file(): a folder's own entry ("docs/") is read too, as Python reads its empty bytes.
      const a = Buffer.from(await z1.files[name]!.async("uint8array"));
      const b = Buffer.from(await z2.files[name]!.async("uint8array"));
      if (name.toLowerCase().endsWith(".pdf")) {
        const ratio = sequenceRatio(Array.from(await textOf(a)), Array.from(await textOf(b)));
        if (ratio < 0.95) return fail(`${name}: the PDFs' texts are ${(ratio * 100).toFixed(1)}% alike, under 95%`);
      } else if (!a.equals(b)) return fail(`${name} differs`);
    }
    return 1;
  },
});

/** A PDF's text, from its bytes. */
async function textOf(pdf: Buffer): Promise<string> {
  const { mkdtemp, writeFile, rm } = await import("node:fs/promises");
  const { join } = await import("node:path");
  const { tmpdir } = await import("node:os");
  const dir = await mkdtemp(join(tmpdir(), "pincer-zip-pdf-"));
  try {
    await writeFile(join(dir, "a.pdf"), pdf);
    return await pdfText(join(dir, "a.pdf"));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `check_mp3_meta(mp3, rules)`: each ID3 field named in the rules (mutagen's EasyID3 names; values joined with ",") matches its rule. */
const checkMp3Meta = defineMetric({
  name: "check_mp3_meta",
  options: noOptions,
  async run(result, rules): Promise<MetricResult> {
    if (result === null || result === undefined) return fail("no audio file");
    if (typeof rules !== "object" || rules === null) throw new Error("check_mp3_meta: the rules must be an object of field rules");
    const tags = typeof result === "string" ? await id3Text(result) : undefined;
    if (!tags) return fail(`${String(result)} has no ID3 tag (mutagen raises)`);
    for (const [key, r] of Object.entries(rules)) {
      const value = (tags.get(key) ?? []).join(",");
      if (!matchValueToRule(value, r as ValueRule)) return fail(`${key} is ${show(value)}, which does not match ${show(r)}`);
    }
    return 1;
  },
});

/** OSWorld's small metrics of its other modules. */
export const miscMetrics: OsworldMetric[] = [
  fuzzyPlaceMath,
  runSqlite3,
  comparePythonPureText,
  checkMovedJpgs,
  isInVmClickboard,
  checkPdfPages,
  compareResultFiles,
  compareZipFiles,
  checkMp3Meta,
];
