import { z } from "zod";
import type { AccessibleNode } from "../../../env/accessibility.js";
import { osworldRoleName, readTree, xmlElementText } from "../accessibilityTree.js";
import type { OsworldContext } from "../context.js";
import { defineGetter, type OsworldGetter } from "../getter.js";
import { pyTruthy } from "../../pycompat/pyValues.js";
import { parseQs, unquote, urlparse } from "../../pycompat/pyUrl.js";
import { browserCommand } from "./browser.js";
import { pyInt } from "../../pycompat/pyNumbers.js";

/**
 * OSWorld's getters of the active tab's URL (getters/chrome.py): `active_url_from_accessTree`
 * reads the browser's address bar from the accessibility tree (Playwright cannot tell which tab
 * is active), and `active_tab_url_parse`, `url_dashPart` and `url_path_parse` take parts of it.
 */

/** The entries `application[name=<browser>] entry[name="Address and search bar"]` selects, in document order. */
function addressBars(apps: readonly AccessibleNode[], appName: string): AccessibleNode[] {
  const out: AccessibleNode[] = [];
  const visit = (n: AccessibleNode) => {
    for (const c of n.children) {
      if (osworldRoleName(c.role) === "entry" && c.name === "Address and search bar") out.push(c);
      visit(c);
    }
  };
  for (const app of apps) if (osworldRoleName(app.role) === "application" && app.name === appName) visit(app);
  return out;
}

/** Python's f-string of a config value (`None` for null). */
const pyFormat = (v: unknown) => (v === null ? "None" : String(v));

/**
 * `get_active_url_from_accessTree`: `goto_prefix` (default "https://") and the text of the first
 * address bar of the browser's application ("Google Chrome", or "Chromium" where it stands in),
 * or `null` when there is none or the last one is empty.
 */
export async function activeUrl(ctx: OsworldContext, gotoPrefix: unknown): Promise<string | null> {
  const appName = (await browserCommand(ctx)) === "google-chrome" ? "Google Chrome" : "Chromium";
  const bars = addressBars(await readTree(ctx, "active_url_from_accessTree", appName), appName);
  if (bars.length === 0) {
    ctx.log(`active_url_from_accessTree: no address bar of ${appName} in the accessibility tree`);
    return null;
  }
  if (xmlElementText(bars[bars.length - 1]!) === null) {
    ctx.log("active_url_from_accessTree: the address bar is empty");
    return null;
  }
  return `${pyFormat(gotoPrefix === undefined ? "https://" : gotoPrefix)}${pyFormat(xmlElementText(bars[0]!))}`;
}

const urlGetterConfig = z.looseObject({ goto_prefix: z.unknown().optional() });

/**
 * `active_tab_url_parse`: the first value of each of `parse_keys` in the URL's query ("" when
 * absent), renamed by `replace`, split on "," with `split_list`.
 */
function urlQueryParts(url: string, c: { parse_keys: string[]; replace?: Record<string, string>; split_list?: unknown }): unknown {
  const query = parseQs(urlparse(url).query);
  const out = new Map<string, string>(c.parse_keys.map((k) => [k, query.get(k)?.[0] ?? ""]));
  for (const [from, to] of Object.entries(c.replace ?? {})) {
    if (!out.has(from)) throw new Error(`active_tab_url_parse: replace names ${JSON.stringify(from)}, which is not in parse_keys (OSWorld raises KeyError)`);
    const value = out.get(from)!;
    out.delete(from);
    out.set(to, value);
  }
  const splitting = pyTruthy(c.split_list);
  return Object.fromEntries([...out].map(([k, v]) => [k, splitting ? v.split(",") : v]));
}

