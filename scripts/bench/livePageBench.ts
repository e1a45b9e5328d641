/**
 * The live page (`pincer run --live`): the time from a change on the X display to the frame drawn in
 * the page in headless Chromium, and the daemon's CPU while one page watches an idle screen and a
 * busy one; each against a page that polls the daemon for a screenshot every 100 ms instead. On a
 * 1280x800 Xvfb of its own, with the built daemon.
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import type { Browser, Page } from "playwright-core";
import type { Env } from "../../packages/controller/src/index.js";
import { startLiveServer } from "../../packages/controller/src/live/server.js";
import { LiveBoard } from "../../packages/controller/src/runner/liveBoard.js";
import { CHROMIUM, launchChromium } from "../../test/fixtures/chromium.js";
import { spawnDaemon } from "../../test/fixtures/daemon.js";
import { startXvfb } from "../../test/fixtures/xvfb.js";
import { buildScene } from "./scene.js";
import { summarize } from "./stats.js";

const x11 = createRequire(import.meta.url)("x11");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WIDTH = 1280;
const HEIGHT = 800;
/** Clock ticks a second in /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS_PER_S = 100;
/** Changes per latency block; two blocks per page, the pages alternating. */
const CHANGES_PER_BLOCK = 20;
const POLL_MS = 100;
const CPU_WINDOW_S = 10;
const GOAL_P50_MS = 150;
/** Colours the changes cycle through (consecutive ones differ); as X pixels of the 24-bit TrueColor visual. */
const COLOURS = [0xff0000, 0x00ff00, 0x0000ff];

/** The daemon's CPU time so far, in seconds (utime + stime). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
}

/** The part of the `x11` package's client this bench calls. */
interface XClient {
  AllocID(): number;
  CreateWindow(
    wid: number,
    parent: number,
    x: number,
    y: number,
    w: number,
    h: number,
    border: number,
    depth: number,
    cls: number,
    visual: number,
    attrs: object,
  ): void;
  MapWindow(wid: number): void;
  ChangeWindowAttributes(wid: number, attrs: { backgroundPixel: number }): void;
  ClearArea(wid: number, x: number, y: number, width: number, height: number, exposures: number): void;
  GetInputFocus(cb: () => void): void;
  on(event: "error", cb: (e: Error) => void): void;
  terminate(): void;
}

/** An X client with a window at the centre of the screen, on top of what is there. */
interface Painter {
  /** Repaints the window in `pixel`; resolves, after a round trip, with Date.now() once the X server has done it. */
  paint(pixel: number): Promise<number>;
  close(): void;
}

/** The painter's window: 320x200 at the centre, where the probe reads the page's canvas. */
const PAINTED = { width: 320, height: 200 };

function openPainter(display: string): Promise<Painter> {
  return new Promise((resolve, reject) => {
    x11.createClient({ display }, (err: Error | null, dpy: { client: XClient; screen: Array<{ root: number }> }) => {
      if (err) return reject(err);
      const X = dpy.client;
      const wid = X.AllocID();
      const [x, y] = [(WIDTH - PAINTED.width) / 2, (HEIGHT - PAINTED.height) / 2];
      X.CreateWindow(wid, dpy.screen[0]!.root, x, y, PAINTED.width, PAINTED.height, 0, 0, 0, 0, { backgroundPixel: 0x808080, overrideRedirect: 1 });
      X.MapWindow(wid);
      X.on("error", (e) => console.error(`painter: ${e.message}`));
      const paint = (pixel: number) =>
        new Promise<number>((done) => {
          X.ChangeWindowAttributes(wid, { backgroundPixel: pixel });
          X.ClearArea(wid, 0, 0, 0, 0, 0);
          // The reply comes after the server has handled the requests before it: the change is on the screen.
          X.GetInputFocus(() => done(Date.now()));
        });
      paint(0x808080).then(() => resolve({ paint, close: () => X.terminate() }));
    });
  });
}

/** One frame as the page logged it (`window.pincerLive.frames`): Unix ms on this host's clock. */
interface DrawnFrame {
  seq: number;
  /** Stream: when the daemon began the capture. Polling: when the page's server asked the daemon for the screenshot. */
  capturedAtMs: number;
  /** When the page's server wrote the frame out. */
  sentAt: number;
  drawnAt: number;
}

/**
 * Put into a page that logs frames in `window.pincerLive.frames`: counts the frames drawn, and once
 * armed with a colour, reports the first frame drawn whose canvas centre shows it (the pixel is read
 * right after the page drew the frame and logged its `drawnAt`).
 */
