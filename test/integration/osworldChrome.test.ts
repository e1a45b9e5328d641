import { createServer as createHttpServer, type Server } from "node:http";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { ProcessHandle } from "@pincer/controller";
import { OSWORLD_CONFIG_TYPES } from "../../packages/controller/src/datasets/osworld/allConfigTypes.js";
import type { OsworldContext } from "../../packages/controller/src/datasets/osworld/context.js";
import { DownloadCache } from "../../packages/controller/src/datasets/osworld/downloadCache.js";
import { OSWORLD_GETTERS } from "../../packages/controller/src/datasets/osworld/allGetters.js";
import { htmlParseResult } from "../../packages/controller/src/datasets/osworld/chrome/htmlParse.js";
import { listPages } from "../../packages/controller/src/datasets/osworld/chrome/devtools.js";
import { probePage } from "../../packages/controller/src/datasets/osworld/chrome/pageProbe.js";
import { gotoPage, pageTitleAndUrl } from "../../packages/controller/src/datasets/osworld/chrome/pages.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";

// OSWorld's Chrome getters and steps against a real Chromium (Debian's, headless) started by the
// real daemon, with its profile in the daemon's home: DevTools over the machine's curl and bash,
// the profile's files through the daemon's file service.
// A page with what active_tab_html_parse and info_from_website read: classes, a label, inputs, a link.
const SHOP = `<!DOCTYPE html><html><head><title>Shop</title></head><body>
<div class="price"> $25 - $60 </div><div class="price">Black</div>
<div class="route">SEA<div class="sep"></div>NYC</div>
<section><h2>Delivery date</h2><span>Tomorrow,   May 3</span></section>
<form><input id="from" value=" Dublin "><input id="to" value="Vienna"></form>
<a id="next" href="/after">Next</a></body></html>`;

let daemon: RunningDaemon;
let browser: ProcessHandle;
let home: string;
let site: Server;
let base: string;
let ctx: OsworldContext;
const logs: string[] = [];

/**
 * Reads the started Chromium's output until it says where DevTools listens; fails with what Chromium
 * printed when it exits first or does not say so within `ms` (a loaded host can take long).
 */
async function devtoolsPort(proc: ProcessHandle, ms: number): Promise<number> {
  let seen = "";
  const events = proc[Symbol.asyncIterator]();
  const timer = setTimeout(() => proc.kill(), ms);
  try {
    for (let ev = await events.next(); !ev.done; ev = await events.next()) {
      const e = ev.value;
      if (e.type === "exited") break;
      if (e.type === "started") continue;
      seen += e.data.toString("utf8");
      const m = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(seen);
      if (!m) continue;
      // The rest of Chromium's output is read and dropped, so its pipe never fills; it is killed at the end.
      void (async () => {
        while (!(await events.next()).done);
      })().catch(() => undefined);
      return Number(m[1]);
    }
  } finally {
    clearTimeout(timer);
  }
  throw new Error(`chromium did not say where DevTools listens within ${ms} ms (or exited); it printed:\n${seen.slice(-4000)}`);
}

const get = (type: string, config: Record<string, unknown> = {}) => {
  const g = OSWORLD_GETTERS.get(type)!;
  return g.get(g.config.parse(config), ctx);
};
const step = (type: string, parameters: Record<string, unknown>) => {
  const t = OSWORLD_CONFIG_TYPES.get(type)!;
  return t.run(t.parameters.parse(parameters), ctx);
};

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "pincer-chrome-home-"));
  site = createHttpServer((req, res) => {
    res.setHeader("content-type", "text/html");
    if (req.url === "/shop") res.end(SHOP);
    // A document whose title takes 3 s to read: time for a navigation to replace it meanwhile.
    else if (req.url === "/slow-title") {
      res.end(
        "<!DOCTYPE html><title>Slow</title><script>Object.defineProperty(document, 'title', " +
          "{ get() { const t = Date.now(); while (Date.now() - t < 3000); return 'Slow'; } });</script>",
      );
    } else res.end(`<!DOCTYPE html><html><head><title>Page ${req.url}</title></head><body><p class="x">hello ${req.url}</p></body></html>`);
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  daemon = await spawnDaemon({ env: { HOME: home } });
  // Port 0: Chromium picks a free port and prints it ("DevTools listening on ws://127.0.0.1:PORT/…"),
  // so no other process can take the port between a probe and Chromium's bind.
  browser = daemon.env.process.start(["chromium", "--headless=new", "--no-sandbox", "--no-first-run", "--remote-debugging-port=0", `${base}/first`]);
  const port = await devtoolsPort(browser, 90_000);
  ctx = {
    env: daemon.env,
    signal: new AbortController().signal,
    cacheDir: mkdtempSync(join(home, "cache-")),
    downloads: new DownloadCache(join(home, "downloads")),
    password: "password",
    log: (l) => logs.push(l),
    devtoolsPort: port,
  };
}, 120_000);

afterAll(async () => {
  browser?.kill();
  await daemon?.close();
  await new Promise((r) => site?.close(r));
  rmSync(home, { recursive: true, force: true });
});

test("open_tabs_info lists every tab's title and URL; chrome_open_tabs opens and chrome_close_tabs closes tabs", async () => {
  expect(await get("open_tabs_info")).toEqual([{ title: "Page /first", url: `${base}/first` }]);
  await step("chrome_open_tabs", { urls_to_open: [`${base}/a`, `${base}/b`] });
  // The first URL replaces the browser's first tab.
  expect(new Set((await get("open_tabs_info")) as unknown[])).toEqual(
    new Set([
      { title: "Page /a", url: `${base}/a` },
      { title: "Page /b", url: `${base}/b` },
    ]),
  );
  await step("chrome_close_tabs", { urls_to_close: [`${base}/a`] });
  expect(await get("open_tabs_info")).toEqual([{ title: "Page /b", url: `${base}/b` }]);
}, 60_000);

