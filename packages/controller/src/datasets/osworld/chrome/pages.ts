import { sleep } from "@pincer/shared";
import type { OsworldContext } from "../context.js";
import { CdpError, cdpExchange, type CdpMessage, devtoolsHttp, evaluateInPage, type Target } from "./devtools.js";
import { launchBrowser } from "./browser.js";

/**
 * What OSWorld's getters do with Playwright over CDP, done with DevTools commands: connect (or
 * start the browser when nothing answers), open a tab (in the browser's own context or in a new,
 * isolated one as `browser.new_page()` does), navigate and wait for a load state, read a page.
 */

/** Playwright's load states, and the Chrome lifecycle events that mark them ("networkidle" is "load" and then network quiet). */
export type LoadState = "load" | "domcontentloaded" | "networkidle";
const LIFECYCLE: Record<LoadState, string> = { load: "load", domcontentloaded: "DOMContentLoaded", networkidle: "load" };

// Runs in the page: resolves once no resource has finished loading for 500 ms (Playwright's
// "networkidle" is no request for 500 ms; finished resources are what a page can see of it).
const NETWORK_QUIET = `new Promise((resolve) => {
  let seen = performance.getEntriesByType("resource").length;
  let since = Date.now();
  const timer = setInterval(() => {
    const now = performance.getEntriesByType("resource").length;
    if (now !== seen) { seen = now; since = Date.now(); }
    else if (Date.now() - since >= 500) { clearInterval(timer); resolve(true); }
  }, 50);
})`;

/** After "load", waits for the network to be quiet (the rest of "networkidle"); false when the time ran out. */
async function networkQuiet(ctx: OsworldContext, id: string, deadline: number): Promise<boolean> {
  const left = deadline - Date.now();
  if (left <= 0) return false;
  try {
    await evaluateInPage(ctx, id, NETWORK_QUIET, left);
    return true;
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    if (err instanceof Error && /took more than/.test(err.message)) return false;
    throw err;
  }
}

const pagePath = (id: string) => `/devtools/page/${id}`;

/**
 * OSWorld's `connect_over_cdp`, and on failure its fallback: start the browser with
 * `--remote-debugging-port=1337`, wait 5 s and connect again. Throws when it still does not answer.
 */
export async function connectBrowser(ctx: OsworldContext, purpose: string): Promise<void> {
  try {
    await devtoolsHttp(ctx, "GET", "/json/version");
    return;
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    ctx.log(`${purpose}: cannot connect to Chrome (${(err as Error).message}); starting it`);
  }
  await launchBrowser(ctx, ["--remote-debugging-port=1337"]);
  await sleep(5000, ctx.signal);
  await devtoolsHttp(ctx, "GET", "/json/version");
}

/** A tab Pincer opened, and how to close it again. */
export interface OpenedPage {
  id: string;
  close(): Promise<void>;
}

/**
 * A new blank tab: in the browser's default context (`contexts[0].new_page()`, sharing the
 * profile's cookies), or `isolated` in a new browser context (`browser.new_page()`: no cookies),
 * which `close()` disposes with its page.
 */
export async function newPage(ctx: OsworldContext, isolated: boolean): Promise<OpenedPage> {
  if (!isolated) {
    const t = (await devtoolsHttp(ctx, "PUT", "/json/new?about:blank")) as Target;
    return { id: t.id, close: () => closeTarget(ctx, t.id) };
  }
  const version = (await devtoolsHttp(ctx, "GET", "/json/version")) as { webSocketDebuggerUrl?: string };
  const browser = new URL(version.webSocketDebuggerUrl ?? "ws://127.0.0.1/devtools/browser").pathname;
  const created = await cdpExchange(ctx, browser, [{ method: "Target.createBrowserContext" }], { timeoutMs: 15_000 });
  const contextId = created.results[0]?.browserContextId as string;
  const target = await cdpExchange(ctx, browser, [{ method: "Target.createTarget", params: { url: "about:blank", browserContextId: contextId } }], {
    timeoutMs: 15_000,
  });
  const id = target.results[0]?.targetId as string;
  return {
    id,
    close: async () => {
      await cdpExchange(ctx, browser, [{ method: "Target.disposeBrowserContext", params: { browserContextId: contextId } }], { timeoutMs: 15_000 }).catch(
        (e: Error) => ctx.log(`closing an isolated page: ${e.message}`),
      );
    },
  };
}

