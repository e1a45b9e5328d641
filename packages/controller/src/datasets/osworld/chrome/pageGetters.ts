import { join } from "node:path";
import { sleep } from "@pincer/shared";
import { z } from "zod";
import { destName, writeCacheFile } from "../cacheFiles.js";
import type { OsworldContext } from "../context.js";
import { defineGetter, type OsworldGetter } from "../getter.js";
import { activeUrl } from "./activeUrl.js";
import { cdpExchange, devtoolsHttp, listPages } from "./devtools.js";
import { connectBrowser, gotoPage, newPage, pageContent, pageTitleAndUrl, waitForLoadState } from "./pages.js";
import { probePage } from "./pageProbe.js";

/**
 * OSWorld's Chrome getters that read pages over CDP (getters/chrome.py): the open tabs, the active
 * tab reloaded in a fresh context, a page by URL, and a page printed to PDF. Their retries and
 * fallback values are OSWorld's.
 */

/** Runs `body` up to `attempts` times, `pauseMs` apart; after the last failure returns `fallback`. */
async function withRetries<T>(ctx: OsworldContext, what: string, attempts: number, pauseMs: number, fallback: T, body: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await body();
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      ctx.log(`${what}: attempt ${attempt}/${attempts} failed: ${(err as Error).message}`);
      if (attempt >= attempts) return fallback;
      await sleep(pauseMs, ctx.signal);
    }
  }
}

/**
 * `get_open_tabs_info`: each tab's title and URL once it is network-idle (30 s each; "Load
 * timeout" or "Error encountered" as its title otherwise); `[]` when the browser does not answer.
 */
async function openTabsInfo(ctx: OsworldContext): Promise<Array<{ title: string; url: string }>> {
  return withRetries(ctx, "open_tabs_info", 2, 3000, [], async () => {
    try {
      await connectBrowser(ctx, "open_tabs_info");
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      ctx.log(`open_tabs_info: ${(err as Error).message}`);
      return [];
    }
    const tabs: Array<{ title: string; url: string }> = [];
    for (const t of await listPages(ctx)) {
      try {
        if (!(await waitForLoadState(ctx, t.id, "networkidle", 30_000))) tabs.push({ title: "Load timeout", url: t.url });
        else tabs.push(await pageTitleAndUrl(ctx, t.id));
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        ctx.log(`open_tabs_info: reading ${t.url}: ${(err as Error).message}`);
        tabs.push({ title: "Error encountered", url: t.url });
      }
    }
    return tabs;
  });
}

/**
 * `get_active_tab_info`: the active tab's URL (from the address bar) opened again in a new,
 * isolated page, once loaded (60 s): its title, URL and HTML; `null` when there is no URL, the
 * browser does not answer, or the page cannot be opened.
 */
async function activeTabInfo(c: { goto_prefix?: unknown }, ctx: OsworldContext): Promise<unknown> {
  const url = await activeUrl(ctx, c.goto_prefix);
  if (url === null) return null;
  return withRetries(ctx, "active_tab_info", 2, 3000, null, async () => {
    try {
      await devtoolsHttp(ctx, "GET", "/json/version");
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      ctx.log(`active_tab_info: cannot connect to Chrome: ${(err as Error).message}`);
      return null;
    }
    const page = await newPage(ctx, true);
    try {
      let loaded: "ok" | "timeout";
      try {
        loaded = await gotoPage(ctx, page.id, url, "load", 60_000);
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        ctx.log(`active_tab_info: ${(err as Error).message}`);
        return null;
      }
      const { title, url: at } = await pageTitleAndUrl(ctx, page.id);
      return { title: loaded === "ok" ? title : "Load timeout", url: at, content: await pageContent(ctx, page.id) };
    } finally {
      await page.close();
    }
  });
}

/**
 * `get_page_info`: `url` opened in a new tab of the browser (its cookies), once network-idle
 * (60 s): title, URL and HTML; after two failed attempts, `{title: "Connection failed"}`.
 */
async function pageInfo(c: { url: string }, ctx: OsworldContext): Promise<unknown> {
  return withRetries(ctx, "page_info", 2, 3000, { title: "Connection failed", url: c.url, content: "" }, async () => {
    await connectBrowser(ctx, "page_info");
    const page = await newPage(ctx, false);
    try {
      if ((await gotoPage(ctx, page.id, c.url, "networkidle", 60_000)) === "timeout") throw new Error(`loading ${c.url} took more than 60 s`);
      const { title, url } = await pageTitleAndUrl(ctx, page.id);
      return { title, url, content: await pageContent(ctx, page.id) };
    } finally {
      await page.close();
    }
  });
}