test("a page's title is read from the document that is there when a navigation replaces the one it was asked of", async () => {
  await step("chrome_open_tabs", { urls_to_open: [`${base}/slow-title`] });
  const tab = (await listPages(ctx)).find((t) => t.url === `${base}/slow-title`)!;
  // While the title is being read, the tab goes to another site (a renderer process of its own), so
  // the document the evaluation ran in is destroyed under it. Playwright's page.title() evaluates in
  // the frame's new document; "Execution context was destroyed" must not become open_tabs_info's
  // "Error encountered".
  const elsewhere = base.replace("127.0.0.1", "localhost");
  const reading = pageTitleAndUrl(ctx, tab.id);
  await new Promise((r) => setTimeout(r, 1000));
  await gotoPage(ctx, tab.id, `${elsewhere}/after`, "load", 30_000);
  expect(await reading).toEqual({ title: "Page /after", url: `${elsewhere}/after` });
  await step("chrome_close_tabs", { urls_to_close: [`${elsewhere}/after`] });
}, 90_000);

test("page_info loads a page in a new tab and gives its HTML; pdf_from_url prints one", async () => {
  const info = (await get("page_info", { url: `${base}/info` })) as { title: string; url: string; content: string };
  expect(info.title).toBe("Page /info");
  expect(info.content).toMatch(/^<!DOCTYPE html><html><head><title>Page \/info<\/title><\/head><body><p class="x">hello \/info<\/p><\/body><\/html>$/);
  const pdf = (await get("pdf_from_url", { path: `${base}/print`, dest: "print.pdf" })) as string;
  expect(readFileSync(pdf).subarray(0, 5).toString()).toBe("%PDF-");
  // The page opened for it is gone again.
  expect(((await get("open_tabs_info")) as Array<{ url: string }>).map((t) => t.url)).not.toContain(`${base}/print`);
}, 60_000);

test("active_tab_html_parse's readings of a page: texts by class, own text nodes, a label, XPath texts and inputs", async () => {
  await step("chrome_open_tabs", { urls_to_open: [`${base}/shop`] });
  const tab = (await listPages(ctx)).find((t) => t.url === `${base}/shop`)!;
  const config = (c: Record<string, unknown>) => c as Parameters<typeof htmlParseResult>[0];
  const read = async (c: Record<string, unknown>, queries: Parameters<typeof probePage>[2], keys: string[]) => {
    const answers = await probePage(ctx, tab.id, queries);
    return htmlParseResult(config(c), new Map(keys.map((k, i) => [k, answers[i]!])));
  };
  expect(
    await read(
      { category: "class", class_multiObject: { price: { "0": "range", "1": "color", "5": "none" } }, class_multiObject_child: { route: { "1": "to" } } },
      [
        { op: "texts", css: ".price" },
        { op: "ownTexts", css: ".route" },
      ],
      ["texts:price", "ownTexts:route"],
    ),
  ).toEqual({ range: "$25 - $60", color: "Black", none: "", to: "NYC" });
  expect(
    await read(
      { category: "class", class_multiObject_search_exist: { price: ["Black", "Red", "is_other_exist"] } },
      [{ op: "texts", css: ".price" }],
      ["texts:price"],
    ),
  ).toEqual({ Black: true, Red: false, is_other_exist: true });
  expect(
    await read({ category: "label", labelObject: { "tomorrow, may": "date" } }, [{ op: "labelText", text: "tomorrow, may" }], ["label:tomorrow, may"]),
  ).toEqual({
    date: "Tomorrow,   May 3",
  });
  expect(
    await read(
      { category: "xpath", xpathObject: { "//section/h2": "title", "//nothing": "none" } },
      [
        { op: "first", xpath: "//section/h2" },
        { op: "first", xpath: "//nothing" },
      ],
      ["xpath://section/h2", "xpath://nothing"],
    ),
  ).toEqual({ title: "Delivery date", none: "" });
  expect(
    await read(
      { category: "input", inputObject: { "//input[@id='from']": "from", "//h2": "notInput" } },
      [
        { op: "inputValue", xpath: "//input[@id='from']" },
        { op: "inputValue", xpath: "//h2" },
      ],
      ["input://input[@id='from']", "input://h2"],
    ),
  ).toEqual({ from: "Dublin", notInput: "" });
}, 60_000);

test("info_from_website reads texts and attributes, clicking through a link first; a selector that never appears gives the backups", async () => {
  const infos = [
    { action: "inner_text", selector: ".price" },
    { action: "attribute", selector: "#to", attribute: "value" },
    { action: "click_and_inner_text", selector: ["#next", "p.x"] },
  ];
  const got = await get("info_from_website", { url: `${base}/shop`, infos, backups: ["b"] });
  expect(got).toEqual(["$25 - $60", "Vienna", "hello /after"]);
  expect(await get("info_from_website", { url: `${base}/shop`, infos: [{ action: "inner_text", selector: "#missing" }], backups: ["b"] })).toEqual(["b"]);
}, 60_000);

test("chrome_saved_address reads Chromium's settings page; number_of_search_results falls back to 0 when Google cannot be reached", async () => {
  const settings = await get("chrome_saved_address");
  expect(settings).toMatch(/^<!DOCTYPE html>.*<settings-ui/s);
  // This machine has no way out to google.com: both of OSWorld's attempts fail.
  expect(await get("number_of_search_results")).toBe(0);
  expect(logs.some((l) => l.startsWith("number_of_search_results: attempt 2/2 failed"))).toBe(true);
}, 60_000);
