/** Text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * JSON to embed in `<script type="application/json">`: `<`, `>` and `&` are written as \u escapes
 * (only strings can hold them), so no text inside, `</script>` or `<!--` included, can end or
 * change the element; U+2028 and U+2029 likewise, for readers that parse it as script.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The DOM helpers every page's script has: $ (by id), el (an element with attributes and children), clear, num. */
export const VIEWER_DOM_SCRIPT = `
function $(id) { return document.getElementById(id); }

/** An element with attributes (text: its textContent) and children (nodes or strings). */
function el(tag, attrs, children) {
  var e = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (k) {
    var v = attrs[k];
    if (v === undefined || v === null || v === false) return;
    if (k === "text") e.textContent = String(v);
    else e.setAttribute(k, String(v));
  });
  (children || []).forEach(function (c) {
    if (c !== null && c !== undefined) e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  });
  return e;
}

function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }

function num(v, digits) { return typeof v === "number" && isFinite(v) ? v.toFixed(digits) : ""; }
`;

/** One self-contained viewer page: the run viewer, a comparison, task health. */
export interface ViewerPage {
  title: string;
  /** The page's Content-Security-Policy: what it may load. */
  csp: string;
  style: string;
  /** The body's markup. */
  body: string;
  /** Embedded as JSON in `<script id="pincer-data">`, for the script to read. */
  data?: unknown;
  /** The page's script: function declarations, one of them `start()`, which runs once loaded; it may use {@link VIEWER_DOM_SCRIPT}'s. */
  script?: string;
}

/** The HTML of a viewer page: nothing loaded from anywhere, the data and the script inline. */
export function viewerPage(p: ViewerPage): string {
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(p.csp)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(p.title)}</title>`,
    `<style>${p.style}</style>`,
    "</head>",
    `<body>${p.body}`,
    ...(p.data === undefined ? [] : [`<script type="application/json" id="pincer-data">${jsonForScript(p.data)}</script>`]),
    ...(p.script === undefined ? [] : [`<script>(function () {\n"use strict";\n${VIEWER_DOM_SCRIPT}\n${p.script}\nstart();\n})();</script>`]),
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
