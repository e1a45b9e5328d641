import { XMLParser } from "fast-xml-parser";

/**
 * A small element tree over fast-xml-parser's ordered output, the way lxml/ElementTree see an
 * Office part: elements in document order, text kept verbatim, namespace prefixes rewritten to the
 * conventional ones (`a:`, `p:`, `r:`, `w:`, `oor:`, and OpenDocument's `office:`, `text:`) whatever
 * prefix the file declared.
 */

/** One XML element: its canonical tag (`a:p`), attributes (canonical prefixes) and children. */
export interface XEl {
  tag: string;
  attrs: Record<string, string>;
  kids: (XEl | string)[];
}

const CANONICAL: Record<string, string> = {
  "http://schemas.openxmlformats.org/drawingml/2006/main": "a",
  "http://schemas.openxmlformats.org/presentationml/2006/main": "p",
  "http://schemas.openxmlformats.org/officeDocument/2006/relationships": "r",
  "http://schemas.openxmlformats.org/wordprocessingml/2006/main": "w",
  "http://schemas.openxmlformats.org/package/2006/relationships": "",
  "http://schemas.openxmlformats.org/markup-compatibility/2006": "mc",
  "http://openoffice.org/2001/registry": "oor",
  "urn:oasis:names:tc:opendocument:xmlns:office:1.0": "office",
  "urn:oasis:names:tc:opendocument:xmlns:text:1.0": "text",
  "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0": "manifest",
};

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  trimValues: false,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  htmlEntities: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

type Raw = Record<string, unknown>;

function canonical(name: string, scope: Map<string, string>, isAttr: boolean): string {
  const colon = name.indexOf(":");
  const prefix = colon < 0 ? "" : name.slice(0, colon);
  const local = colon < 0 ? name : name.slice(colon + 1);
  if (prefix === "xml" || (isAttr && prefix === "")) return name;
  const uri = scope.get(prefix);
  const known = uri === undefined ? undefined : CANONICAL[uri];
  if (known === undefined) return name;
  return known === "" ? local : `${known}:${local}`;
}

function convert(node: Raw, parentScope: Map<string, string>): XEl | string | undefined {
  if ("#text" in node) return String(node["#text"]);
  const tag = Object.keys(node).find((k) => k !== ":@");
  if (tag === undefined || tag.startsWith("?") || tag === "#comment") return undefined;
  const rawAttrs = (node[":@"] ?? {}) as Record<string, unknown>;
  let scope = parentScope;
  for (const [k, v] of Object.entries(rawAttrs)) {
    if (k === "xmlns" || k.startsWith("xmlns:")) {
      if (scope === parentScope) scope = new Map(parentScope);
      scope.set(k === "xmlns" ? "" : k.slice(6), String(v));
    }
  }
  const attrs: Record<string, string> = {};
  for (const [k, v] of Object.entries(rawAttrs)) {
    if (k !== "xmlns" && !k.startsWith("xmlns:")) attrs[canonical(k, scope, true)] = String(v);
  }
  const kids: (XEl | string)[] = [];
  for (const child of (node[tag] ?? []) as Raw[]) {
    const c = convert(child, scope);
    if (c !== undefined) kids.push(c);
  }
  return { tag: canonical(tag, scope, false), attrs, kids };
}

/** Parses an XML document to its root element; throws when it is not well-formed. */
export function parseXml(text: string): XEl {
  const nodes = parser.parse(text) as Raw[];
  for (const n of nodes) {
    const el = convert(n, new Map());
    if (el !== undefined && typeof el !== "string") return el;
  }
  throw new Error("no root element");
}

/** The element children of `el`, optionally only those with tag `tag`. */
export function kids(el: XEl | undefined, tag?: string): XEl[] {
  if (!el) return [];
  return el.kids.filter((k): k is XEl => typeof k !== "string" && (tag === undefined || k.tag === tag));
}

/** The first element child of `el` with tag `tag`. */
export function kid(el: XEl | undefined, tag: string): XEl | undefined {
  return el?.kids.find((k): k is XEl => typeof k !== "string" && k.tag === tag);
}

/** Follows a path of child tags (`kidPath(sp, "p:spPr", "a:xfrm")`). */
export function kidPath(el: XEl | undefined, ...tags: string[]): XEl | undefined {
  let cur = el;
  for (const t of tags) cur = kid(cur, t);
  return cur;
}

/** Every descendant of `el` with tag `tag`, in document order (ElementTree's `.//tag`). */
export function descendants(el: XEl | undefined, tag: string): XEl[] {
  const out: XEl[] = [];
  const walk = (e: XEl) => {
    for (const k of e.kids) {
      if (typeof k === "string") continue;
      if (k.tag === tag) out.push(k);
      walk(k);
    }
  };
  if (el) walk(el);
  return out;
}

/** ElementTree's `.text` of a leaf element: its text, or `null` when it has none (`<a:t/>`). */
export function leafText(el: XEl): string | null {
  const s = el.kids.filter((k): k is string => typeof k === "string").join("");
  return s === "" ? null : s;
}
