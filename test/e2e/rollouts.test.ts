import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ScriptedAgent } from "@pincer/controller/agents";
import { createRegistries, loadDataset } from "@pincer/controller/datasets";
import { localProvider, openPool } from "@pincer/controller/machines";
import { runTasks, type Summary } from "@pincer/controller/runner";
import { launchChromium } from "../fixtures/chromium.js";
import { ROOT } from "../fixtures/cli.js";

/**
 * `--rollouts 4` from code on two local machines: one demo task, a scripted agent that does the task
 * in odd rollouts and nothing in even ones. Each rollout is a unit of its own (both slots take the
 * task's rollouts), its folder is rollout-<r>/attempt-<n>/, and the reports give pass@1 0.5 and
 * pass@4 1; report.html shows the rollouts side by side in Chromium.
 */
let work: string;
let runDir: string;
let browser: Browser;
const made: Array<{ rollout: number; attempt: number }> = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "pincer-rollouts-"));
  const registries = createRegistries();
  const { tasks } = await loadDataset(join(ROOT, "examples"), registries);
  const task = tasks.find((t) => t.id === "write-greeting")!;
  const pool = await openPool(localProvider({ width: 1024, height: 640 }), ["desktop"], 2);
  try {
    ({ runDir } = await runTasks({
      tasks: [task],
      registries,
      pool,
      agentFor: (t, at) => {
        made.push(at);
        return at.rollout % 2 ? new ScriptedAgent(t.solution ?? []) : new ScriptedAgent([]);
      },
      outDir: work,
      runId: "rollouts",
      rollouts: 4,
    }));
  } finally {
    await pool.close();
  }
  browser = await launchChromium("the rollouts viewer test");
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const summaryOf = (r: number): Summary =>
  JSON.parse(readFileSync(join(runDir, "terminal", "write-greeting", `rollout-${r}`, "attempt-1", "summary.json"), "utf8"));

