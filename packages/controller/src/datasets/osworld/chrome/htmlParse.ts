import { z } from "zod";
import type { OsworldContext } from "../context.js";
import { defineGetter, type OsworldGetter } from "../getter.js";
import { pyInt } from "../../pycompat/pyNumbers.js";
import { pyStrip } from "../../pycompat/pyStr.js";
import { unquote } from "../../pycompat/pyUrl.js";
import { activeUrl } from "./activeUrl.js";
import { listPages } from "./devtools.js";
import { connectBrowser, pageTitleAndUrl, waitForLoadState } from "./pages.js";
import { type ProbeAnswer, type ProbeQuery, probePage } from "./pageProbe.js";

/**
 * OSWorld's `active_tab_html_parse` (getters/chrome.py): finds the open tab at the active URL
 * (the address bar's), and reads texts from it by class, label, XPath or form input into a dict
 * of the task's keys. What OSWorld's "safe" helpers swallow (a failed query) counts as no match.
 */

const objects = z.record(z.string(), z.unknown());
const config = z.looseObject({
  goto_prefix: z.unknown().optional(),
  category: z.string(),
  class_multiObject: objects.optional(),
  class_multiObject_child: objects.optional(),
  class_multiObject_only_child: objects.optional(),
  class_multiObject_search_exist: objects.optional(),
  class_multiObject_li: objects.optional(),
  class_singleObject: objects.optional(),
  labelObject: objects.optional(),
  xpathObject: objects.optional(),
  inputObject: objects.optional(),
  url_include_expected: z.array(z.string()).optional(),
  url_include_expected_multichoice: z.record(z.string(), z.string()).optional(),
});
type Config = z.infer<typeof config>;

/** Python's `int(order)` of an index key. */
function pyIndex(order: string): number {
  const i = pyInt(order);
  if (i === undefined) throw new Error(`active_tab_html_parse: index ${JSON.stringify(order)} is not an integer (OSWorld raises ValueError)`);
  return i;
}

/** `texts[index] if len(texts) > index else ""`, with Python's negative indexes (one past the start raises). */
function pick(texts: readonly unknown[], order: string): unknown {
  const i = pyIndex(order);
  if (texts.length > i) {
    const at = i < 0 ? texts.length + i : i;
    if (at < 0) throw new Error(`active_tab_html_parse: index ${i} of ${texts.length} texts (OSWorld raises IndexError)`);
    return texts[at];
  }
  return "";
}

const stripAll = (v: unknown) => (Array.isArray(v) ? v.filter((t) => t !== null).map((t) => pyStrip(String(t))) : []);
const ok = (a: ProbeAnswer | undefined) => (a && "value" in a ? a.value : undefined);

/** The queries a config asks, keyed so the answers can be found again. */
function queriesOf(c: Config): Map<string, ProbeQuery> {
  const q = new Map<string, ProbeQuery>();
  const classes = (o: Record<string, unknown> | undefined, op: "texts" | "ownTexts" | "h3Texts" | "spanTexts", suffix = "") => {
    for (const cls of Object.keys(o ?? {})) q.set(`${op}:${cls}`, { op, css: `.${cls}${suffix}` });
  };
  if (c.category === "class") {
    classes(c.class_multiObject, "texts");
    classes(c.class_multiObject_child, "ownTexts");
    classes(c.class_multiObject_only_child, "h3Texts");
    classes(c.class_multiObject_search_exist, "texts");
    classes(c.class_singleObject, "texts");
  } else if (c.category === "label") {
    for (const label of Object.keys(c.labelObject ?? {})) q.set(`label:${label}`, { op: "labelText", text: label });
  } else if (c.category === "xpath") {
    for (const xpath of Object.keys(c.xpathObject ?? {})) {
      q.set(`xpath:${xpath}`, { op: "first", xpath });
      // Playwright reads a selector without a prefix as XPath when it starts with // or .., else as CSS.
      q.set(`fallback:${xpath}`, xpath.startsWith("//") || xpath.startsWith("..") ? { op: "first", xpath } : { op: "first", css: xpath });
    }
  } else if (c.category === "input") {
    for (const xpath of Object.keys(c.inputObject ?? {})) q.set(`input:${xpath}`, { op: "inputValue", xpath });
  } else if (c.category === "class&url") {
    classes(c.class_multiObject, "texts");
    classes(c.class_multiObject_li, "spanTexts", " li.catAllProducts");
    q.set("url", { op: "url" });
  }
  return q;
}

