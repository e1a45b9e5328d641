import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { defineMetric, type MetricResult, type OsworldMetric, scoreOf } from "../metric.js";
import { unpackArchive } from "../../pycompat/archive.js";
import { fail } from "../../../evaluators/verdict.js";
import { errorText, filePath, show } from "./common/outcome.js";
import { pdfText } from "../../pycompat/pdfText.js";
import { decodeGrayLikePil, type PilImage } from "../../pycompat/pilImage.js";
import { resize } from "../../pycompat/pilResize.js";
import { structuralSimilarity } from "../../pycompat/skimageSsim.js";
import { pyCompare } from "../../pycompat/pyValues.js";
import { pyStrip } from "../../pycompat/pyStr.js";
import { fuzzRatio } from "../../pycompat/similarity.js";
import { compareTextFiles } from "./general.js";

/**
 * OSWorld's file-format metrics: chrome.py's `compare_pdfs` and `compare_archive`, vlc.py's
 * `compare_images`.
 */

/** chrome.py's `compare_pdfs` on lists of paths: the mean, over the pairs, of rapidfuzz's ratio of their texts (a pair that fails to read scores 0). */
async function comparePdfLists(results: unknown[], expected: unknown[]): Promise<MetricResult> {
  // OSWorld divides by the number of expected PDFs: none raises ZeroDivisionError.
  if (expected.length === 0) throw new Error("compare_pdfs: no expected PDF (OSWorld divides by zero)");
  let score = 0;
  const notes: string[] = [];
  // fitz.open(None) is a new, empty document: a missing file (None) reads as no text at all, so it
  // matches a PDF without text.
  const text = async (p: unknown) => (p === null || p === undefined ? "" : pyStrip(await pdfText(p as string)));
  for (let i = 0; i < Math.min(results.length, expected.length); i++) {
    const [a, b] = [results[i], expected[i]];
    const name = typeof a === "string" ? a : `result ${i + 1}`;
    const readable = (p: unknown) => typeof p === "string" || p === null || p === undefined;
    if (!readable(a) || !readable(b)) {
      notes.push(`${name}: not a path`);
      continue;
    }
    if (a === null || a === undefined) notes.push(`${name}: missing (read as an empty document)`);
    try {
      const [t1, t2] = [await text(a), await text(b)];
      const r = fuzzRatio(t1, t2) / 100;
      score += r;
      if (r < 1) notes.push(`${name}: text similarity ${r.toFixed(4)}`);
    } catch (e) {
      notes.push(`${name}: ${errorText(e)}`);
    }
  }
  score /= expected.length;
  return score >= 1 ? 1 : fail(notes.join("; ") || `${results.length} result(s) for ${expected.length} expected PDF(s)`, score);
}

const comparePdfs = defineMetric({
  name: "compare_pdfs",
  options: z.strictObject({}),
  async run(result, expected) {
    if (Array.isArray(expected)) return comparePdfLists(Array.isArray(result) ? result : [], expected);
    return comparePdfLists([result], [expected]);
  },
});

/** vlc.py's `compare_images`: SSIM of the two images in grey, both resized to the smaller (by width, then height). */
export async function compareImageFiles(result: unknown, expected: unknown, o: { reference_base_result?: number | undefined }): Promise<MetricResult> {
  const [p1, p2] = [filePath(result), filePath(expected)];
  if (!p1 || !p2) return fail(p1 ? "the expected image is missing" : "the result image is missing");
  let a: PilImage;
  let b: PilImage;
  try {
    [a, b] = [await decodeGrayLikePil(await readFile(p1)), await decodeGrayLikePil(await readFile(p2))];
  } catch (e) {
    return fail(`cannot read the images: ${errorText(e)}`);
  }
  // Python's min() of two (width, height) tuples: the smaller width, or the smaller height on a tie.
  const size = pyCompare([a.width, a.height], [b.width, b.height]) <= 0 ? [a.width, a.height] : [b.width, b.height];
  const [w, h] = size as [number, number];
  let s: number;
  try {
    s = structuralSimilarity(resize(a, w, h, "lanczos"), resize(b, w, h, "lanczos"));
  } catch (e) {
    return fail(`cannot compare the images: ${errorText(e)}`);
  }
  const base = o.reference_base_result;
  // OSWorld returns the SSIM itself: below 0 for an image unlike (inverted from) the expected one.
  if (base === undefined) return s >= 1 ? 1 : fail(`SSIM ${s.toFixed(4)}`, s);
  if (s < base + 0.01) return fail(`SSIM ${s.toFixed(4)} is not above the reference ${base} (+0.01)`);
  const score = (s - base) / (1 - base);
  return score >= 1 ? 1 : fail(`SSIM ${s.toFixed(4)} above the reference ${base}: score ${score.toFixed(4)}`, score);
}