describe("pincer run --rollouts 4", () => {
  test("four independent rollouts, each in its own folder, on both slots; the agent factory is told which rollout", () => {
    expect(readdirSync(join(runDir, "terminal", "write-greeting")).sort()).toEqual(["rollout-1", "rollout-2", "rollout-3", "rollout-4"]);
    expect(existsSync(join(runDir, "terminal", "write-greeting", "attempt-1"))).toBe(false);
    const summaries = [1, 2, 3, 4].map(summaryOf);
    expect(summaries.map((s) => [s.results.rollout, s.results.attempt, s.results.state])).toEqual([
      [1, 1, "passed"],
      [2, 1, "failed"],
      [3, 1, "passed"],
      [4, 1, "failed"],
    ]);
    // The two slots ran rollouts of the one task at once.
    const span = (s: Summary) => [Date.parse(s.results.started_at), Date.parse(s.results.finished_at)] as const;
    const overlap = summaries.some((a, i) => summaries.some((b, j) => i < j && span(a)[0] < span(b)[1] && span(b)[0] < span(a)[1]));
    expect(overlap).toBe(true);
    expect(made.map((a) => `${a.rollout}:${a.attempt}`).sort()).toEqual(["1:1", "2:1", "3:1", "4:1"]);
    expect(JSON.parse(readFileSync(join(runDir, "manifest.json"), "utf8"))).toMatchObject({ rollouts: 4, attempts: 1 });
  });

  test("report.json and report.md: each rollout's score, pass@1 0.5, pass@2 5/6, pass@4 1, best-of-4 1", () => {
    const report = JSON.parse(readFileSync(join(runDir, "report.json"), "utf8"));
    const row = report.perTask[0];
    expect(row.rollouts).toMatchObject({ planned: 4, n: 4, c: 2, errors: 0, bestOfN: 1, min: 0, max: 1, std: 0.5 });
    expect(row.rollouts.results.map((r: { score: number }) => r.score)).toEqual([1, 0, 1, 0]);
    expect(row.rollouts.passAt["1"]).toBeCloseTo(0.5, 12);
    expect(row.rollouts.passAt["2"]).toBeCloseTo(5 / 6, 12);
    expect(row.rollouts.passAt["4"]).toBe(1);
    expect(report.rollouts.meanPassAt["1"]).toBeCloseTo(0.5, 12);
    expect(report.rollouts.meanPassAt["4"]).toBe(1);
    const md = readFileSync(join(runDir, "report.md"), "utf8");
    expect(md).toMatch(/mean over tasks: pass@1 0\.500, pass@2 0\.833, pass@3 1\.000, pass@4 1\.000; best-of-4 1\.000/);
    expect(md).toMatch(/\| write-greeting \| 1: 1\.00, 2: 0\.00, 3: 1\.00, 4: 0\.00 \| 4 \| 2 \| 0 \| 0\.500 \| 0\.833 \| 1\.000 \| 1\.000 \| 1\.000 \|/);
  });

  test("report.html in Chromium: the rollouts side by side with their final screens, scores and end reasons, and pass@k", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    await page.goto(pathToFileURL(join(runDir, "report.html")).href);
    await expect.poll(() => page.locator("#run-summary").textContent()).toMatch(/4 rollouts per task: mean pass@1 0\.500 · pass@2 0\.833 · .*pass@4 1\.000/);
    await page.click('a[href="#task=terminal%2Fwrite-greeting"]');
    const cards = page.locator("#rollouts .rollout");
    await expect.poll(() => cards.count()).toBe(4);
    expect(await page.locator("#rollout-stats").textContent()).toMatch(/pass@1 0\.500 · pass@2 0\.833 · pass@3 1\.000 · pass@4 1\.000 · best-of-4 1\.00/);
    const shown = await cards.evaluateAll((els) =>
      els.map((e) => ({
        rollout: e.getAttribute("data-rollout"),
        state: e.getAttribute("data-state"),
        score: e.querySelector(".rollout-score")?.textContent,
        end: e.querySelector(".rollout-end")?.textContent,
        image: (e.querySelector("img") as { naturalWidth: number; complete: boolean } | null)?.naturalWidth ?? 0,
        top: Math.round(e.getBoundingClientRect().top),
      })),
    );
    expect(shown.map((c) => [c.rollout, c.state, c.score])).toEqual([
      ["1", "passed", "score 1.00"],
      ["2", "failed", "score 0.00"],
      ["3", "passed", "score 1.00"],
      ["4", "failed", "score 0.00"],
    ]);
    expect(shown.map((c) => c.end)).toEqual(["ended: success", "ended: agent_complete", "ended: success", "ended: agent_complete"]);
    // Side by side: one row of four, each with its final screen loaded from the run folder.
    expect(new Set(shown.map((c) => c.top)).size).toBe(1);
    await expect
      .poll(() => cards.locator("img").evaluateAll((imgs) => imgs.map((i) => (i as unknown as { naturalWidth: number }).naturalWidth)))
      .toEqual([1024, 1024, 1024, 1024]);
    // A click on rollout 2 shows its steps (it took none: the agent was done at once).
    await cards.nth(1).click();
    await expect.poll(() => page.locator("#task-head .meta").first().textContent()).toMatch(/rollout 2, attempt 1/);
    expect(page.url()).toMatch(/rollout=2&attempt=1/);
    expect(await page.locator("#rollouts .rollout.current").getAttribute("data-rollout")).toBe("2");
    // The attempt picker lists every rollout's attempts.
    expect(await page.locator("#f-attempt option").allTextContents()).toEqual([
      "rollout 1 · attempt 1 · passed",
      "rollout 2 · attempt 1 · failed",
      "rollout 3 · attempt 1 · passed",
      "rollout 4 · attempt 1 · failed",
    ]);
    await page.selectOption("#f-attempt", "3:1");
    await expect.poll(() => page.locator('a[data-file="summary"]').getAttribute("href")).toBe("terminal/write-greeting/rollout-3/attempt-1/summary.json");
    expect(problems).toEqual([]);
    await page.close();
  });
});
