import { FailedPreconditionError, NotFoundError } from "@pincer/shared";
import { z } from "zod";
import type { OsworldContext } from "./context.js";

/** Where OSWorld's tasks expose Chrome's DevTools: `socat` forwards 9222 to the browser's 1337. */
export const DEVTOOLS = "http://127.0.0.1:9222";

interface Target {
  id: string;
  type: string;
  url: string;
  title: string;
}

/** A DevTools call that curl made but that failed (nothing listening yet, an HTTP error). */
class DevtoolsCallError extends Error {}

/** One DevTools HTTP call, made on the machine with curl (the port is the machine's own). */
async function devtools(ctx: OsworldContext, method: "GET" | "PUT", path: string): Promise<unknown> {
  let r: { exitCode: number | null; stdout: string; stderr: string };
  try {
    r = await ctx.env.process.run(["curl", "-sS", "-f", "-m", "10", "-X", method, `${DEVTOOLS}${path}`], { signal: ctx.signal, commandTimeoutMs: 15_000 });
  } catch (err) {
    // Only a missing curl is the machine image's gap; a machine that failed stays that machine's failure.
    if (!(err instanceof NotFoundError) || ctx.signal.aborted) throw err;
    throw new FailedPreconditionError(`chrome_open_tabs talks to Chrome's DevTools with curl on the machine: ${err.message}; install curl there`, {
      cause: err,
    });
  }
  if (r.exitCode !== 0) throw new DevtoolsCallError(`${method} ${path}: ${r.stderr.trim() || `curl exit ${r.exitCode}`}`);
  return r.stdout.trim() ? JSON.parse(r.stdout) : null;
}

const pages = async (ctx: OsworldContext) => ((await devtools(ctx, "GET", "/json/list")) as Target[]).filter((t) => t.type === "page");

async function pause(ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  await new Promise((r) => setTimeout(r, ms));
}

/** OSWorld's connection retries: 15 attempts, 5 s apart. */
async function waitForDevtools(ctx: OsworldContext): Promise<void> {
  let last: unknown;
  for (let attempt = 1; attempt <= 15; attempt++) {
    try {
      await devtools(ctx, "GET", "/json/version");
      return;
    } catch (err) {
      // Only DevTools not answering yet is waited for; anything else (no curl, a machine that failed) ends the wait.
      if (!(err instanceof DevtoolsCallError)) throw err;
      last = err;
      if (attempt < 15) await pause(5000, ctx.signal);
    }
  }
  throw new FailedPreconditionError(
    `Chrome's DevTools at ${DEVTOOLS} did not answer after 15 attempts (${(last as Error).message}); the task launches Chrome with ` +
      "--remote-debugging-port=1337 and socat to forward 9222",
  );
}

/** The parameters of `chrome_open_tabs`. */
export const chromeOpenTabsParams = z.strictObject({ urls_to_open: z.array(z.string().min(1)).min(1) });

/**
 * OSWorld's `chrome_open_tabs`: opens each URL in a new tab of the running Chrome and waits up to
 * 60 s for it to load (a slow page is logged, not fatal); after the first, the default tab is closed.
 * OSWorld drives Chrome with Playwright over CDP from the host; Pincer uses the DevTools HTTP
 * endpoints from the machine, and counts a tab as loaded once it has a title other than its URL.
 */
export async function chromeOpenTabs(p: z.infer<typeof chromeOpenTabsParams>, ctx: OsworldContext): Promise<void> {
  await waitForDevtools(ctx);
  const before = await pages(ctx);
  for (const [i, url] of p.urls_to_open.entries()) {
    const tab = (await devtools(ctx, "PUT", `/json/new?${encodeURI(url)}`)) as Target;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const now = (await pages(ctx)).find((t) => t.id === tab.id);
      if (now && now.url !== "" && now.title !== "" && now.title !== now.url && !now.url.startsWith("about:blank")) break;
      if (Date.now() > deadline) {
        ctx.log(`chrome_open_tabs: opening ${url} exceeds time limit`);
        break;
      }
      await pause(250, ctx.signal);
    }
    if (i === 0 && before.length > 0)
      await devtools(ctx, "GET", `/json/close/${before[0]!.id}`).catch((err: Error) => ctx.log(`chrome_open_tabs: ${err.message}`));
  }
}
