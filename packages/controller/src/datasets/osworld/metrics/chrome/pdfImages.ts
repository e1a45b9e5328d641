import { readFile } from "node:fs/promises";
import { z } from "zod";
import { defineMetric, type MetricResult } from "../../metric.js";
import { fail } from "../../../../evaluators/verdict.js";
import { greyImage, luma, type PilImage } from "../../../pycompat/pilImage.js";
import { resize } from "../../../pycompat/pilResize.js";

/**
 * OSWorld's `compare_pdf_images` (metrics/chrome.py): the images of two PDFs, page by page, pair
 * up, each pair's perceptual hashes (imagehash's `phash`: grey, 32 × 32 Lanczos, the DCT's 8 × 8
 * low frequencies against their median) within 5 bits. OSWorld takes each page's images with
 * PyMuPDF (`get_images`, `extract_image`) and Pillow; Pincer takes the images a page draws, once
 * each in drawing order, decoded by pdf.js.
 */

/** pdf.js's decoded image: 1-bit grey, RGB or RGBA samples. */
interface PdfImage {
  width: number;
  height: number;
  kind: number;
  data: Uint8Array | Uint8ClampedArray;
}

/** Each page's images, decoded, in order. */
async function pdfImages(path: string): Promise<PilImage[]> {
  const pdfjs = await import("pdfjs-dist/legacy/build/pdf.mjs");
  const doc = await pdfjs.getDocument({ data: new Uint8Array(await readFile(path)), isEvalSupported: false, isOffscreenCanvasSupported: false, verbosity: 0 })
    .promise;
  const out: PilImage[] = [];
  try {
    for (let p = 1; p <= doc.numPages; p++) {
      const page = await doc.getPage(p);
      const ops = await page.getOperatorList();
      const seen = new Set<string>();
      for (let i = 0; i < ops.fnArray.length; i++) {
        if (ops.fnArray[i] !== pdfjs.OPS.paintImageXObject) continue;
        const name = String((ops.argsArray[i] as unknown[])[0]);
        if (seen.has(name)) continue;
        seen.add(name);
        const objs = name.startsWith("g_") ? page.commonObjs : page.objs;
        const img = (await new Promise((resolve) => objs.get(name, resolve))) as PdfImage | null;
        if (img?.data) out.push(toGray(img));
      }
      page.cleanup();
    }
  } finally {
    await doc.destroy();
  }
  return out;
}

/** Pillow's `convert("L")` of the decoded samples (alpha ignored). */
function toGray(img: PdfImage): PilImage {
  const n = img.width * img.height;
  const gray = new Uint8Array(n);
  if (img.kind === 1) {
    // 1 bit a pixel, rows padded to whole bytes.
    const stride = Math.ceil(img.width / 8);
    for (let y = 0; y < img.height; y++) {
      for (let x = 0; x < img.width; x++) gray[y * img.width + x] = (img.data[y * stride + (x >> 3)]! >> (7 - (x & 7))) & 1 ? 255 : 0;
    }
  } else {
    const c = img.kind === 3 ? 4 : 3;
    for (let i = 0; i < n; i++) gray[i] = luma(img.data[i * c]!, img.data[i * c + 1]!, img.data[i * c + 2]!);
  }
  return greyImage(img.width, img.height, gray);
}

/** scipy's unnormalised DCT-II of a 32-sample vector. */
function dct(v: readonly number[]): number[] {
  const n = v.length;
  return Array.from({ length: n }, (_, k) => 2 * v.reduce((s, x, i) => s + x * Math.cos((Math.PI * k * (2 * i + 1)) / (2 * n)), 0));
}

/** numpy's median. */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** imagehash's `phash(image)`: 64 bits. */
export function phash(img: PilImage): boolean[] {
  const small = resize(img, 32, 32, "lanczos");
  const rows = Array.from({ length: 32 }, (_, y) => Array.from(small.data.subarray(y * 32, y * 32 + 32)));
  // dct(dct(pixels, axis=0), axis=1): down the columns, then along the rows.
  const cols = Array.from({ length: 32 }, (_, x) => dct(rows.map((r) => r[x]!)));
  const byRow = Array.from({ length: 32 }, (_, y) => dct(cols.map((c) => c[y]!)));
  const low = byRow.slice(0, 8).flatMap((r) => r.slice(0, 8));
  const med = median(low);
  return low.map((v) => v > med);
}

/** `compare_pdf_images(a, b)`: the share of image pairs whose hashes differ in at most 5 bits; 0 when the counts differ, 1 without images. */
export const comparePdfImages = defineMetric({
  name: "compare_pdf_images",
  // compare_pdf_images(pdf1_path, pdf2_path, **kwargs): other keys are ignored.
  options: z.object({}),
  async run(result, expected): Promise<MetricResult> {
    if (typeof result !== "string" || typeof expected !== "string" || !result || !expected) return fail("a PDF is missing");
    let a: PilImage[];
    let b: PilImage[];
    try {
      a = await pdfImages(result);
      b = await pdfImages(expected);
    } catch (e) {
      return fail(`cannot read the PDFs' images: ${(e as Error).message}`);
    }
    if (a.length !== b.length) return fail(`${a.length} image(s), expected ${b.length}`);
    if (a.length === 0) return 1;
    let same = 0;
    for (let i = 0; i < a.length; i++) {
      const h1 = phash(a[i]!);
      const h2 = phash(b[i]!);
      if (h1.filter((bit, k) => bit !== h2[k]).length <= 5) same++;
    }
    return same === a.length ? 1 : { score: same / a.length, reason: `${a.length - same} of ${a.length} image(s) differ` };
  },
});
