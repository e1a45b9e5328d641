import { type AnyNode, type Comment, Element, type Text } from "domhandler";
import { parseDocument } from "htmlparser2";

/**
 * `lxml.html.tostring(lxml.html.fromstring(data), pretty_print=True, encoding="unicode")` as lxml 4.9
 * with libxml2 2.9 gives it, for the HTML of e-book chapters: parsed by libxml2's HTML parser (names
 * lowercased, every whitespace text inside the root kept, `<x/>` closing the element), `fromstring`'s
 * choice of what to return (the `html` element, or for a fragment its single element or the body
 * renamed `div`/`span`), and libxml2's HTML serialiser (`htmlNodeDumpFormatOutput`): void elements
 * without an end tag, and a line break only where a known block element starts or ends next to
 * another element, never inside `p`, `pre` or `param`. Parsed here with htmlparser2, which agrees
 * with libxml2 on well-formed documents (it does not imply the `html`/`body` elements libxml2 adds
 * around loose content, nor repair misnested tags as libxml2 does).
 */

/** libxml2's HTML 4 elements that are not inline (`isinline` 0 in `html40ElementTable`). */
const BLOCK = new Set(
  (
    "address area base blockquote body caption center col colgroup dd dir div dl dt fieldset form frame frameset h1 h2 h3 h4 h5 h6 " +
    "head hr html isindex legend li link menu meta noframes noscript ol optgroup option p param pre style table tbody td tfoot th " +
    "thead title tr ul"
  ).split(" "),
);
/** Inline elements libxml2 knows (others, HTML5's `section` say, get no line breaks either). */
const VOID = new Set("area base basefont br col frame hr img input isindex link meta param".split(" "));
/** lxml.html's `block_tags`, which make a fragment's body a `div` rather than a `span`. */
const LXML_BLOCK_TAGS = new Set(
  "address blockquote center dir div dl fieldset form h1 h2 h3 h4 h5 h6 hr isindex menu noframes noscript ol p pre table ul".split(" "),
);
const BOOLEAN_ATTRS = new Set("checked compact declare defer disabled ismap multiple nohref noresize noshade nowrap readonly selected".split(" "));

const isElement = (n: AnyNode | undefined): n is Element => n !== undefined && (n.type === "tag" || n.type === "script" || n.type === "style");
const isText = (n: AnyNode | undefined) => n !== undefined && n.type === "text";
const isBlank = (s: string | undefined) => s === undefined || /^[ \t\n\r]*$/.test(s);

/**
 * The text libxml2 parses from these bytes (given as the string they decode to as UTF-8): UTF-8 when
 * they start with an XML declaration or a byte order mark, or declare a charset before their first
 * non-ASCII character; otherwise Latin-1 (libxml2's HTML default), each byte one character.
 */
function asLibxmlReads(text: string): string {
  let firstNonAscii = 0;
  while (firstNonAscii < text.length && text.charCodeAt(firstNonAscii) < 0x80) firstNonAscii++;
  if (firstNonAscii === text.length) return text;
  if (/^(\ufeff|<\?xm)/.test(text) || /charset\s*=/i.test(text.slice(0, firstNonAscii))) return text;
  return Buffer.from(text, "utf8").toString("latin1");
}

/** The nodes the serialiser writes: text, comments and elements. */
const written = (nodes: AnyNode[]) => nodes.filter((c) => c.type === "text" || c.type === "comment" || isElement(c));

/** The document's `html` element; loose content is put in `html`/`body` elements, as libxml2 implies them. */
function rootOf(text: string): Element | undefined {
  const doc = parseDocument(text, { lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true, decodeEntities: true });
  const html = doc.children.find((n): n is Element => isElement(n) && n.name === "html");
  if (html) return html;
  const loose = written(doc.children);
  while (loose.length && isText(loose[0]) && isBlank((loose[0] as Text).data)) loose.shift();
  if (loose.length === 0) return undefined;
  // Text with no element open: libxml2 opens a paragraph for it.
  if (isText(loose[0])) loose[0] = new Element("p", {}, [loose[0]]);
  return new Element("html", {}, [new Element("body", {}, loose)]);
}

/** What `lxml.html.fromstring` returns for this document (see the module's comment). */
function fromstring(text: string): AnyNode[] {
  const root = rootOf(text);
  if (!root) return [];
  if (/^\s*<(?:html|!doctype)/i.test(text)) return [root];
  const kids = root.children.filter(isElement);
  if (kids.some((k) => k.name === "head")) return [root];
  const body = kids.find((k) => k.name === "body");
  if (!body) return [root];
  const children = written(body.children);
  const elements = children.filter((c) => !isText(c));
  const only = elements[0];
  if (elements.length === 1 && isElement(only)) {
    const at = children.indexOf(only);
    const tail = children[at + 1];
    if (children.slice(0, at).every((t) => isBlank((t as Text).data)) && (!tail || isBlank((tail as Text).data))) return tail ? [only, tail] : [only];
  }
  const blockInside = (e: Element): boolean => e.children.some((c) => isElement(c) && (LXML_BLOCK_TAGS.has(c.name) || blockInside(c)));
  body.name = blockInside(body) ? "div" : "span";
  return [body];
}

const escapeText = (s: string) => s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll("\r", "&#13;");
/** libxml2's `xmlBufWriteQuotedString`: double quotes, single ones around a value with `"` only, else `"` as `&quot;`. */
function quoteAttr(value: string): string {
  const v = escapeText(value);
  if (!v.includes('"')) return `"${v}"`;
  return v.includes("'") ? `"${v.replaceAll('"', "&quot;")}"` : `'${v}'`;
}
const startsWithP = (e: Element | undefined) => e?.name.startsWith("p") === true;

/** libxml2's `htmlNodeDumpFormatOutput(..., format=1)` of one node whose next written sibling is `next`. */
function dump(node: AnyNode, parent: Element | undefined, next: AnyNode | undefined, out: string[]): void {
  if (node.type === "text") {
    out.push(parent && (parent.name === "script" || parent.name === "style") ? (node as Text).data : escapeText((node as Text).data));
    return;
  }
  if (node.type === "comment") {
    out.push(`<!--${(node as Comment).data}-->`);
    return;
  }
  if (!isElement(node)) return;
  node.name = node.name.slice(node.name.indexOf(":") + 1);
  const block = BLOCK.has(node.name);
  const attrs = Object.entries(node.attribs).map(([k, v]) => (BOOLEAN_ATTRS.has(k) ? ` ${k}` : ` ${k}=${quoteAttr(v)}`));
  out.push(`<${node.name}${attrs.join("")}`);
  const kids = written(node.children);
  if (VOID.has(node.name)) out.push(">");
  else if (kids.length === 0) out.push(node.name === "li" ? ">" : `></${node.name}>`);
  else {
    out.push(">");
    const breaks = block && kids.length > 1 && !startsWithP(node);
    if (breaks && !isText(kids[0])) out.push("\n");
    for (const [i, k] of kids.entries()) dump(k, node, kids[i + 1], out);
    if (breaks && !isText(kids[kids.length - 1])) out.push("\n");
    out.push(`</${node.name}>`);
  }
  if (block && next && !isText(next) && parent && !startsWithP(parent)) out.push("\n");
}

/** The pretty-printed HTML of these bytes (given decoded as UTF-8), as lxml prints it; "" when there is no element. */
export function lxmlPrettyHtml(text: string): string {
  const nodes = fromstring(asLibxmlReads(text));
  const out: string[] = [];
  for (const n of nodes) dump(n, undefined, undefined, out);
  return out.length ? `${out.join("")}\n` : "";
}