const PROBE = `{
  const live = window.pincerLive;
  const probe = (window.benchProbe = { drawn: 0, want: null, found: null, hit: null });
  const near = (a, b) => [0, 1, 2].every((i) => Math.abs(a[i] - b[i]) <= 48);
  const push = live.frames.push;
  live.frames.push = function (...frames) {
    const n = push.apply(this, frames);
    probe.drawn += frames.length;
    if (probe.want) {
      const c = document.querySelector("canvas.view");
      const px = c.getContext("2d").getImageData(c.width >> 1, c.height >> 1, 1, 1).data;
      if (near(px, probe.want)) { probe.want = null; probe.found(frames[frames.length - 1]); }
    }
    return n;
  };
  probe.arm = (rgb, timeoutMs) => {
    probe.hit = new Promise((resolve) => {
      const timer = setTimeout(() => { probe.want = null; resolve(null); }, timeoutMs);
      probe.found = (f) => { clearTimeout(timer); resolve(f); };
    });
    probe.want = rgb;
  };
}`;

/** The alternative: a page that asks for a screenshot every 100 ms (start to start) and draws each, logging frames as the live page does. */
const POLLING_PAGE = `<!doctype html><html><body style="margin:0;background:#000"><canvas class="view"></canvas><script>
const live = (window.pincerLive = { frames: [] });
const canvas = document.querySelector("canvas.view");
let seq = 0;
(async () => {
  for (;;) {
    const t = performance.now();
    try {
      const r = await fetch("/shot", { cache: "no-store" });
      const bitmap = await createImageBitmap(await r.blob());
      if (canvas.width !== bitmap.width || canvas.height !== bitmap.height) { canvas.width = bitmap.width; canvas.height = bitmap.height; }
      canvas.getContext("2d").drawImage(bitmap, 0, 0);
      bitmap.close();
      const h = (n) => Number(r.headers.get(n));
      live.frames.push({ seq: ++seq, capturedAtMs: h("x-captured-at"), sentAt: h("x-sent-at"), drawnAt: Date.now() });
      if (live.frames.length > 500) live.frames.splice(0, live.frames.length - 500);
    } catch {}
    const wait = ${POLL_MS} - (performance.now() - t);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
})();
</script></body></html>`;

/** Serves {@link POLLING_PAGE} and its screenshots (JPEG quality 70, full size, as the live page's frames). */
async function startPollingServer(env: Env): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.url !== "/shot") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
      return void res.end(POLLING_PAGE);
    }
    const asked = Date.now();
    env.screen.screenshot({ format: "jpeg", quality: 70 }).then(
      (s) => {
        res.writeHead(200, { "content-type": "image/jpeg", "cache-control": "no-store", "x-captured-at": asked, "x-sent-at": Date.now() });
        res.end(s.data);
      },
      (err: Error) => {
        res.writeHead(500);
        res.end(err.message);
      },
    );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

/** What the pages and {@link PROBE} put on `window`, as seen from this process. */
interface PageGlobals {
  pincerLive?: { frames: unknown[] };
  benchProbe: { drawn: number; hit: Promise<DrawnFrame | null>; arm(rgb: number[], timeoutMs: number): void };
}

/** Opens `url` in a new page, waits for its first drawn frame and puts the probe in (as an inline script: the live page's CSP forbids eval). */
async function openPage(browser: Browser, url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.goto(url);
  const end = Date.now() + 15_000;
  while (!(await page.evaluate(() => ((globalThis as unknown as PageGlobals).pincerLive?.frames.length ?? 0) > 0))) {
    if (Date.now() > end) throw new Error(`${url} drew no frame within 15 s`);
    await sleep(100);
  }
  await page.addScriptTag({ content: PROBE });
  return page;
}

const rgbOf = (pixel: number) => [(pixel >> 16) & 255, (pixel >> 8) & 255, pixel & 255];

/** One latency sample: the change's time and the frame that first showed it. */
interface Probe {
  changedAt: number;
  /** The painter's round trip: the change reached the X server within this much before `changedAt`. */
  roundTripMs: number;
  frame: DrawnFrame;
}

