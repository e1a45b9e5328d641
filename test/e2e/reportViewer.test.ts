import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { z } from "zod";
import { createGraphEvaluator, evaluator } from "@pincer/controller";
import type { Agent, AgentTurn } from "@pincer/controller/agents";
import { createRegistries, defineTask } from "@pincer/controller/datasets";
import { remotePool } from "@pincer/controller/machines";
import { runTasks, type TrajectoryLine } from "@pincer/controller/runner";
import { runPincer } from "../fixtures/cli.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { moduleTask } from "../fixtures/tasks.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

// Debian's chromium (scripts/install-system-deps.sh installs it); CHROMIUM_PATH names another build.
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
// Larger than the 1280x800 the runner's screenshots fit in: they are scaled by 0.8, and the viewer must map clicks accordingly.
const W = 1600;
const H = 1000;
const CLICK = { x: 400, y: 300 };
const DRAG_END = { x: 1200, y: 700 };
// Model text that would end the data's <script> element, were it embedded unescaped.
const HOSTILE = `Clicking the button. </script><script>window.pwned = 1</script><!-- <img src=x onerror="window.pwned = 2">`;

const pointerNear = evaluator({
  name: "pointer_near",
  description: "Is the pointer within 20 pixels of the point?",
  params: z.object({ x: z.number(), y: z.number() }),
  run: async ({ x, y }, { env, signal }) => {
    const p = await env.mouse.position({ signal });
    return Math.abs(p.x - x) <= 20 && Math.abs(p.y - y) <= 20;
  },
});
const never = evaluator({ name: "never", description: "Never passes.", run: async () => false });

const pointing = defineTask({
  id: "pointing",
  instruction: "Click the point, then drag from it to the lower right.",
  tags: ["gui"],
  related_apps: ["xclock"],
  build: () => ({
    evaluator: createGraphEvaluator({
      nodes: { clicked: pointerNear.bind(CLICK), dragged: pointerNear.bind(DRAG_END) },
      edges: [["clicked", "dragged"]],
      passPolicy: "sticky",
    }),
  }),
});
const idle = defineTask({ id: "idle", instruction: "Nothing can pass this.", tags: ["cli"], related_apps: ["bash"], build: () => ({ evaluator: never }) });

/** Plays fixed turns (text, tool calls, usage) like a model would; then says done. */
class TurnsAgent implements Agent {
  readonly name = "turns";
  readonly model = "fixed-turns";
  readonly wantsScreenshots = false;
  #next = 0;
  constructor(private readonly turns: AgentTurn[]) {}
  start(): void {
    this.#next = 0;
  }
  async act(): Promise<AgentTurn> {
    return this.turns[this.#next++] ?? { calls: [], done: true, message: "Nothing left to do." };
  }
}

const usage = { input: 1200, output: 40 };
const POINTING_TURNS: AgentTurn[] = [
  { message: HOSTILE, usage, calls: [{ tool: "desktop__click", args: CLICK }] },
  {
    message: "Typing, then selecting all.",
    usage,
    calls: [
      { tool: "desktop__type", args: { text: "hi" } },
      { tool: "desktop__key", args: { keys: "ctrl+a" } },
    ],
  },
  { message: "Scrolling.", usage, calls: [{ tool: "desktop__scroll", args: { dy: 2, x: 800, y: 500 } }] },
  { message: "Dragging.", usage, calls: [{ tool: "desktop__drag", args: { start_x: CLICK.x, start_y: CLICK.y, end_x: DRAG_END.x, end_y: DRAG_END.y } }] },
];

let xvfb: XServer;
let daemon: RunningDaemon;
let browser: Browser;
let work: string;
let runDir: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`the run viewer test needs Chromium at ${CHROMIUM}: install Debian's chromium (scripts/install-system-deps.sh) or set CHROMIUM_PATH`);
  }
  work = mkdtempSync(join(tmpdir(), "pincer-viewer-"));
  xvfb = await startXvfb({ width: W, height: H });
  daemon = await spawnDaemon({ display: xvfb.display });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  const pool = await remotePool([`desktop=${daemon.address}`]);
  try {
    const tasks = [moduleTask(pointing, work, "viewer"), moduleTask(idle, work, "viewer")];
    const run = await runTasks({
      tasks,
      registries: createRegistries(),
      pool,
      agentFor: (t) => new TurnsAgent(t.id === "pointing" ? POINTING_TURNS : []),
      outDir: join(work, "results"),
      runId: "viewer-run",
      screenshots: true,
      settle: { quietMs: 100, maxMs: 2000 },
      record: true,
      maxSteps: 10,
    });
    runDir = run.runDir;
  } finally {
    await pool.close();
  }
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
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
    await expect.poll(() => rowKeys(page)).toEqual(["viewer/idle", "viewer/pointing"]);
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
    expect(await rowKeys(page)).toEqual(["viewer/pointing", "viewer/idle"]);
    await page.click('#tasks th[data-sort="steps"]');
    expect(await rowKeys(page)).toEqual(["viewer/idle", "viewer/pointing"]);

    await page.click('#tasks tr[data-key="viewer/pointing"] td:nth-child(3)');
    await expect.poll(() => page.locator("#view-task").isVisible()).toBe(true);
    expect(await page.locator("#step-pos").textContent()).toBe("step 1 of 6");
    expect(await page.locator(".step-title").textContent()).toContain("desktop__click");
    // The model's text is shown as text, and none of it ran.
    expect(await page.locator("pre.message").textContent()).toBe(HOSTILE);
    expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.locator('.node[data-node="clicked"]').getAttribute("data-status")).toBe("passed");
    expect(await page.locator('.node[data-node="dragged"]').getAttribute("data-status")).toBe("failed");
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
    expect(await page.locator(".section").first().textContent()).toContain("shown with its first step");
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

  test("pincer report RUN_DIR rebuilds the viewer; a folder that is not a run is refused", async () => {
    rmSync(join(runDir, "report.html"));
    const ok = await runPincer(["report", runDir]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/2 task\(s\): passed 1, failed 1, errors 0/);
    expect(readFileSync(join(runDir, "report.html"), "utf8")).toContain('id="pincer-data"');
    const bad = await runPincer(["report", work]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/is not a run folder: it has no manifest\.json/);
  });
});
