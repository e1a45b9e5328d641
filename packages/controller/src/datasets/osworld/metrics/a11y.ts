import { DOMParser } from "@xmldom/xmldom";
import { selectAll } from "css-select";
import { parse as parseCss, type Selector, SelectorType } from "css-what";
import type { AnyNode, Document as HtmlDocument, Element as HtmlElement } from "domhandler";
import { parseDocument } from "htmlparser2";
import xpath from "xpath";
import { z } from "zod";
import { UBUNTU_A11Y_NAMESPACES } from "../accessibilityTree.js";
import { defineMetric, type MetricResult, type OsworldMetric } from "../metric.js";
import { fail, pass } from "../../../evaluators/verdict.js";
import { show } from "./common/outcome.js";
import { fuzzRatio } from "../../pycompat/similarity.js";
import { pyTruthy } from "../../pycompat/pyValues.js";

/**
 * OSWorld's metrics on the accessibility tree's XML: `check_accessibility_tree` (general.py), with
 * XPath 1.0 (lxml's `xpath`) or CSS selectors (lxml's `CSSSelector`) and OSWorld's namespaces, and
 * `check_left_panel` (slides.py).
 */

/** `_accessibility_ns_map` of general.py, by `osname`. */
export const A11Y_NAMESPACES: Readonly<Record<"ubuntu" | "windows" | "macos", Readonly<Record<string, string>>>> = {
  ubuntu: UBUNTU_A11Y_NAMESPACES,
  windows: Object.fromEntries(
    ["st/state", "attr/attributes", "cp/component", "doc/document", "docattr/document/attributes", "txt/text", "val/value", "act/action", "class/class"].map(
      (e) => [e.split("/")[0]!, `https://accessibility.windows.example.org/ns/${e.slice(e.indexOf("/") + 1)}`],
    ),
  ),
  macos: Object.fromEntries(
    ["st/state", "attr/attributes", "cp/component", "doc/document", "txt/text", "val/value", "act/action", "role/role"].map((e) => [
      e.split("/")[0]!,
      `https://accessibility.macos.example.org/ns/${e.slice(e.indexOf("/") + 1)}`,
    ]),
  ),
};

/** One rule of `check_accessibility_tree` (the `rule` getter's list). */
const ruleSchema = z.looseObject({
  xpath: z.string().optional(),
  selectors: z.array(z.string()).optional(),
  text: z.string().optional(),
  /** Read for its truth, as Python's `if r["exact"]`: 1 is exact, 0 and null are fuzzy. */
  exact: z.unknown().optional(),
});
type Rule = z.infer<typeof ruleSchema>;

/** What a rule selected: elements with their text (lxml's `.text`, `null` when none), or other XPath values. */
type Selected = Array<{ text: string | null } | { other: string }>;

/** lxml's `element.text`: the text and CDATA nodes before the first child element, `null` when there are none. */
function leadingText(nodes: ArrayLike<{ nodeType: number; nodeValue: string | null }>): string | null {
  let text: string | null = null;
  for (let i = 0; i < nodes.length && (nodes[i]!.nodeType === 3 || nodes[i]!.nodeType === 4); i++) text = (text ?? "") + (nodes[i]!.nodeValue ?? "");
  return text;
}

/** lxml's `at.xpath(expr, namespaces=...)` from the root element. */
function byXpath(xml: string, expr: string, ns: Readonly<Record<string, string>>): Selected {
  const doc = new DOMParser().parseFromString(xml, "text/xml");
  const root = doc.documentElement;
  if (!root) throw new Error("the accessibility tree is not XML");
  const found: unknown = xpath.useNamespaces({ ...ns })(expr, root as never);
  // A string result counts as its characters (Python's len), which have no .text.
  if (typeof found === "string") return Array.from(found, (c) => ({ other: c }));
  if (!Array.isArray(found)) throw new Error(`check_accessibility_tree: the xpath ${show(expr)} gives ${show(found)}, not a list (Python's len() raises)`);
  return found.map((n: { nodeType: number; nodeValue: string | null; childNodes: ArrayLike<{ nodeType: number; nodeValue: string | null }> }) =>
    n.nodeType === 1 ? { text: leadingText(n.childNodes) } : { other: String(n.nodeValue) },
  );
}

/** The namespace declarations of the document (prefix → URI), from every element. */
function declaredPrefixes(doc: HtmlDocument): Map<string, string[]> {
  const byUri = new Map<string, string[]>();
  const visit = (n: AnyNode) => {
    if (n.type !== "tag") return;
    for (const [k, v] of Object.entries((n as HtmlElement).attribs)) {
      if (!k.startsWith("xmlns:")) continue;
      const list = byUri.get(v) ?? [];
      if (!list.includes(k.slice(6))) list.push(k.slice(6));
      byUri.set(v, list);
    }
    for (const c of (n as HtmlElement).children) visit(c);
  };
  for (const c of doc.children) visit(c);
  return byUri;
}

/** An attribute name no element carries (a space is not allowed in XML names). */
const NEVER = "never matches";

/**
 * Rewrites `prefix|name` (cssselect's namespaced type and attribute selectors) to the document's
 * own qualified names: the prefix names a URI in OSWorld's map, which the document binds to its
 * prefixes (the parser keeps `q:name` as the attribute's name).
 */
