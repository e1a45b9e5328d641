import { FailedPreconditionError, sleep } from "@pincer/shared";
import { z } from "zod";
import type { OsworldContext } from "../context.js";
import { compareUrls } from "../metrics/chrome/urls.js";
import { closeTarget, gotoPage, newPage } from "./pages.js";
import { DevtoolsCallError, devtoolsHttp, devtoolsUrl, listPages } from "./devtools.js";

/** OSWorld's config steps on Chrome's tabs (`chrome_open_tabs`, `chrome_close_tabs` of its setup controller). */

/** OSWorld's connection retries: 15 attempts, 5 s apart. */
async function waitForDevtools(ctx: OsworldContext): Promise<void> {
  let last: unknown;
  for (let attempt = 1; attempt <= 15; attempt++) {
    try {
      await devtoolsHttp(ctx, "GET", "/json/version");
      return;
    } catch (err) {
      // Only DevTools not answering yet is waited for; anything else (no curl, a machine that failed) ends the wait.
      if (!(err instanceof DevtoolsCallError)) throw err;
      last = err;
      if (attempt < 15) await sleep(5000, ctx.signal);
    }
  }
  throw new FailedPreconditionError(
    `Chrome's DevTools at ${devtoolsUrl(ctx)} did not answer after 15 attempts (${(last as Error).message}); the task launches Chrome with ` +
      "--remote-debugging-port=1337 and socat to forward 9222",
  );
}

/** The parameters of `chrome_open_tabs`. */
export const chromeOpenTabsParams = z.strictObject({ urls_to_open: z.array(z.string().min(1)).min(1) });

/**
 * OSWorld's `chrome_open_tabs`: opens each URL in a new tab of the running Chrome and waits up to
 * 60 s for it to load (a slow or failed page is logged, not fatal); after the first, the oldest
 * tab (the browser's default one) is closed.
 */
export async function chromeOpenTabs(p: z.infer<typeof chromeOpenTabsParams>, ctx: OsworldContext): Promise<void> {
  await waitForDevtools(ctx);
  for (const [i, url] of p.urls_to_open.entries()) {
    const page = await newPage(ctx, false);
    try {
      if ((await gotoPage(ctx, page.id, url, "load", 60_000)) === "timeout") ctx.log(`chrome_open_tabs: opening ${url} exceeds time limit`);
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      ctx.log(`chrome_open_tabs: opening ${url}: ${(err as Error).message}`);
    }
    if (i === 0) {
      const pages = await listPages(ctx);
      if (pages.length > 1) await closeTarget(ctx, pages[0]!.id);
    }
  }
}

/** The parameters of `chrome_close_tabs`. */
export const chromeCloseTabsParams = z.strictObject({ urls_to_close: z.array(z.string().min(1)).min(1) });

/** OSWorld's `chrome_close_tabs`: after 5 s, for each URL closes the first tab at that URL (compare_urls). */
export async function chromeCloseTabs(p: z.infer<typeof chromeCloseTabsParams>, ctx: OsworldContext): Promise<void> {
  await sleep(5000, ctx.signal);
  await waitForDevtools(ctx);
  for (const url of p.urls_to_close) {
    const tab = (await listPages(ctx)).find((t) => compareUrls(t.url, url));
    if (tab) await closeTarget(ctx, tab.id);
  }
}
