import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { TrajectoryLine } from "@pincer/controller/runner";
import { launchChromium } from "../fixtures/chromium.js";
import { ROOT, runPincer } from "../fixtures/cli.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { CLICK, H, HOSTILE, makeViewerRun, SETUP_FAILURE, W } from "../fixtures/viewerRuns.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

let xvfb: XServer;
let daemon: RunningDaemon;
let browser: Browser;
let work: string;
let runDir: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "pincer-viewer-"));
  xvfb = await startXvfb({ width: W, height: H });
  daemon = await spawnDaemon({ display: xvfb.display });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  runDir = await makeViewerRun(work, daemon.address, "a");
  browser = await launchChromium("the run viewer test");
});

afterAll(async () => {
  await browser?.close();
  await daemon?.close();
  await xvfb?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The report opened in a fresh page; records page errors and any request that is not a file of the run. */
async function openReport(): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const problems: string[] = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("request", (r) => {
    if (!r.url().startsWith("file:")) problems.push(`request: ${r.url()}`);
  });
  await page.goto(pathToFileURL(join(runDir, "report.html")).href);
  return { page, problems };
}

/** An element's computed background colour (run in the page). */
const BACKGROUND = (e: unknown) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(e).backgroundColor;

const rowKeys = (page: Page) => page.locator("#tasks tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-key")));