function resolveNamespaces(sel: Selector[][], ns: Readonly<Record<string, string>>, doc: Map<string, string[]>): Selector[][] {
  const qualified = (prefix: string, name: string): string[] => {
    const uri = ns[prefix];
    if (uri === undefined) throw new Error(`check_accessibility_tree: undefined namespace prefix ${show(prefix)} in a selector`);
    const prefixes = doc.get(uri) ?? [];
    return prefixes.length === 0 ? [NEVER] : prefixes.map((q) => `${q}:${name}`);
  };
  const one = (t: Selector): Selector => {
    if (t.type === "pseudo" && Array.isArray(t.data)) return { ...t, data: resolveNamespaces(t.data, ns, doc) };
    if ((t.type !== "attribute" && t.type !== "tag" && t.type !== "universal") || t.namespace === null || t.namespace === undefined) return t;
    if (t.namespace === "*") {
      if (t.type === "attribute") throw new Error("check_accessibility_tree: the any-namespace attribute selector [*|name] is not supported");
      return { ...t, namespace: null };
    }
    if (t.type === "universal") throw new Error(`check_accessibility_tree: the selector ${t.namespace}|* is not supported`);
    const names = qualified(t.namespace, t.name);
    const alternatives = names.map((name) => [{ ...t, name, namespace: null }]);
    return alternatives.length === 1 ? alternatives[0]![0]! : ({ type: SelectorType.Pseudo, name: "is", data: alternatives } as Selector);
  };
  return sel.map((s) => s.map(one));
}

/** lxml's `CSSSelector(", ".join(selectors), namespaces=...)(at)`: the root element and its descendants. */
function bySelectors(xml: string, selectors: readonly string[], ns: Readonly<Record<string, string>>): Selected {
  const doc = parseDocument(xml, { xmlMode: true });
  const sel = resolveNamespaces(parseCss(selectors.join(", ")), ns, declaredPrefixes(doc));
  return selectAll(sel, doc, { xmlMode: true }).map((e) => {
    const nodes = e.children.map((c) =>
      c.type === "text"
        ? { nodeType: 3, nodeValue: c.data }
        : c.type === "cdata"
          ? { nodeType: 4, nodeValue: c.children.map((t) => ("data" in t ? t.data : "")).join("") }
          : { nodeType: 1, nodeValue: null },
    );
    return { text: leadingText(nodes) };
  });
}

/** One rule's score: 0 when nothing is selected, else 1 or the best text match. */
function ruleScore(xml: string, r: Rule, ns: Readonly<Record<string, string>>): { score: number; reason: string } {
  let found: Selected;
  let what: string;
  if (r.xpath !== undefined) [found, what] = [byXpath(xml, r.xpath, ns), `xpath ${show(r.xpath, 400)}`];
  else if (r.selectors !== undefined) [found, what] = [bySelectors(xml, r.selectors, ns), `selectors ${show(r.selectors.join(", "), 400)}`];
  else throw new Error("check_accessibility_tree: a rule needs xpath or selectors");
  if (found.length === 0) return fail(`no element matches ${what}`);
  if (r.text === undefined) return pass("");
  if (r.exact === undefined) throw new Error('check_accessibility_tree: a rule with "text" needs "exact" (OSWorld reads r["exact"])');
  let best = 0;
  for (const f of found) {
    if (!("text" in f)) throw new Error(`check_accessibility_tree: ${what} selects ${show(f.other)}, which has no text (not an element)`);
    const text = f.text || null; // `elm.text or None`
    const m = pyTruthy(r.exact) ? Number(text === r.text) : text === null ? 0 : fuzzRatio(r.text, text) / 100;
    best = Math.max(best, m);
  }
  return { score: best, reason: best < 1 ? `${what}: best text match ${best.toFixed(3)} for ${show(r.text)}` : "" };
}

/** `check_accessibility_tree(result, rules, osname)`: the product of every rule's score. */
async function checkAccessibilityTree(result: unknown, expected: unknown, o: { osname: "ubuntu" | "windows" | "macos" }): Promise<MetricResult> {
  if (typeof result !== "string") return fail("no accessibility tree was read");
  const parsed = z.array(ruleSchema).safeParse(expected);
  if (!parsed.success) throw new Error(`check_accessibility_tree: the rules must be a list of {xpath | selectors, text, exact}: ${parsed.error.message}`);
  let total = 1;
  const reasons: string[] = [];
  for (const [i, r] of parsed.data.entries()) {
    const { score, reason } = ruleScore(result, r, A11Y_NAMESPACES[o.osname]);
    const which = parsed.data.length > 1 ? `rule ${i + 1} of ${parsed.data.length}: ` : "";
    if (score === 0) return fail(which + reason);
    total *= score;
    if (reason) reasons.push(which + reason);
  }
  return total >= 1 ? 1 : fail(reasons.join("; "), total);
}

/** `check_left_panel`: 1 when a `document-frame` named "Slides View" (Impress's slide pane) is in the tree. */
async function checkLeftPanel(result: unknown): Promise<MetricResult> {
  if (typeof result !== "string") return fail("no accessibility tree was read");
  const doc = new DOMParser().parseFromString(result, "text/xml");
  const frames = Array.from(doc.getElementsByTagName("document-frame")).filter((e) => !e.namespaceURI);
  if (frames.some((e) => e.getAttribute("name") === "Slides View")) return 1;
  return fail('no document-frame named "Slides View": the slide pane is not open');
}

/** OSWorld's accessibility-tree metrics. */
export const a11yMetrics: OsworldMetric[] = [
  defineMetric({
    name: "check_accessibility_tree",
    options: z.strictObject({ osname: z.enum(["ubuntu", "windows", "macos"]).default("ubuntu") }),
    run: checkAccessibilityTree,
  }),
  defineMetric({ name: "check_left_panel", options: z.strictObject({}), run: checkLeftPanel }),
];