/** Closes a tab and waits (5 s at most) until the browser no longer lists it, as Playwright's `page.close()` does; a failure is only logged. */
export async function closeTarget(ctx: OsworldContext, id: string): Promise<void> {
  try {
    await devtoolsHttp(ctx, "GET", `/json/close/${id}`);
    for (const until = Date.now() + 5000; Date.now() < until; ) {
      const targets = (await devtoolsHttp(ctx, "GET", "/json/list")) as Target[];
      if (!targets.some((t) => t.id === id)) return;
      await sleep(100, ctx.signal);
    }
  } catch (e) {
    if (ctx.signal.aborted) throw e;
    ctx.log(`closing tab ${id}: ${(e as Error).message}`);
  }
}

const reached = (events: readonly CdpMessage[], id: string, state: LoadState, loaderId?: unknown) =>
  events.some(
    (e) =>
      e.method === "Page.lifecycleEvent" &&
      e.params?.frameId === id &&
      e.params?.name === LIFECYCLE[state] &&
      (loaderId === undefined || e.params?.loaderId === loaderId),
  );

/**
 * Playwright's `page.wait_for_load_state(state, timeout)` on an open tab: true once reached, false
 * when the time ran out. The document's own `readyState` tells (Chrome does not replay every
 * lifecycle event of a document loaded before one listens); a navigation under way is waited out.
 */
export async function waitForLoadState(ctx: OsworldContext, id: string, state: LoadState, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  const ready = state === "domcontentloaded" ? "document.readyState !== 'loading'" : "document.readyState === 'complete'";
  const wait = `new Promise((resolve) => {
    const ok = () => ${ready};
    if (ok()) return resolve(true);
    const t = setInterval(() => { if (ok()) { clearInterval(t); resolve(true); } }, 50);
  })`;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return false;
    try {
      await evaluateInPage(ctx, id, wait, left);
      break;
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      if (err instanceof Error && /took more than/.test(err.message)) return false;
      // The document went away under a navigation: ask the next one.
      if (!(err instanceof CdpError) || !/context|navigat/i.test(err.message)) throw err;
      await sleep(100, ctx.signal);
    }
  }
  return state === "networkidle" ? networkQuiet(ctx, id, deadline) : true;
}

/**
 * Playwright's `page.goto(url, wait_until=state, timeout)`: "ok" once the new document reaches the
 * state, "timeout" when the time runs out first; a failed navigation (`net::ERR_…`) throws.
 */
export async function gotoPage(ctx: OsworldContext, id: string, url: string, state: LoadState, timeoutMs: number): Promise<"ok" | "timeout"> {
  const deadline = Date.now() + timeoutMs;
  const calls = [
    { method: "Page.enable" },
    { method: "Page.setLifecycleEventsEnabled", params: { enabled: true } },
    { method: "Page.navigate", params: { url } },
  ];
  const out = await cdpExchange(ctx, pagePath(id), calls, {
    timeoutMs,
    until: (events, results) => {
      const nav = results[2];
      return nav !== undefined && (nav.errorText !== undefined || reached(events, id, state, nav.loaderId));
    },
  });
  const error = out.results[2]?.errorText;
  if (typeof error === "string" && error !== "") throw new Error(`navigating to ${url}: ${error}`);
  if (out.timedOut) return "timeout";
  return state !== "networkidle" || (await networkQuiet(ctx, id, deadline)) ? "ok" : "timeout";
}

/**
 * {@link evaluateInPage} in the page's current document: when a navigation destroys the document
 * it ran in (a fresh tab going from about:blank to its URL), it runs again in the next one, for up
 * to `timeoutMs`, as Playwright evaluates in the frame's new context.
 */
export async function evaluateInDocument(ctx: OsworldContext, id: string, expression: string, timeoutMs = 10_000): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await evaluateInPage(ctx, id, expression);
    } catch (err) {
      if (ctx.signal.aborted || !(err instanceof CdpError) || !/context|navigat/i.test(err.message) || Date.now() >= deadline) throw err;
      await sleep(100, ctx.signal);
    }
  }
}

/** Playwright's `page.content()`: the doctype and the document element's HTML. */
export async function pageContent(ctx: OsworldContext, id: string): Promise<string> {
  const html = await evaluateInDocument(
    ctx,
    id,
    "(() => (document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '') +" +
      " (document.documentElement ? document.documentElement.outerHTML : ''))()",
  );
  return typeof html === "string" ? html : "";
}

/** Playwright's `page.title()` and `page.url`. */
export async function pageTitleAndUrl(ctx: OsworldContext, id: string): Promise<{ title: string; url: string }> {
  const v = (await evaluateInDocument(ctx, id, "({ title: document.title, url: location.href })")) as { title?: string; url?: string } | undefined;
  return { title: v?.title ?? "", url: v?.url ?? "" };
}