/** `n` changes of the painter's colour, ~300 ms apart; for each, the first frame the page drew that shows it. Misses: changes never shown within 3 s. */
async function latencyBlock(page: Page, painter: Painter, n: number, first: number): Promise<{ probes: Probe[]; misses: number }> {
  const probes: Probe[] = [];
  let misses = 0;
  for (let i = 0; i < n; i++) {
    const pixel = COLOURS[(first + i) % COLOURS.length]!;
    // Spaced so the last change went out; a random phase against the polling page's period.
    await sleep(200 + Math.random() * 100);
    await page.evaluate((rgb) => (globalThis as unknown as PageGlobals).benchProbe.arm(rgb, 3000), rgbOf(pixel));
    const before = Date.now();
    const changedAt = await painter.paint(pixel);
    const frame = await page.evaluate(() => (globalThis as unknown as PageGlobals).benchProbe.hit);
    if (frame) probes.push({ changedAt, roundTripMs: changedAt - before, frame });
    else misses++;
  }
  return { probes, misses };
}

const p50 = (xs: number[]) => summarize(xs).p50;

/** A table row of latencies: p50, p95, max, n, and p50 of each leg (change → capture start → written out by the page's server → drawn). */
function latencyRow(name: string, probes: Probe[], misses: number): string {
  if (probes.length === 0) return `| ${name} | no frame showed a change within 3 s (${misses} changes) | | | | | | |`;
  const total = summarize(probes.map((p) => p.frame.drawnAt - p.changedAt));
  const max = Math.max(...probes.map((p) => p.frame.drawnAt - p.changedAt));
  const legs = [
    p50(probes.map((p) => p.frame.capturedAtMs - p.changedAt)),
    p50(probes.map((p) => p.frame.sentAt - p.frame.capturedAtMs)),
    p50(probes.map((p) => p.frame.drawnAt - p.frame.sentAt)),
  ];
  const n = `${total.n}${misses ? ` (${misses} missed)` : ""}`;
  return `| ${name} | ${total.p50} ms | ${total.p95} ms | ${max} ms | ${n} | ${legs.map((l) => `${l} ms`).join(" | ")} |`;
}

interface Pages {
  browser: Browser;
  liveUrl: string;
  pollUrl: string;
}

interface Block {
  probes: Probe[];
  misses: number;
}

/** Latency of both pages, in `rounds` alternating blocks of {@link CHANGES_PER_BLOCK} changes each; `first` picks the first colour. */
async function latencies(pages: Pages, painter: Painter, rounds: number, first: number): Promise<{ stream: Block; polling: Block }> {
  const got = { stream: { probes: [] as Probe[], misses: 0 }, polling: { probes: [] as Probe[], misses: 0 } };
  let k = first;
  for (let round = 0; round < rounds; round++) {
    for (const which of ["stream", "polling"] as const) {
      const page = await openPage(pages.browser, which === "stream" ? pages.liveUrl : pages.pollUrl);
      try {
        const b = await latencyBlock(page, painter, CHANGES_PER_BLOCK, k);
        k += CHANGES_PER_BLOCK;
        got[which].probes.push(...b.probes);
        got[which].misses += b.misses;
      } finally {
        await page.close();
      }
    }
  }
  return got;
}

const latencyP50 = (b: Block) => p50(b.probes.map((p) => p.frame.drawnAt - p.changedAt));

/** The latency table of both screens, and per screen the ratio of the medians and the goal. */
function latencyLines(screens: Array<{ name: string; stream: Block; polling: Block }>): string[] {
  const lines = [
    "| screen | page | latency p50 | p95 | max | n | change → capture start | → written to the page | → drawn |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const s of screens) {
    lines.push(latencyRow(`${s.name} | live page (Screen/Watch, max 10 fps)`, s.stream.probes, s.stream.misses));
    lines.push(latencyRow(`${s.name} | page polling a screenshot every ${POLL_MS} ms`, s.polling.probes, s.polling.misses));
  }
  lines.push("");
  for (const s of screens) {
    const [stream, polling] = [latencyP50(s.stream), latencyP50(s.polling)];
    const meets = stream <= GOAL_P50_MS ? "meets" : "does not meet";
    lines.push(
      `${s.name}: live page / polling page, medians: ${(stream / polling).toFixed(2)} (polling takes ${(polling / stream).toFixed(1)}× as long); ` +
        `the live page ${meets} the goal (p50 ≤ ${GOAL_P50_MS} ms)`,
    );
  }
  const all = screens.flatMap((s) => [...s.stream.probes, ...s.polling.probes]);
  lines.push(`the painter's round trip (the change reached the X server within it before the change's time): p50 ${p50(all.map((p) => p.roundTripMs))} ms`);
  return lines;
}

