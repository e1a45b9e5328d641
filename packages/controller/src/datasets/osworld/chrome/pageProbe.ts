import type { OsworldContext } from "../context.js";
import { evaluateInPage } from "./devtools.js";

/**
 * Reads elements of an open page the way OSWorld's getters do with Playwright locators: CSS that
 * also looks into open shadow roots, XPath, and Playwright's lax `text=` matching (case-insensitive,
 * whitespace collapsed, the innermost elements that contain the text). Every query is answered in
 * one evaluation; one that fails gives `{ error }` and leaves the others alone.
 */

/** One question about the page. */
export type ProbeQuery =
  /** Each matching element's `textContent`. */
  | { op: "texts"; css: string }
  /** Each matching element's own text nodes, trimmed, without empty ones. */
  | { op: "ownTexts"; css: string }
  /** For each match, the `innerText` of its first `span` (null when it has none). */
  | { op: "spanTexts"; css: string }
  /** For each match, the `textContent` of its first `h3` (null when it has none). */
  | { op: "h3Texts"; css: string }
  /** The `textContent` of the first element a `text=` locator finds (null when none). */
  | { op: "labelText"; text: string }
  /** How many nodes an XPath (or, when `css`, a CSS selector) selects, and the first one's `textContent`. */
  | { op: "first"; xpath?: string; css?: string }
  /** How many nodes an XPath selects, and the first one's form value (`input_value()`; raises for other elements). */
  | { op: "inputValue"; xpath: string }
  /** The page's URL. */
  | { op: "url" };

/** The answer to one query, or why it failed. */
export type ProbeAnswer = { value: unknown } | { error: string };

// Runs in the page: answers each query (see ProbeQuery).
const PROBE = `(queries) => {
  const deep = (css) => {
    const found = [];
    const walk = (node) => {
      for (const el of node.children) {
        if (el.matches(css)) found.push(el);
        if (el.shadowRoot) walk(el.shadowRoot);
        walk(el);
      }
    };
    walk(document);
    return found;
  };
  const xpathNodes = (xpath) => {
    const r = document.evaluate(xpath, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    const out = [];
    for (let i = 0; i < r.snapshotLength; i++) out.push(r.snapshotItem(i));
    return out;
  };
  const norm = (s) => s.replace(/\\s+/g, ' ').trim().toLowerCase();
  const skipped = (el) => ['SCRIPT', 'NOSCRIPT', 'STYLE'].includes(el.nodeName) || (document.head && document.head.contains(el));
  const byText = (text) => {
    const want = norm(text);
    const has = (el) => !skipped(el) && norm(el.textContent || '').includes(want);
    const found = [];
    const walk = (node) => {
      for (const el of node.children) {
        if (has(el) && ![...el.children].some(has)) found.push(el);
        if (el.shadowRoot) walk(el.shadowRoot);
        walk(el);
      }
    };
    walk(document);
    return found;
  };
  const answer = (q) => {
    switch (q.op) {
      case 'texts': return deep(q.css).map((e) => e.textContent);
      case 'ownTexts':
        return deep(q.css).map((e) => [...e.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent.trim()).filter(Boolean));
      case 'spanTexts': return deep(q.css).map((e) => { const s = e.querySelector('span'); return s ? s.innerText : null; });
      case 'h3Texts': return deep(q.css).map((e) => { const h = e.querySelector('h3'); return h ? h.textContent : null; });
      case 'labelText': { const e = byText(q.text)[0]; return e ? e.textContent : null; }
      case 'first': {
        const n = q.xpath !== undefined ? xpathNodes(q.xpath) : deep(q.css);
        return { count: n.length, text: n.length ? n[0].textContent : null };
      }
      case 'inputValue': {
        const n = xpathNodes(q.xpath);
        if (!n.length) return { count: 0 };
        const e = n[0];
        if (!['INPUT', 'TEXTAREA', 'SELECT'].includes(e.nodeName)) throw new Error('Node is not an <input>, <textarea> or <select> element');
        return { count: n.length, value: e.value };
      }
      case 'url': return location.href;
    }
    throw new Error('unknown query ' + q.op);
  };
  return queries.map((q) => { try { return { value: answer(q) }; } catch (e) { return { error: String(e && e.message || e) }; } });
}`;

/** Answers the queries on the open page `targetId`, in order. */
export async function probePage(ctx: OsworldContext, targetId: string, queries: readonly ProbeQuery[]): Promise<ProbeAnswer[]> {
  const out = await evaluateInPage(ctx, targetId, `(${PROBE})(${JSON.stringify(queries)})`, 60_000);
  if (!Array.isArray(out) || out.length !== queries.length) throw new Error("the page did not answer the probe");
  return out as ProbeAnswer[];
}
