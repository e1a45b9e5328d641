import { openPackage } from "./package.js";
import { descendants, kids, type XEl } from "./xml.js";

/**
 * The paragraphs of an OpenDocument text (.odt) as OSWorld's `compare_docx_files` reads them with
 * odfpy: `load(path).getElementsByType(P)` lists every `text:p` of the parts the manifest names, in
 * the order odfpy parses them (content.xml, then styles.xml, whose headers and footers come after
 * the body), headings (`text:h`) excluded; a paragraph's text is its own text nodes and those
 * directly inside a `text:span` child, so `<text:s/>`, tabs, line breaks, links and spans within
 * spans add nothing.
 */

/** A paragraph's text as OSWorld's `get_paragraph_texts_odt` joins it. */
function paragraphText(p: XEl): string {
  let s = "";
  for (const node of p.kids) {
    if (typeof node === "string") s += node;
    else if (node.tag === "text:span") for (const c of node.kids) if (typeof c === "string") s += c;
  }
  return s;
}

/**
 * The root elements of content.xml then styles.xml, each when the manifest lists it, as odfpy loads
 * an OpenDocument file; `undefined` when odfpy cannot load it (not a zip, no manifest, XML that does
 * not parse).
 */
export async function readOdtParts(path: string): Promise<XEl[] | undefined> {
  const pkg = await openPackage(path);
  if (!pkg) return undefined;
  try {
    const manifest = await pkg.xml("META-INF/manifest.xml");
    if (!manifest) return undefined;
    const listed = new Set(kids(manifest, "manifest:file-entry").map((e) => e.attrs["manifest:full-path"]));
    const roots: XEl[] = [];
    for (const part of ["content.xml", "styles.xml"]) {
      if (!listed.has(part)) continue;
      const root = await pkg.xml(part);
      if (root) roots.push(root);
    }
    return roots;
  } catch {
    return undefined;
  }
}

/** The paragraph texts, or `undefined` when odfpy cannot load the file (see {@link readOdtParts}). */
export async function readOdtParagraphs(path: string): Promise<string[] | undefined> {
  return (await readOdtParts(path))?.flatMap((root) => descendants(root, "text:p").map(paragraphText));
}
