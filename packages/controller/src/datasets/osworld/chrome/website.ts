import { sleep } from "@pincer/shared";
import { z } from "zod";
import type { OsworldContext } from "../context.js";
import { defineGetter, type OsworldGetter } from "../getter.js";
import { attributeOf, clickElement, fillElement, innerTextOf } from "./elements.js";
import { connectBrowser, gotoPage, newPage, type OpenedPage, pageTitleAndUrl, waitForLoadState } from "./pages.js";

/**
 * OSWorld's getters that visit a live website for the expected value (getters/chrome.py):
 * `info_from_website` reads texts and attributes (clicking through links first where asked), with
 * the task's `backups` when anything fails; `gotoRecreationPage_and_get_html_content` searches
 * recreation.gov.
 */

const info = z.looseObject({
  action: z.string().default("inner_text"),
  selector: z.union([z.string(), z.array(z.string())]),
  attribute: z.string().optional(),
});
const infoConfig = z.looseObject({ url: z.string().min(1), infos: z.array(info).default([]), backups: z.unknown().optional() });

/** Playwright's default timeout (ms) for navigations and waits without one. */
const PLAYWRIGHT_DEFAULT_MS = 30_000;

async function loadOrThrow(ctx: OsworldContext, page: OpenedPage, url: string): Promise<void> {
  if ((await gotoPage(ctx, page.id, url, "load", PLAYWRIGHT_DEFAULT_MS)) === "timeout")
    throw new Error(`loading ${url}: timeout ${PLAYWRIGHT_DEFAULT_MS} ms exceeded`);
}

/** Clicks through every selector but the last (each click followed by a wait for the load event), and returns the last. */
async function clickThrough(ctx: OsworldContext, page: OpenedPage, selectors: string | string[]): Promise<string> {
  const list = typeof selectors === "string" ? Array.from(selectors) : selectors;
  for (const sel of list.slice(0, -1)) {
    await clickElement(ctx, page.id, sel, "attached", 10_000);
    if (!(await waitForLoadState(ctx, page.id, "load", PLAYWRIGHT_DEFAULT_MS))) throw new Error("the page did not load after the click");
  }
  const last = list[list.length - 1];
  if (last === undefined) throw new Error("no selector to read");
  return last;
}

/**
 * `get_info_from_website`: opens `url` in a new tab of the browser (left open), and for each of
 * `infos` (back at `url` first when the tab moved) reads the element's `innerText` or attribute,
 * after clicking through the selectors before the last for the `click_and_*` actions. Anything
 * failing gives `backups`.
 */
async function infoFromWebsite(c: z.infer<typeof infoConfig>, ctx: OsworldContext): Promise<unknown> {
  try {
    await connectBrowser(ctx, "info_from_website");
    const page = await newPage(ctx, false);
    await loadOrThrow(ctx, page, c.url);
    const out: unknown[] = [];
    for (const i of c.infos) {
      if ((await pageTitleAndUrl(ctx, page.id)).url !== c.url) await loadOrThrow(ctx, page, c.url);
      if (i.action === "inner_text") out.push(await innerTextOf(ctx, page.id, i.selector as string, 10_000));
      else if (i.action === "attribute") out.push(await attributeOf(ctx, page.id, i.selector as string, String(i.attribute), 10_000));
      else if (i.action === "click_and_inner_text") out.push(await innerTextOf(ctx, page.id, await clickThrough(ctx, page, i.selector), 10_000));
      else if (i.action === "click_and_attribute")
        out.push(await attributeOf(ctx, page.id, await clickThrough(ctx, page, i.selector), String(i.attribute), PLAYWRIGHT_DEFAULT_MS));
      else throw new Error(`the action ${i.action} is not supported yet`);
    }
    return out;
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    ctx.log(`info_from_website: ${(err as Error).message}; using the backups`);
    return c.backups ?? null;
  }
}

const FAILED = "__EVALUATION_FAILED__";

/**
 * `get_gotoRecreationPage_and_get_html_content`, as OSWorld's code runs: recreation.gov opened in an
 * isolated page, "Diamond" searched, 10 s waited; then OSWorld reads `popup_info`, which its code
 * never assigns (the step that would open the result is unreachable), so every attempt fails, and
 * after three (5 s apart) it returns its failure marker, which makes the metric score 0.
 */
async function recreationPage(_c: unknown, ctx: OsworldContext): Promise<unknown> {
  let last = "";
  for (let attempt = 1; attempt <= 3; attempt++) {
    let page: OpenedPage | undefined;
    try {
      await connectBrowser(ctx, "gotoRecreationPage_and_get_html_content");
      page = await newPage(ctx, true);
      let opened = false;
      for (const url of ["https://www.recreation.gov/", "http://www.recreation.gov/", "https://recreation.gov/"]) {
        for (const state of ["domcontentloaded", "load", "networkidle"] as const) {
          try {
            opened = (await gotoPage(ctx, page.id, url, state, 60_000)) === "ok";
          } catch (err) {
            if (ctx.signal.aborted) throw err;
          }
          if (opened) break;
        }
        if (opened) break;
      }
      if (!opened) throw new Error("Failed to navigate to any recreation.gov URL variant");
      await waitForLoadState(ctx, page.id, "networkidle", 30_000);
      await fillElement(ctx, page.id, "input#hero-search-input", "Diamond", 60_000);
      await clickElement(ctx, page.id, "button.nav-search-button", "visible", 60_000);
      await sleep(10_000, ctx.signal);
      throw new Error("name 'popup_info' is not defined");
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      last = (err as Error).message;
      ctx.log(`gotoRecreationPage_and_get_html_content: attempt ${attempt}/3 failed: ${last}`);
      if (attempt < 3) await sleep(5000, ctx.signal);
    } finally {
      await page?.close();
    }
  }
  return { expected: { error: FAILED, error_message: `Failed after 3 attempts: ${last}` } };
}

/** The website getters. */
export const websiteGetters: OsworldGetter[] = [
  defineGetter({ name: "info_from_website", config: infoConfig, get: infoFromWebsite }),
  defineGetter({ name: "gotoRecreationPage_and_get_html_content", config: z.looseObject({}), get: recreationPage }),
];