/** The bytes OSWorld writes when it cannot print the page. */
const EMPTY_PDF = "%PDF-1.4\n%EOF\n";

/**
 * `get_pdf_from_url`: `path` (a URL) opened in a new, isolated page, network-idle (60 s) and 3 s
 * more, printed as Playwright's `page.pdf()` prints (Letter, no margins, no backgrounds) into the
 * cache folder as `dest`; after three failed attempts, a PDF with no pages.
 */
async function pdfFromUrl(c: { path: string; dest: string }, ctx: OsworldContext): Promise<string> {
  const local = join(ctx.cacheDir, c.dest);
  const written = await withRetries(ctx, "pdf_from_url", 3, 5000, false, async () => {
    await connectBrowser(ctx, "pdf_from_url");
    const page = await newPage(ctx, true);
    try {
      if ((await gotoPage(ctx, page.id, c.path, "networkidle", 60_000)) === "timeout") throw new Error(`loading ${c.path} took more than 60 s`);
      await sleep(3000, ctx.signal);
      const printed = await cdpExchange(
        ctx,
        `/devtools/page/${page.id}`,
        [
          {
            method: "Page.printToPDF",
            params: { paperWidth: 8.5, paperHeight: 11, marginTop: 0, marginBottom: 0, marginLeft: 0, marginRight: 0, printBackground: false, scale: 1 },
          },
        ],
        { timeoutMs: 60_000 },
      );
      const data = printed.results[0]?.data;
      if (typeof data !== "string") throw new Error("printing the page took more than 60 s");
      await writeCacheFile(ctx, c.dest, Buffer.from(data, "base64"), "dest");
      return true;
    } finally {
      await page.close();
    }
  });
  if (!written) await writeCacheFile(ctx, c.dest, EMPTY_PDF, "dest");
  return local;
}

/**
 * `get_chrome_saved_address`: chrome://settings/addresses opened in a new page, once network-idle
 * (30 s): its HTML; "" after two failed attempts. OSWorld opens it in a new browser context;
 * Chromium crashes on a settings page there, so Pincer opens it in the browser's own context,
 * whose settings a settings page shows in any case.
 */
async function chromeSavedAddress(ctx: OsworldContext): Promise<string> {
  return withRetries(ctx, "chrome_saved_address", 2, 3000, "", async () => {
    await connectBrowser(ctx, "chrome_saved_address");
    const page = await newPage(ctx, false);
    try {
      if ((await gotoPage(ctx, page.id, "chrome://settings/addresses", "networkidle", 30_000)) === "timeout")
        throw new Error("the settings page took more than 30 s");
      return await pageContent(ctx, page.id);
    } finally {
      await page.close();
    }
  });
}

/**
 * `get_number_of_search_results`: how many `.search-result` elements Google's results for "query"
 * show, in a new, isolated page once network-idle (45 s); 0 after two failed attempts.
 */
async function numberOfSearchResults(ctx: OsworldContext): Promise<number> {
  return withRetries(ctx, "number_of_search_results", 2, 3000, 0, async () => {
    await connectBrowser(ctx, "number_of_search_results");
    const page = await newPage(ctx, true);
    try {
      if ((await gotoPage(ctx, page.id, "https://google.com/search?q=query", "networkidle", 45_000)) === "timeout")
        throw new Error("the results took more than 45 s");
      const [answer] = await probePage(ctx, page.id, [{ op: "texts", css: ".search-result" }]);
      if (!answer || "error" in answer) throw new Error(answer ? answer.error : "no answer");
      return (answer.value as unknown[]).length;
    } finally {
      await page.close();
    }
  });
}

/** The getters reading pages. */
export const chromePageGetters: OsworldGetter[] = [
  defineGetter({ name: "open_tabs_info", config: z.looseObject({}), get: (_c, ctx) => openTabsInfo(ctx) }),
  defineGetter({ name: "active_tab_info", config: z.looseObject({ goto_prefix: z.unknown().optional() }), get: activeTabInfo }),
  defineGetter({ name: "page_info", config: z.looseObject({ url: z.string().min(1) }), get: pageInfo }),
  defineGetter({ name: "pdf_from_url", config: z.looseObject({ path: z.string().min(1), dest: destName }), get: pdfFromUrl }),
  defineGetter({ name: "chrome_saved_address", config: z.looseObject({}), get: (_c, ctx) => chromeSavedAddress(ctx) }),
  defineGetter({ name: "number_of_search_results", config: z.looseObject({}), get: (_c, ctx) => numberOfSearchResults(ctx) }),
];