/** OSWorld's `class` and `class&url` categories, from the answers. */
function byClass(c: Config, a: (key: string) => unknown, out: Map<string, unknown>): void {
  if (c.category === "class") {
    for (const [cls, keys] of Object.entries(c.class_multiObject ?? {})) {
      const texts = stripAll(a(`texts:${cls}`));
      for (const [order, key] of Object.entries(keys as Record<string, string>)) out.set(key, pick(texts, order));
    }
    for (const [cls, keys] of Object.entries(c.class_multiObject_child ?? {})) {
      const first = (a(`ownTexts:${cls}`) as unknown[][] | undefined)?.[0] ?? [];
      for (const [order, key] of Object.entries(keys as Record<string, string>)) out.set(key, pick(first, order));
    }
    for (const [cls, keys] of Object.entries(c.class_multiObject_only_child ?? {})) {
      const texts = stripAll(a(`h3Texts:${cls}`));
      for (const [order, key] of Object.entries(keys as Record<string, string>)) out.set(key, pick(texts, order));
    }
    for (const [cls, list] of Object.entries(c.class_multiObject_search_exist ?? {})) {
      const texts = stripAll(a(`texts:${cls}`));
      const wanted = list as string[];
      for (const w of wanted) if (w !== "is_other_exist") out.set(w, texts.includes(w));
      if (wanted.includes("is_other_exist")) {
        for (const t of texts) if (!wanted.includes(t)) out.set("is_other_exist", true);
        if (!out.has("is_other_exist")) out.set("is_other_exist", false);
      }
    }
    for (const [cls, key] of Object.entries(c.class_singleObject ?? {})) out.set(key as string, stripAll(a(`texts:${cls}`))[0] ?? "");
    return;
  }
  // class&url
  const others = (texts: string[], keys: string[]) => {
    for (const k of keys) if (texts.some((t) => t.toLowerCase() === k.toLowerCase())) out.set(k.toLowerCase(), true);
    if (texts.some((t) => keys.every((k) => !k.toLowerCase().includes(t.toLowerCase())))) out.set("is_other_exist", true);
    if (!out.has("is_other_exist")) out.set("is_other_exist", false);
  };
  for (const [cls, keys] of Object.entries(c.class_multiObject ?? {})) others(stripAll(a(`texts:${cls}`)), keys as string[]);
  for (const [cls, keys] of Object.entries(c.class_multiObject_li ?? {})) others(stripAll(a(`spanTexts:${cls}`)), keys as string[]);
  const url = String(a("url") ?? "").toLowerCase();
  for (const key of c.url_include_expected ?? []) if (!out.has(key.toLowerCase())) out.set(key.toLowerCase(), url.includes(key.toLowerCase()));
  for (const [key, value] of Object.entries(c.url_include_expected_multichoice ?? {})) {
    if (!out.has(value.toLowerCase())) out.set(value.toLowerCase(), url.includes(key.toLowerCase()));
  }
}

/** The dict OSWorld builds from the page's answers. */
export function htmlParseResult(c: Config, answers: ReadonlyMap<string, ProbeAnswer>): Record<string, unknown> {
  const a = (key: string) => ok(answers.get(key));
  const out = new Map<string, unknown>();
  const first = (v: unknown) => v as { count: number; text?: string | null; value?: string } | undefined;
  if (c.category === "class" || c.category === "class&url") byClass(c, a, out);
  else if (c.category === "label") {
    for (const [label, key] of Object.entries(c.labelObject ?? {})) {
      const text = a(`label:${label}`);
      out.set(key as string, typeof text === "string" && text !== "" ? pyStrip(text) : "");
    }
  } else if (c.category === "xpath") {
    for (const [xpath, key] of Object.entries(c.xpathObject ?? {})) {
      const hit = first(a(`xpath:${xpath}`)) ?? { count: 0 };
      const found = hit.count > 0 ? hit : (first(a(`fallback:${xpath}`)) ?? { count: 0 });
      const text = typeof found.text === "string" ? pyStrip(found.text) : "";
      out.set(key as string, found.count > 0 ? text : "");
    }
  } else if (c.category === "input") {
    for (const [xpath, key] of Object.entries(c.inputObject ?? {})) {
      const hit = first(a(`input:${xpath}`));
      out.set(key as string, hit && hit.count > 0 && typeof hit.value === "string" ? pyStrip(hit.value) : "");
    }
  }
  return Object.fromEntries(out);
}

/** `unquote(url).rstrip('/')`, as OSWorld compares the tab's URL with the address bar's. */
const normalize = (url: string) => unquote(url).replace(/\/+$/, "");

async function activeTabHtmlParse(c: Config, ctx: OsworldContext): Promise<unknown> {
  const url = await activeUrl(ctx, c.goto_prefix);
  if (url === null) return null;
  await connectBrowser(ctx, "active_tab_html_parse");
  let target: string | undefined;
  for (const t of await listPages(ctx)) {
    try {
      // A tab not network-idle within 60 s is passed over (OSWorld catches its TimeoutError).
      if (!(await waitForLoadState(ctx, t.id, "networkidle", 60_000))) continue;
      if (normalize((await pageTitleAndUrl(ctx, t.id)).url) === normalize(url)) {
        target = t.id;
        break;
      }
    } catch (err) {
      if (ctx.signal.aborted) throw err;
    }
  }
  if (target === undefined) {
    ctx.log(`active_tab_html_parse: no open tab is at ${url}`);
    return {};
  }
  const queries = queriesOf(c);
  const answers = await probePage(ctx, target, [...queries.values()]);
  const byKey = new Map([...queries.keys()].map((k, i) => [k, answers[i]!]));
  for (const [k, v] of byKey) if ("error" in v) ctx.log(`active_tab_html_parse: ${k}: ${v.error}`);
  return htmlParseResult(c, byKey);
}

/** The `active_tab_html_parse` getter. */
export const activeTabHtmlParseGetter: OsworldGetter = defineGetter({ name: "active_tab_html_parse", config, get: activeTabHtmlParse });
