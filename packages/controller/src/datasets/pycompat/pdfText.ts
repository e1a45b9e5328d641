import { readFile } from "node:fs/promises";

/**
 * A PDF's text as PyMuPDF's `page.get_text()` gives it (MuPDF 1.21), page after page, from pdf.js's
 * text items in content order. Lines are MuPDF's: a run of text continues a line when it starts on
 * the same baseline (within 0.8 em) where the previous one ended; a gap of at least 0.15 em there is a space, one of
 * 0.8 em or more (a table's next column) or a step back of more than 0.15 em starts a new line, and
 * each line ends with "\n". Ligatures are kept as written (MuPDF's default). Throws when the file is
 * not a readable PDF.
 */
export async function pdfText(path: string): Promise<string> {
  const pdfjs = await import("pdfjs-dist/legacy/build/pdf.mjs");
  const data = new Uint8Array(await readFile(path));
  const doc = await pdfjs.getDocument({ data, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
  try {
    let text = "";
    for (let p = 1; p <= doc.numPages; p++) {
      const page = await doc.getPage(p);
      const content = await page.getTextContent({ disableNormalization: true });
      text += pageLines(content.items.flatMap((i) => ("str" in i ? [i as TextRun] : [])));
      page.cleanup();
    }
    return text;
  } finally {
    await doc.destroy();
  }
}

/** A pdf.js text item: its text, its transform (a, b, c, d, x, y) and its advance width. */
interface TextRun {
  str: string;
  transform: number[];
  width: number;
  height: number;
}

/** The page's text as MuPDF lines (see {@link pdfText}). */
function pageLines(items: TextRun[]): string {
  let out = "";
  let pen: { x: number; y: number } | undefined;
  for (const item of items) {
    // pdf.js adds whitespace items of no height for the gaps it sees; the gaps are measured here instead.
    if (item.height === 0 && item.str.trim() === "") continue;
    if (item.str === "") continue;
    const [a = 0, b = 0, , , x = 0, y = 0] = item.transform;
    const size = Math.hypot(a, b) || 1;
    if (pen !== undefined) {
      const gap = x - pen.x;
      const sameBaseline = Math.abs(y - pen.y) < 0.8 * size;
      if (!sameBaseline || gap < -0.15 * size || gap >= 0.8 * size) out += "\n";
      else if (gap >= 0.15 * size) out += " ";
    }
    out += item.str;
    pen = { x: x + item.width, y };
  }
  return pen === undefined ? "" : `${out}\n`;
}
