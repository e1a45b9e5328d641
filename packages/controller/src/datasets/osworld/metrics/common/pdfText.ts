import { readFile } from "node:fs/promises";

/**
 * A PDF's text as PyMuPDF's `page.get_text()` gives it, page after page: each line of text followed
 * by "\n" (pdf.js's text items, a line ending where pdf.js marks an end of line). Ligatures are kept
 * as written (MuPDF's default), not normalised. Throws when the file is not a readable PDF.
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
      let pageText = "";
      for (const item of content.items) {
        if (!("str" in item)) continue;
        pageText += item.str;
        if (item.hasEOL) pageText += "\n";
      }
      if (pageText !== "" && !pageText.endsWith("\n")) pageText += "\n";
      text += pageText;
      page.cleanup();
    }
    return text;
  } finally {
    await doc.destroy();
  }
}