describe("report.html, the run viewer, in headless Chromium", () => {
  test("the runner records what the viewer draws: the screenshot's geometry, the model's text, time and tokens", () => {
    const lines = readFileSync(join(runDir, "viewer/pointing/attempt-1/trajectory.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as TrajectoryLine);
    expect(lines[0]).toMatchObject({
      step: 1,
      tool: "desktop__click",
      message: HOSTILE,
      usage: { input_tokens: 1200, output_tokens: 40 },
      screenshot_geometry: { desktop: { width: 1280, height: 800, scale: 0.8, screen: { width: W, height: H } } },
      evaluation: { nodes: { clicked: "passed", dragged: "failed" } },
    });
    expect(typeof lines[0]!.model_ms).toBe("number");
    // The second call of a turn carries no second copy of the turn's text and tokens.
    expect(lines[2]).toMatchObject({ step: 3, tool: "desktop__key", turn: 2 });
    expect(lines[2]!.message).toBeUndefined();
    expect(lines.at(-1)).toMatchObject({ final: true, screenshots: { desktop: expect.stringMatching(/^screenshots\/turn-005-desktop\.jpg$/) } });
  });

  test("filter and sort the table, open a task, step with the keyboard; the click marker sits on the clicked point", async () => {
    const { page, problems } = await openReport();
    await expect.poll(() => rowKeys(page)).toEqual(["viewer/broken", "viewer/corner", "viewer/idle", "viewer/pointing"]);
    await page.selectOption("#f-state", "passed");
    expect(await rowKeys(page)).toEqual(["viewer/pointing"]);
    await page.selectOption("#f-state", "");
    await page.selectOption("#f-tag", "cli");
    expect(await rowKeys(page)).toEqual(["viewer/idle"]);
    await page.selectOption("#f-tag", "");
    await page.selectOption("#f-app", "xclock");
    expect(await rowKeys(page)).toEqual(["viewer/pointing"]);
    await page.selectOption("#f-app", "");
    await page.click('#tasks th[data-sort="steps"]');
    expect(await rowKeys(page)).toEqual(["viewer/pointing", "viewer/broken", "viewer/corner", "viewer/idle"]);
    await page.click('#tasks th[data-sort="steps"]');
    expect(await rowKeys(page)).toEqual(["viewer/broken", "viewer/corner", "viewer/idle", "viewer/pointing"]);

    await page.click('#tasks tr[data-key="viewer/pointing"] td:nth-child(3)');
    await expect.poll(() => page.locator("#view-task").isVisible()).toBe(true);
    expect(await page.locator("#step-pos").textContent()).toBe("step 1 of 6");
    expect(await page.locator(".step-title").textContent()).toContain("desktop__click");
    // The model's text is shown as text, and none of it ran.
    expect(await page.locator("pre.message").textContent()).toBe(HOSTILE);
    expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.locator('.node[data-node="clicked"]').getAttribute("data-status")).toBe("passed");
    // Checked after step 1 and not holding yet: not reached, drawn grey; the final verdict comes later.
    expect(await page.locator('.node[data-node="dragged"]').getAttribute("data-status")).toBe("pending");
    expect(await page.locator('.node[data-node="dragged"]').getAttribute("data-recorded")).toBe("failed");
    expect(await page.locator('.node[data-node="dragged"]').evaluate(BACKGROUND)).toBe("rgb(138, 148, 166)");
    // The attempt's files, by path relative to the run folder; one attempt, so no attempt to choose.
    expect(await page.locator('a[data-file="summary"]').getAttribute("href")).toBe("viewer/pointing/attempt-1/summary.json");
    expect(await page.locator('a[data-file="trajectory"]').getAttribute("href")).toBe("viewer/pointing/attempt-1/trajectory.jsonl");
    expect(await page.locator("#attempt-pick").isVisible()).toBe(false);
    await page.screenshot({ path: join(ROOT, ".tmp", "report-viewer-step.png") });
    // The task's screen recording, playable from the page.
    const video = page.locator('[data-recording="desktop"] video');
    expect(await video.getAttribute("src")).toMatch(/viewer\/pointing\/attempt-1\/recording-desktop\.mp4$/);
    // How long the screen was waited for before the screenshot the model saw.
    expect(await page.locator('[data-settle="desktop"]').textContent()).toMatch(/^desktop: screen settled after \d+\.\d\d s, \d+ changes seen$/);

    // The marker of the click, over the screenshot as displayed (image pixels = screen pixels × 1280/1600).
    const img = page.locator('figure.shot[data-env="desktop"] img');
    await expect.poll(() => img.evaluate((e) => (e as unknown as { naturalWidth: number }).naturalWidth)).toBe(1280);
    const box = (await img.boundingBox())!;
    const dot = (await page.locator('figure.shot[data-env="desktop"] .marker-click .dot').boundingBox())!;
    const perScreenPixel = box.width / W;
    expect(box.height / H).toBeCloseTo(perScreenPixel, 2);
    expect(Math.abs(dot.x + dot.width / 2 - (box.x + CLICK.x * perScreenPixel))).toBeLessThan(1.5);
    expect(Math.abs(dot.y + dot.height / 2 - (box.y + CLICK.y * perScreenPixel))).toBeLessThan(1.5);

    await page.keyboard.press("ArrowRight");
    expect(await page.locator("#step-pos").textContent()).toBe("step 2 of 6");
    expect(await page.locator(".overlay-text.type").textContent()).toBe("typed: hi");
    await page.keyboard.press("j");
    expect(await page.locator(".overlay-text.key").textContent()).toBe("keys: ctrl+a");
    expect(await page.locator(".details").textContent()).toContain("shown with its first step");
    await page.keyboard.press("ArrowRight");
    expect(await page.locator(".marker-scroll").count()).toBe(1);
    await page.keyboard.press("ArrowRight");
    expect(await page.locator(".marker-drag").count()).toBe(1);
    expect(await page.locator('.node[data-node="dragged"]').getAttribute("data-status")).toBe("passed");
    await page.keyboard.press("End");
    expect(await page.locator(".step-title").textContent()).toBe("final screen");
    expect(await page.locator("figure.shot img").getAttribute("src")).toBe("viewer/pointing/attempt-1/screenshots/turn-005-desktop.jpg");
    await page.keyboard.press("Home");
    await page.keyboard.press("k");
    expect(await page.locator("#step-pos").textContent()).toBe("step 1 of 6");
    expect(new URL(page.url()).hash).toBe("#task=viewer%2Fpointing&step=1");

    await page.keyboard.press("Escape");
    await expect.poll(() => page.locator("#view-table").isVisible()).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });

  test.each([
    [1366, 768],
    [1400, 900],
  ])("at %i×%i the step's call, result and evaluation sit beside the screenshot, its evaluation's reason in view", async (width, height) => {
    const page = await browser.newPage({ viewport: { width, height } });
    await page.goto(`${pathToFileURL(join(runDir, "report.html")).href}#task=viewer%2Fpointing&step=1`);
    const reason = page.locator(".eval-reason");
    await expect.poll(() => reason.count()).toBe(1);
    // The reason the evaluation after step 1 gave, as the trajectory has it.
    const first = JSON.parse(readFileSync(join(runDir, "viewer/pointing/attempt-1/trajectory.jsonl"), "utf8").split("\n")[0]!) as TrajectoryLine;
    expect(first.evaluation?.reason).toMatch(/^1 of 2 checks passed; dragged: /);
    expect(await reason.textContent()).toBe(`why: ${first.evaluation!.reason}`);
    const inView = async (what: string) => {
      const box = (await page.locator(what).first().boundingBox())!;
      expect(box, what).not.toBeNull();
      expect(box.y, `${what} starts in view`).toBeGreaterThanOrEqual(0);
      expect(box.y + box.height, `${what} ends in view`).toBeLessThanOrEqual(height);
      expect(box.x + box.width, `${what} ends in view`).toBeLessThanOrEqual(width);
      return box;
    };
    const shot = (await page.locator('figure.shot[data-env="desktop"] img').boundingBox())!;
    for (const what of ["pre.call", "pre.result", ".eval-reason"]) {
      const box = await inView(what);
      expect(box.x, `${what} beside the screenshot`).toBeGreaterThanOrEqual(shot.x + shot.width);
    }
    await page.screenshot({ path: join(ROOT, ".tmp", `report-viewer-${width}x${height}.png`) });
    await page.close();
  });

  test("the header names the run's configuration; tables per tag, app and counterpart; reasons in the table; every attempt", async () => {
    const { page, problems } = await openReport();
    const config = (name: string) => page.locator(`#run-config [data-config="${name}"] dd`).textContent();
    await expect.poll(() => config("agent")).toBe("turns");
    expect(await config("model")).toBe("fixed-turns");
    expect(await config("provider")).toBe("remote");
    expect(await config("maxSteps")).toBe("10");
    expect(await config("attempts")).toBe("2");
    expect(await config("taskTimeout")).toBe("600 s");
    expect(await config("screenshots")).toBe("on");
    expect(await config("settle")).toBe("quiet 100 ms, at most 2000 ms");
    expect(await config("accessibility")).toBe("off");
    expect(await config("record")).toBe("on");

    const groupRow = (table: string, name: string) =>
      page.locator(`#${table} tr[data-group="${name}"] td`).evaluateAll((cells) => cells.map((c) => c.textContent));
    expect(await groupRow("by-tag", "gui")).toEqual(["gui", "2", "1", "1", "0", "50.0%", "0.500"]);
    expect(await groupRow("by-tag", "setup")).toEqual(["setup", "1", "0", "0", "1", "0.0%", "0.000"]);
    expect(await groupRow("by-app", "bash")).toEqual(["bash", "1", "0", "1", "0", "0.0%", "0.000"]);
    expect(await page.locator('#counterparts tr[data-pair="idle|pointing"] td').allTextContents()).toEqual(["idle (cli)", "0.00", "pointing (gui)", "1.00"]);
    // A click on a group filters the task table by it.
    await page.click('#by-app tr[data-group="xclock"]');
    expect(await rowKeys(page)).toEqual(["viewer/pointing"]);
    await page.selectOption("#f-app", "");

    // Why each task that did not pass ended so, in the table itself.
    const reason = (key: string) => page.locator(`#tasks tr[data-key="${key}"] td.reason`).textContent();
    expect(await reason("viewer/broken")).toContain(SETUP_FAILURE);
    expect(await reason("viewer/idle")).not.toBe("");
    expect(await reason("viewer/corner")).not.toBe("");
    expect(await reason("viewer/pointing")).toBe("");
    await page.screenshot({ path: join(ROOT, ".tmp", "report-viewer-table.png"), fullPage: true });

    // Both attempts of the task that failed setup twice: the last one first, the first one a choice away.
    await page.click('#tasks tr[data-key="viewer/broken"] td:nth-child(2)');
    await expect.poll(() => page.locator("#attempt-pick").isVisible()).toBe(true);
    expect(await page.locator("#f-attempt option").allTextContents()).toEqual(["attempt 2 · setup_error (last)", "attempt 1 · setup_error"]);
    expect(await page.locator('a[data-file="summary"]').getAttribute("href")).toBe("viewer/broken/attempt-2/summary.json");
    expect(await page.locator("#task-head pre.error").textContent()).toContain(SETUP_FAILURE);
    await page.selectOption("#f-attempt", "1");
    await expect.poll(() => page.locator('a[data-file="summary"]').getAttribute("href")).toBe("viewer/broken/attempt-1/summary.json");
    expect(await page.locator('a[data-file="trajectory"]').getAttribute("href")).toBe("viewer/broken/attempt-1/trajectory.jsonl");
    expect(new URL(page.url()).hash).toBe("#task=viewer%2Fbroken&attempt=1&step=1");
    expect(await page.locator("#task-head .meta").first().textContent()).toContain("attempt 1 of 2");
    const summary = JSON.parse(readFileSync(join(runDir, "viewer/broken/attempt-1/summary.json"), "utf8")) as { results: { attempt: number } };
    expect(summary.results.attempt).toBe(1);
    await page.screenshot({ path: join(ROOT, ".tmp", "report-viewer-attempts.png") });

    // The last evaluation's verdict is final: a node that failed then is drawn red.
    await page.goto(`${pathToFileURL(join(runDir, "report.html")).href}#task=viewer%2Fidle`);
    await expect.poll(() => page.locator(".node").getAttribute("data-status")).toBe("failed");
    expect(await page.locator(".node").evaluate(BACKGROUND)).toBe("rgb(198, 40, 40)");
    expect(problems).toEqual([]);
    await page.close();
  });

  test("pincer report RUN_DIR rebuilds the viewer; a folder that is not a run is refused", async () => {
    rmSync(join(runDir, "report.html"));
    const ok = await runPincer(["report", runDir]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/4 task\(s\): passed 1, failed 2, errors 1/);
    expect(readFileSync(join(runDir, "report.html"), "utf8")).toContain('id="pincer-data"');
    const bad = await runPincer(["report", work]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/is not a run folder: it has no manifest\.json/);
  });
});