/** The daemon's CPU, % of one core, over {@link CPU_WINDOW_S} while `url`'s page watches, the painter's window repainted ~10 times a second when `busy`. */
async function cpuWhileWatched(pages: Pages, url: string, pid: number, painter: Painter, busy: boolean): Promise<{ pct: number; fps: number }> {
  const page = await openPage(pages.browser, url);
  let painting = busy;
  const repainting = (async () => {
    for (let i = 0; painting; i++) {
      await painter.paint(i % 2 ? 0x303030 : 0x606060);
      await sleep(100);
    }
  })();
  try {
    await sleep(1_000);
    const drawn = () => page.evaluate(() => (globalThis as unknown as PageGlobals).benchProbe.drawn);
    const [cpu0, t0, f0] = [cpuSeconds(pid), performance.now(), await drawn()];
    await sleep(CPU_WINDOW_S * 1000);
    const [cpu1, t1, f1] = [cpuSeconds(pid), performance.now(), await drawn()];
    const s = (t1 - t0) / 1000;
    return { pct: ((cpu1 - cpu0) / s) * 100, fps: (f1 - f0) / s };
  } finally {
    painting = false;
    await repainting;
    await page.close();
    await sleep(500);
  }
}

const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(1)}×` : "— (no CPU tick for the live page)");

/** The CPU table: each screen state with the live page and with the polling page. */
async function cpuFigures(pages: Pages, pid: number, painter: Painter): Promise<string[]> {
  const lines = [`| screen | live page | polling page | polling / live |`, "|---|---|---|---|"];
  for (const busy of [false, true]) {
    const live = await cpuWhileWatched(pages, pages.liveUrl, pid, painter, busy);
    const poll = await cpuWhileWatched(pages, pages.pollUrl, pid, painter, busy);
    const cell = (c: { pct: number; fps: number }) => `${c.pct.toFixed(1)} % (${c.fps.toFixed(1)} frames/s drawn)`;
    lines.push(`| ${busy ? "busy (the window repainted ~10 times/s)" : "idle"} | ${cell(live)} | ${cell(poll)} | ${ratio(poll.pct, live.pct)} |`);
  }
  return lines;
}

/** Runs the suite; the figures as printable lines. */
export async function livePageFigures(): Promise<string[]> {
  if (!existsSync(CHROMIUM)) return [`skipped: no Chromium at ${CHROMIUM} (install Debian's chromium, or set CHROMIUM_PATH)`];
  const xs = await startXvfb({ width: WIDTH, height: HEIGHT });
  const daemon = await spawnDaemon({ display: xs.display, args: ["--quiet"], built: true });
  const board = new LiveBoard({ slots: 1 });
  const live = await startLiveServer({ board });
  const polling = await startPollingServer(daemon.env);
  const browser = await launchChromium("the livepage bench");
  let painter = await openPainter(xs.display);
  let removeScene: (() => Promise<void>) | undefined;
  const lines: string[] = [];
  try {
    await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
    await daemon.env.mouse.move({ x: WIDTH - 10, y: HEIGHT - 10 });
    board.attempt(0, { task: { id: "bench", instruction: "watch the screen", attempt: 1 }, envs: { desktop: daemon.env } });
    const pages = { browser, liveUrl: live.url, pollUrl: polling.url };
    lines.push(
      `screen ${WIDTH}x${HEIGHT} Xvfb, JPEG quality 70, full size; headless Chromium ${browser.version()}; latency = an X client's repaint of a ` +
        `${PAINTED.width}x${PAINTED.height} window at the centre (after its round trip) to the page's drawing of the first frame showing the colour; ` +
        `changes ~300 ms apart, in blocks of ${CHANGES_PER_BLOCK} per page, alternating. Screens: black around the window; the scene (left half ` +
        "noise, right half xterms of text, the worst case and a usual one for JPEG). The polling page's capture start is when its server asked for the " +
        "screenshot",
      "",
    );
    const black = await latencies(pages, painter, 1, 0);
    painter.close();
    removeScene = await buildScene(xs.display, WIDTH, HEIGHT);
    // A new window, mapped over the scene's.
    painter = await openPainter(xs.display);
    const scene = await latencies(pages, painter, 2, 1);
    lines.push(
      ...latencyLines([
        { name: "black", ...black },
        { name: "scene", ...scene },
      ]),
    );
    lines.push("", `daemon CPU (% of one core, utime+stime from /proc over ${CPU_WINDOW_S} s) while one page watches the scene:`, "");
    lines.push(...(await cpuFigures(pages, daemon.process.pid!, painter)));
  } finally {
    await browser.close();
    painter.close();
    await removeScene?.();
    const closed = new Promise((r) => polling.server.close(r));
    polling.server.closeAllConnections();
    await closed;
    await live.close();
    await daemon.close();
    await xs.close();
  }
  return lines;
}
