import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { writeRunComparison } from "@pincer/controller/runner";
import { launchChromium } from "../fixtures/chromium.js";
import { ROOT, runPincer } from "../fixtures/cli.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { H, makeViewerRun, W } from "../fixtures/viewerRuns.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

let xvfb: XServer;
let daemon: RunningDaemon;
let browser: Browser;
let work: string;
let runA: string;
let runB: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "pincer-compare-"));
  xvfb = await startXvfb({ width: W, height: H });
  daemon = await spawnDaemon({ display: xvfb.display });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  runA = await makeViewerRun(work, daemon.address, "a");
  runB = await makeViewerRun(work, daemon.address, "b");
  browser = await launchChromium("the comparison page test");
});

afterAll(async () => {
  await browser?.close();
  await daemon?.close();
  await xvfb?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("pincer report --compare RUN_A RUN_B, in headless Chromium", () => {
  test("per task each run's outcome and how it changed; filters; tasks of one run only; the configurations side by side", async () => {
    const out = join(work, "pages", "a-vs-b.html");
    const r = await runPincer(["report", "--compare", runA, runB, "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/5 task\(s\): 1 got better, 1 got worse, 0 changed state, 1 the same; 1 only in viewer-run, 1 only in viewer-run-b/);

    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("request", (q) => {
      if (!q.url().startsWith("file:")) problems.push(`request: ${q.url()}`);
    });
    await page.goto(pathToFileURL(out).href);
    const rows = () => page.locator("#tasks tbody tr").evaluateAll((trs) => trs.map((t) => `${t.getAttribute("data-key")} ${t.getAttribute("data-change")}`));
    await expect.poll(rows).toEqual(["viewer/broken only_a", "viewer/corner better", "viewer/idle same", "viewer/late only_b", "viewer/pointing worse"]);
    const cells = (key: string) => page.locator(`#tasks tr[data-key="${key}"] td`).allTextContents();
    expect(await cells("viewer/pointing")).toEqual([
      "viewer/pointing",
      "got worse",
      "passed",
      "1.00",
      "5",
      "4960",
      expect.any(String),
      "failed",
      "0.00-1.00",
      "0-5",
      "0-4960",
      expect.any(String),
    ]);
    expect(await cells("viewer/late")).toEqual(["viewer/late", "only in B", "not in this run", "failed", "0.00", "0", "0", expect.any(String)]);
    expect(await cells("viewer/broken")).toEqual(["viewer/broken", "only in A", "setup_error", "0.00", "0", "0", expect.any(String), "not in this run"]);
    // Each side links to its run's viewer, at the task.
    const link = await page.locator('#tasks tr[data-key="viewer/corner"] td.first a').nth(1).getAttribute("href");
    expect(new URL(link!, pathToFileURL(out)).href).toBe(`${pathToFileURL(join(runB, "report.html")).href}#task=viewer%2Fcorner`);
    // The two configurations, the differences marked.
    expect(await page.locator('#configs tr[data-config="model"] td').allTextContents()).toEqual(["fixed-turns", "other-turns"]);
    expect(await page.locator('#configs tr[data-config="model"]').getAttribute("class")).toBe("differs");
    expect(await page.locator('#configs tr[data-config="maxSteps"]').getAttribute("class")).toBeNull();
    await page.screenshot({ path: join(ROOT, ".tmp", "report-compare-all.png"), fullPage: true });

    await page.click('#filters button[data-filter="better"]');
    expect(await rows()).toEqual(["viewer/corner better"]);
    await page.click('#filters button[data-filter="worse"]');
    expect(await rows()).toEqual(["viewer/pointing worse"]);
    await page.click('#filters button[data-filter="changed"]');
    expect(await rows()).toEqual(["viewer/corner better", "viewer/pointing worse"]);
    expect(await page.locator('#filters button[data-filter="changed"]').getAttribute("aria-pressed")).toBe("true");
    await page.screenshot({ path: join(ROOT, ".tmp", "report-compare-changed.png"), fullPage: true });
    await page.click('#filters button[data-filter="all"]');
    expect(await page.locator("#tasks tbody tr").count()).toBe(5);
    expect(problems).toEqual([]);
    await page.close();
  });

  test("writeRunComparison defaults to B's folder; --compare wants two run folders", async () => {
    const { file, comparison } = await writeRunComparison(runA, runB);
    expect(file).toBe(join(runB, "compare-viewer-run.html"));
    expect(existsSync(file)).toBe(true);
    expect(comparison.counts).toEqual({ better: 1, worse: 1, changed: 0, same: 1, only_a: 1, only_b: 1 });
    const one = await runPincer(["report", "--compare", runA]);
    expect(one.code).toBe(1);
    expect(one.stderr).toMatch(/--compare takes two run folders/);
    const notRun = await runPincer(["report", "--compare", runA, work]);
    expect(notRun.code).toBe(1);
    expect(notRun.stderr).toMatch(/is not a run folder/);
  });
});
