import type { OsworldContext } from "../context.js";
import { cdpExchange, type CdpMessage, devtoolsHttp, evaluateInPage, type Target } from "./devtools.js";
import { launchBrowser } from "./browser.js";

/**
 * What OSWorld's getters do with Playwright over CDP, done with DevTools commands: connect (or
 * start the browser when nothing answers), open a tab (in the browser's own context or in a new,
 * isolated one as `browser.new_page()` does), navigate and wait for a load state, read a page.
 */

/** Playwright's load states and the Chrome lifecycle events that mark them. */
export type LoadState = "load" | "domcontentloaded" | "networkidle";
const LIFECYCLE: Record<LoadState, string> = { load: "load", domcontentloaded: "DOMContentLoaded", networkidle: "networkIdle" };

const pagePath = (id: string) => `/devtools/page/${id}`;

async function sleep(ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  await new Promise((r) => setTimeout(r, ms));
}

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

/** Closes a tab; a failure is only logged. */
export async function closeTarget(ctx: OsworldContext, id: string): Promise<void> {
  await devtoolsHttp(ctx, "GET", `/json/close/${id}`).catch((e: Error) => ctx.log(`closing tab ${id}: ${e.message}`));
}

const reached = (events: readonly CdpMessage[], id: string, state: LoadState, loaderId?: unknown) =>
  events.some(
    (e) =>
      e.method === "Page.lifecycleEvent" &&
      e.params?.frameId === id &&
      e.params?.name === LIFECYCLE[state] &&
      (loaderId === undefined || e.params?.loaderId === loaderId),
  );

/** Playwright's `page.wait_for_load_state(state, timeout)` on an open tab: true once reached, false when the time ran out. */
export async function waitForLoadState(ctx: OsworldContext, id: string, state: LoadState, timeoutMs: number): Promise<boolean> {
  // Enabling lifecycle events replays the ones the current document already reached.
  const out = await cdpExchange(ctx, pagePath(id), [{ method: "Page.setLifecycleEventsEnabled", params: { enabled: true } }], {
    timeoutMs,
    until: (events) => reached(events, id, state),
  });
  return !out.timedOut;
}

/**
 * Playwright's `page.goto(url, wait_until=state, timeout)`: "ok" once the new document reaches the
 * state, "timeout" when the time runs out first; a failed navigation (`net::ERR_…`) throws.
 */
export async function gotoPage(ctx: OsworldContext, id: string, url: string, state: LoadState, timeoutMs: number): Promise<"ok" | "timeout"> {
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
  return out.timedOut ? "timeout" : "ok";
}

/** Playwright's `page.content()`: the doctype and the document element's HTML. */
export async function pageContent(ctx: OsworldContext, id: string): Promise<string> {
  const html = await evaluateInPage(
    ctx,
    id,
    "(() => (document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '') + (document.documentElement ? document.documentElement.outerHTML : ''))()",
  );
  return typeof html === "string" ? html : "";
}

/** Playwright's `page.title()` and `page.url`. */
export async function pageTitleAndUrl(ctx: OsworldContext, id: string): Promise<{ title: string; url: string }> {
  const v = (await evaluateInPage(ctx, id, "({ title: document.title, url: location.href })")) as { title?: string; url?: string } | undefined;
  return { title: v?.title ?? "", url: v?.url ?? "" };
}
