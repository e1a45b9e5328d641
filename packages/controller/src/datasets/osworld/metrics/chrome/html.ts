import { readFile } from "node:fs/promises";
import type { AnyNode, Element } from "domhandler";
import { parseDocument } from "htmlparser2";
import { z } from "zod";
import { defineMetric, type MetricResult } from "../../metric.js";
import { fail } from "../../../../evaluators/verdict.js";
import { show } from "../common/outcome.js";
import { pyStrip } from "../../../pycompat/pyStr.js";

/**
 * OSWorld's `compare_htmls` (metrics/chrome.py): both HTML files parsed (BeautifulSoup), their
 * nodes walked in document order side by side (`recursiveChildGenerator`, as far as the shorter
 * goes); tags must have the same name, stripped text and attributes (`sdnum` left out with
 * `ignore_sdnum`), other nodes the same text. Parsed with htmlparser2 where OSWorld uses lxml's
 * HTML parser: the two agree on well-formed documents such as LibreOffice writes; lxml also
 * inserts the `html`/`body` elements a fragment leaves out.
 */

/** BeautifulSoup's attributes that hold whitespace-separated lists (compared as lists). */
const LIST_ATTRIBUTES: Record<string, string[]> = {
  "*": ["class", "accesskey", "dropzone"],
  a: ["rel", "rev"],
  link: ["rel", "rev"],
  td: ["headers"],
  th: ["headers"],
  form: ["accept-charset"],
  object: ["archive"],
  area: ["rel"],
  icon: ["sizes"],
  iframe: ["sandbox"],
  output: ["for"],
};

/** `tag.attrs` as BeautifulSoup builds it: list attributes split on whitespace. */
function attrsOf(el: Element): Record<string, string | string[]> {
  const lists = new Set([...(LIST_ATTRIBUTES["*"] ?? []), ...(LIST_ATTRIBUTES[el.name] ?? [])]);
  return Object.fromEntries(Object.entries(el.attribs).map(([k, v]) => [k, lists.has(k) ? (v.match(/\S+/g) ?? []) : v]));
}

/** `tag.text`: the text of every text node below it (comments and the like left out). */
function textOf(node: AnyNode): string {
  if (node.type === "text" || node.type === "cdata") return node.type === "text" ? node.data : (node.children as AnyNode[]).map(textOf).join("");
  if (node.type === "tag" || node.type === "script" || node.type === "style") return (node as Element).children.map(textOf).join("");
  return "";
}

/** Every node below the root in document order (tags, text, comments, the doctype). */
function walk(nodes: readonly AnyNode[], out: AnyNode[] = []): AnyNode[] {
  for (const n of nodes) {
    out.push(n);
    if ("children" in n && (n.type === "tag" || n.type === "script" || n.type === "style" || n.type === "root")) walk(n.children as AnyNode[], out);
  }
  return out;
}

const isTag = (n: AnyNode): n is Element => n.type === "tag" || n.type === "script" || n.type === "style";
/** A non-tag node as the string BeautifulSoup compares. */
const stringOf = (n: AnyNode) => ("data" in n ? String(n.data) : textOf(n));

function sameAttrs(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && JSON.stringify(a[k]) === JSON.stringify(b[k]));
}

/** `compare_elements`: undefined when the two nodes count as the same, else why not. */
function differs(a: AnyNode, b: AnyNode, ignoreSdnum: boolean): string | undefined {
  if (!isTag(a) || !isTag(b)) {
    if (isTag(a) || isTag(b)) return `a tag against text (${show(isTag(a) ? `<${a.name}>` : stringOf(a))} vs ${show(isTag(b) ? `<${b.name}>` : stringOf(b))})`;
    return stringOf(a) === stringOf(b) ? undefined : `text ${show(stringOf(a))} vs ${show(stringOf(b))}`;
  }
  if (a.name !== b.name) return `<${a.name}> vs <${b.name}>`;
  const ta = pyStrip(textOf(a));
  const tb = pyStrip(textOf(b));
  if (ta !== tb) return `<${a.name}> text ${show(ta)} vs ${show(tb)}`;
  const aa = attrsOf(a);
  const ab = attrsOf(b);
  if (sameAttrs(aa, ab)) return undefined;
  if (ignoreSdnum) {
    const { sdnum: _a, ...ra } = aa;
    const { sdnum: _b, ...rb } = ab;
    return sameAttrs(ra, rb) ? undefined : `<${a.name}> attributes ${show(ra)} vs ${show(rb)}`;
  }
  return `<${a.name}> attributes ${show(aa)} vs ${show(ab)}`;
}

/** `compare_htmls(result, expected, ignore_sdnum)`. */
export const compareHtmls = defineMetric({
  name: "compare_htmls",
  options: z.strictObject({ ignore_sdnum: z.unknown().optional() }),
  async run(result, expected, options): Promise<MetricResult> {
    if (typeof result !== "string" || typeof expected !== "string") return fail(`no ${typeof result !== "string" ? "result" : "expected"} HTML file`);
    let texts: [string, string];
    try {
      texts = [await readFile(result, "utf8"), await readFile(expected, "utf8")];
    } catch (e) {
      return fail(`cannot read the HTML files: ${(e as Error).message}`);
    }
    const [n1, n2] = texts.map((t) => walk(parseDocument(t, { decodeEntities: true }).children)) as [AnyNode[], AnyNode[]];
    const ignore =
      options.ignore_sdnum !== undefined &&
      options.ignore_sdnum !== null &&
      options.ignore_sdnum !== false &&
      options.ignore_sdnum !== 0 &&
      options.ignore_sdnum !== "";
    for (let i = 0; i < Math.min(n1.length, n2.length); i++) {
      const why = differs(n1[i]!, n2[i]!, ignore);
      if (why) return fail(`node ${i + 1}: ${why}`);
    }
    return 1;
  },
});