const imageOptions = { reference_base_result: z.number().lt(1).optional() };

const compareImages = defineMetric({
  name: "compare_images",
  // compare_images(image1, image2, **options): other keys are ignored.
  options: z.object(imageOptions),
  async run(result, expected, o) {
    return compareImageFiles(result, expected, o);
  },
});

/** The file types compare_archive compares with a ported metric; the others are reported unsupported. */
const ARCHIVE_TYPES_DONE = new Set(["text", "pdf", "image"]);

// compare_archive(pred, gold, **kwargs) passes the keys other than file_path and file_type to the
// comparison of each file: compare_text_file and compare_images take **options and ignore those they
// do not read; compare_pdfs has a fixed signature and raises TypeError on any.
const archiveOptions = z
  .looseObject({
    file_path: z.string().default(""),
    file_type: z.enum(["text", "pdf", "docx", "ppt", "image", "csv", "table", "audio", "video"]).default("text"),
    ignore_blanks: z.boolean().optional(),
    ignore_case: z.boolean().optional(),
    ...imageOptions,
  })
  .superRefine((o, ctx) => {
    if (o.file_type !== "pdf") return;
    for (const k of Object.keys(o).filter((k) => k !== "file_path" && k !== "file_type" && o[k] !== undefined)) {
      ctx.addIssue({ code: "custom", path: [k], message: `${k} goes to compare_pdfs, which takes no options (Python raises TypeError): remove it` });
    }
  });

/** The sorted names in a folder of an unpacked archive, Python's `sorted(os.listdir(...))`. */
async function listNames(dir: string): Promise<string[]> {
  return (await readdir(dir)).sort(pyCompare);
}

const compareArchive = defineMetric({
  name: "compare_archive",
  options: archiveOptions,
  unsupported: (o) => (ARCHIVE_TYPES_DONE.has(o.file_type) ? [] : [`compare_archive.file_type ${o.file_type}`]),
  async run(result, expected, o) {
    const pred = filePath(result);
    if (!pred) return fail("the result archive is missing");
    if (!ARCHIVE_TYPES_DONE.has(o.file_type)) throw new Error(`compare_archive: file_type ${o.file_type} is not supported`);
    const work = await mkdtemp(join(tmpdir(), "osworld-archive-"));
    try {
      const [predDir, goldDir] = [join(work, "pred"), join(work, "gold")];
      try {
        await unpackArchive(pred, predDir);
      } catch (e) {
        return fail(`cannot unpack the result archive ${pred}: ${errorText(e)}`);
      }
      try {
        await unpackArchive(String(expected), goldDir);
      } catch (e) {
        return fail(`cannot unpack the expected archive ${show(expected)}: ${errorText(e)}`);
      }
      return await compareUnpacked(join(predDir, o.file_path), join(goldDir, o.file_path), o);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  },
});

/** compare_archive once both archives are unpacked: same names, then the mean of the per-file comparison. */
async function compareUnpacked(pred: string, gold: string, o: z.infer<typeof archiveOptions>): Promise<MetricResult> {
  let predFiles: string[];
  let goldFiles: string[];
  try {
    [predFiles, goldFiles] = [await listNames(pred), await listNames(gold)];
  } catch (e) {
    return fail(`cannot list ${o.file_path || "the archives"}: ${errorText(e)}`);
  }
  if (predFiles.join("\0") !== goldFiles.join("\0")) return fail(`the archive holds ${show(predFiles)}, expected ${show(goldFiles)}`);
  if (predFiles.length === 0) return fail("the archives hold no files");
  // compare_text_file and compare_images open each listed name: a folder raises IsADirectoryError
  // (compare_pdfs catches it and counts the folder 0).
  if (o.file_type !== "pdf") {
    for (const name of predFiles) {
      for (const dir of [pred, gold]) {
        if ((await stat(join(dir, name))).isDirectory()) return fail(`${name} is a folder, which OSWorld opens as a file (it raises IsADirectoryError)`);
      }
    }
  }
  let total = 0;
  const notes: string[] = [];
  for (const name of predFiles) {
    const [a, b] = [join(pred, name), join(gold, name)];
    const r = scoreOf(
      o.file_type === "pdf"
        ? await comparePdfLists([a], [b])
        : o.file_type === "image"
          ? await compareImageFiles(a, b, o)
          : await compareTextFiles(a, b, { ignore_blanks: o.ignore_blanks ?? false, ignore_case: o.ignore_case ?? false }),
    );
    total += r.score;
    if (r.score < 1) notes.push(`${name}: ${r.reason}`);
  }
  const score = total / predFiles.length;
  return score >= 1 ? 1 : fail(notes.join("; "), score);
}

/** OSWorld's metrics of this family, ported. */
export const filesMetrics: OsworldMetric[] = [comparePdfs, compareImages, compareArchive];
