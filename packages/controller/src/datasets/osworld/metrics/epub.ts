import { readFile } from "node:fs/promises";
import JSZip from "jszip";
import { z } from "zod";
import { defineMetric, type OsworldMetric } from "../metric.js";
import { lxmlPrettyHtml } from "../../pycompat/lxmlHtml.js";
import { pySplitlines } from "../../pycompat/pyStr.js";
import { sequenceRatio } from "../../pycompat/similarity.js";
import { fail } from "../../../evaluators/verdict.js";
import { PythonWouldRaise } from "./office/package.js";

/**
 * OSWorld's `compare_epub` (others.py): each e-book is unpacked by `process_epub` into the lines of
 * its `toc.ncx` (lines naming a `navPoint` left out), its `content.opf` (lines with a
 * `dc:identifier` left out) and each `.html` member as lxml pretty-prints it (pycompat/lxmlHtml.ts),
 * sorted by name; the score is the mean over the result's files of `diff_text_file` (difflib's line
 * ratio) with the expected file at the same position.
 */

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Python's `bytes.decode()`: UTF-8, raising on bytes that are not. */
function decode(bytes: Uint8Array, name: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new PythonWouldRaise(`${name} is not UTF-8 (UnicodeDecodeError)`);
  }
}

/** `process_epub(filename)`: each extracted file's name and lines, sorted by name; none when it is not a zip. */
async function processEpub(path: string): Promise<Array<{ name: string; lines: string[] }>> {
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(await readFile(path));
  } catch {
    return [];
  }
  const out: Array<{ name: string; lines: string[] }> = [];
  const filtered = async (name: string, drop: string) => {
    const f = zip.file(name);
    if (f) out.push({ name, lines: pySplitlines(decode(await f.async("uint8array"), name)).filter((l) => !l.includes(drop)) });
  };
  await filtered("toc.ncx", "navPoint");
  await filtered("content.opf", "dc:identifier");
  for (const f of Object.values(zip.files)) {
    if (f.dir || !f.name.endsWith(".html")) continue;
    // OSWorld writes each to <epub>.dir/<its name>, whose folders it never creates.
    if (f.name.includes("/")) throw new PythonWouldRaise(`${f.name} is in a folder, which OSWorld fails to write out (FileNotFoundError)`);
    const text = decode(await f.async("uint8array"), f.name).replace(/[\n\r]/g, "");
    out.push({ name: f.name, lines: pySplitlines(lxmlPrettyHtml(text)) });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** `compare_epub(result, expected)`: the mean line similarity of the e-books' files, paired in name order. */
const compareEpub = defineMetric({
  name: "compare_epub",
  options: z.strictObject({}),
  async run(result, expected) {
    if (typeof result !== "string" || result === "") return fail("the result file is missing");
    if (typeof expected !== "string" || expected === "") throw new Error("compare_epub: the expected e-book is missing");
    try {
      const got = await processEpub(result);
      const want = await processEpub(expected);
      if (got.length === 0) return fail(`${result} holds no toc.ncx, content.opf or .html file (or is not a zip)`);
      const ratios = got.slice(0, want.length).map((f, i) => ({ name: f.name, ratio: sequenceRatio(f.lines, want[i]!.lines) }));
      const score = ratios.reduce((s, r) => s + r.ratio, 0) / got.length;
      if (score >= 1) return 1;
      const worst = ratios.filter((r) => r.ratio < 1).map((r) => `${r.name} ${r.ratio.toFixed(3)}`);
      return fail(
        `mean line similarity ${score.toFixed(4)} over ${got.length} file(s) (expected ${want.length}); below 1: ${worst.join(", ") || "none"}`,
        score,
      );
    } catch (e) {
      if (e instanceof PythonWouldRaise) return fail(`OSWorld's compare_epub would raise here: ${e.message}`);
      throw e;
    }
  },
});

/** OSWorld's e-book metric. */
export const epubMetrics: OsworldMetric[] = [compareEpub];