/** Macy's filter path (`/shop/mens-clothing/…/Key1,Key2/Value1,Value2`) as OSWorld's `url_path_parse` reads it. */
function macysParts(url: string, parseKeys: string[]): Record<string, unknown> {
  const path = unquote(urlparse(url).path);
  const result: Record<string, unknown> = { mens_clothing: path.includes("mens-clothing") ? true : null };
  const parts = path.replace(/^\/+|\/+$/g, "").split("/");
  const kv: Record<string, unknown> = {};
  let shirts = path.includes("shirts");
  let shortSleeve = path.includes("short-sleeve");
  for (let i = 0; i < parts.length - 1; i++) {
    if (!parts[i]!.includes(",") || !parts[i + 1]!.includes(",")) continue;
    const keys = parts[i]!.split(",").map((k) => k.trim());
    const values = parts[i + 1]!.split(",").map((v) => v.trim());
    for (let j = 0; j < Math.min(keys.length, values.length); j++) {
      const [k, v] = [keys[j]!, values[j]!];
      kv[k] = k === "Price_discount_range" ? (v ? v.split("|").map((x) => x.trim()) : null) : v || null;
      if (k === "Product_department" && ["shirts", "Shirts", "Shirt"].includes(v)) shirts = true;
      if (k === "Sleeve_length" && ["short-sleeve", "Short Sleeve"].includes(v)) shortSleeve = true;
    }
    break;
  }
  for (const f of ["Men_regular_size_t", "Price_discount_range"]) if (!Object.hasOwn(kv, f)) kv[f] = null;
  result.shirts = shirts ? true : null;
  result.short_sleeve = shortSleeve ? true : null;
  for (const key of parseKeys) {
    if (!Object.hasOwn(kv, key)) continue;
    if (key === "Price_discount_range") {
      const ranges = kv[key] as string[] | null;
      const fifty = ranges?.includes("50_PERCENT_ off & more") && !ranges.includes("30_PERCENT_ off & more") && !ranges.includes("20_PERCENT_ off & more");
      result[key] = fifty ? "50_PERCENT_ off & more" : "not_50_PERCENT_ off & more";
    } else result[key] = kv[key];
  }
  return result;
}

/** The getters on the active tab's URL. */
export const activeUrlGetters: OsworldGetter[] = [
  defineGetter({ name: "active_url_from_accessTree", config: urlGetterConfig, get: (c, ctx) => activeUrl(ctx, c.goto_prefix) }),
  defineGetter({
    name: "active_tab_url_parse",
    config: urlGetterConfig.extend({
      parse_keys: z.array(z.string()),
      replace: z.record(z.string(), z.string()).optional(),
      split_list: z.unknown().optional(),
    }),
    get: async (c, ctx) => {
      const url = await activeUrl(ctx, c.goto_prefix);
      return url === null ? null : urlQueryParts(url, c);
    },
  }),
  defineGetter({
    name: "url_dashPart",
    config: urlGetterConfig.extend({
      partIndex: z.unknown(),
      needDeleteId: z.unknown().optional(),
      returnType: z.string(),
      key: z.string().optional(),
    }),
    get: async (c, ctx) => {
      const url = await activeUrl(ctx, c.goto_prefix);
      if (url === null) return null;
      if (c.partIndex === undefined) throw new Error('url_dashPart: give "partIndex" (OSWorld raises KeyError)');
      const index = pyInt(c.partIndex);
      const parts = url.split("/");
      if (index === undefined || index >= parts.length) {
        ctx.log(`url_dashPart: part ${JSON.stringify(c.partIndex)} of ${url} does not exist`);
        return null;
      }
      // A negative index past the start raises IndexError in OSWorld (uncaught).
      if (index < -parts.length) throw new Error(`url_dashPart: part ${index} of ${url} does not exist (OSWorld raises IndexError)`);
      let part = parts[index < 0 ? parts.length + index : index]!;
      if (pyTruthy(c.needDeleteId)) part = part.split("?")[0]!;
      if (c.returnType === "string") return part;
      if (c.returnType === "json") {
        if (c.key === undefined) throw new Error('url_dashPart: returnType "json" needs "key" (OSWorld raises KeyError)');
        return { [c.key]: part };
      }
      ctx.log(`url_dashPart: returnType ${JSON.stringify(c.returnType)} is neither "string" nor "json"`);
      return null;
    },
  }),
  // OSWorld registers the Macy's parser under both names.
  ...["url_path_parse", "macys_product_url_parse"].map((name) =>
    defineGetter({
      name,
      config: urlGetterConfig.extend({ parse_keys: z.array(z.string()) }),
      get: async (c, ctx) => {
        const url = await activeUrl(ctx, c.goto_prefix);
        return url === null ? null : macysParts(url, c.parse_keys);
      },
    }),
  ),
];
