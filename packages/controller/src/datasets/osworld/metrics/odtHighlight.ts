import { z } from "zod";
import { defineMetric, type OsworldMetric, scoreOf } from "../metric.js";
import { fail } from "../../../evaluators/verdict.js";
import { show } from "./common/outcome.js";
import { docsMetrics } from "./docs.js";
import { readOdtParts } from "./office/odt.js";
import { PythonWouldRaise } from "./office/package.js";
import { descendants, kids, type XEl } from "./office/xml.js";

/**
 * OSWorld's `check_highlighted_words` (docs.py) on OpenDocument texts, read as odfpy loads them:
 * content.xml then styles.xml (each when the manifest lists it), their `office:automatic-styles`
 * gathered into one list, and the spans of the body and of the master pages (headers, footers).
 */

/** The children of `office:automatic-styles` odfpy can ask for a `name` (each allows `style:name`). */
const NAMED = new Set(
  ["style:style", "style:page-layout", "text:list-style"].concat(
    ["boolean", "currency", "date", "number", "percentage", "text", "time"].map((k) => `number:${k}-style`),
  ),
);
/** The properties elements that allow `fo:background-color`; asking any other child for it raises. */
const WITH_BACKGROUND = new Set(
  ["graphic", "header-footer", "page-layout", "paragraph", "section", "table-cell", "table", "table-row", "text"].map((k) => `style:${k}-properties`),
);

/** The spans and the automatic styles of an .odt, or undefined when odfpy cannot load it. */
async function readSpansAndStyles(path: string): Promise<{ spans: XEl[]; styles: (XEl | string)[] } | undefined> {
  const roots = await readOdtParts(path);
  if (!roots) return undefined;
  const spans: XEl[] = [];
  const styles: (XEl | string)[] = [];
  for (const top of roots.flatMap((root) => kids(root))) {
    if (top.tag === "office:automatic-styles") styles.push(...top.kids);
    if (top.tag === "office:body" || top.tag === "office:master-styles") spans.push(...descendants(top, "text:span"));
  }
  return { spans, styles };
}

/** The first yellow (`#ffff00`) background an automatic style gives a span, as OSWorld's loops look for it. */
function firstHighlight(spans: XEl[], styles: (XEl | string)[]): string | undefined {
  for (const span of spans) {
    const name = span.attrs["text:style-name"];
    if (!name) continue;
    let highlighted = false;
    for (const style of styles) {
      if (typeof style === "string") throw new PythonWouldRaise("a text node among the automatic styles has no getAttribute (AttributeError)");
      if (!NAMED.has(style.tag)) throw new PythonWouldRaise(`odfpy cannot ask ${style.tag} for a name`);
      if (style.attrs["style:name"] !== name) continue;
      for (const prop of style.kids) {
        if (typeof prop === "string") throw new PythonWouldRaise(`text inside style ${show(name)} has no getAttribute (AttributeError)`);
        if (!WITH_BACKGROUND.has(prop.tag)) throw new PythonWouldRaise(`${prop.tag} of style ${show(name)} has no fo:background-color (ValueError)`);
        if (prop.attrs["fo:background-color"] === "#ffff00") {
          highlighted = true;
          break;
        }
      }
    }
    if (highlighted) return name;
  }
  return undefined;
}

/**
 * `check_highlighted_words(file_path1, file_path2)`: the texts match as `compare_docx_files` (with
 * its defaults) compares them, and no span of the result has an automatic style whose properties give
 * it the background `#ffff00`.
 */
const checkHighlightedWords = defineMetric({
  name: "check_highlighted_words",
  options: z.strictObject({}),
  async run(result, expected) {
    if (typeof result !== "string" || typeof expected !== "string" || !result || !expected) return fail("a document is missing");
    const compare = docsMetrics.find((m) => m.name === "compare_docx_files")!;
    const same = scoreOf(await compare.run(result, expected, compare.options.parse({})));
    if (same.score === 0) return fail(`the text differs from the expected document's: ${same.reason}`);
    const doc = await readSpansAndStyles(result);
    if (!doc) return fail(`${result} is not a readable .odt`);
    try {
      const style = firstHighlight(doc.spans, doc.styles);
      return style === undefined ? 1 : fail(`text is still highlighted in yellow (automatic style ${show(style)})`);
    } catch (e) {
      if (e instanceof PythonWouldRaise) return fail(`OSWorld's check_highlighted_words would raise here: ${e.message}`);
      throw e;
    }
  },
});

/** OSWorld's highlight metric on .odt documents. */
export const odtHighlightMetrics: OsworldMetric[] = [checkHighlightedWords];
