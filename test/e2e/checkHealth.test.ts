import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { HealthReport } from "@pincer/controller/runner";
import { launchChromium } from "../fixtures/chromium.js";
import { type CliResult, ROOT, runPincer } from "../fixtures/cli.js";

// test/fixtures/health-dataset: t/good and t/steady are healthy; t/flaky's evaluator keeps a count
// between attempts and fails every even one (runs 2 and 4 of 5, deterministically: it cannot be
// taken for healthy); t/lenient passes with no actions; t/broken's solution writes the wrong file.
const DATASET = "test/fixtures/health-dataset";

let work: string;
let out: string;
let r: CliResult;
let health: HealthReport;
const byKey = (key: string) => health.perTask.find((t) => t.key === key)!;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "pincer-health-"));
  out = join(work, "health");
  r = await runPincer(["check", DATASET, "--repeat", "5", "--concurrency", "2", "--out", out]);
  health = JSON.parse(readFileSync(join(out, "health.json"), "utf8")) as HealthReport;
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("pincer check --repeat 5, on local sandboxes", () => {
  test("names the flaky, too lenient and broken tasks on the console and exits 1", () => {
    expect(r.code, r.stderr + r.stdout).toBe(1);
    expect(r.stdout).toMatch(/^healthy {5}t\/good: solution passed 5\/5 \(scores 1 1 1 1 1\), no actions 0, median \d+\.\d\d s$/m);
    expect(r.stdout).toMatch(/^healthy {5}t\/steady: solution passed 5\/5/m);
    expect(r.stdout).toMatch(/^FLAKY {7}t\/flaky: solution passed 3\/5 \(scores 1 0 1 0 1\), no actions 0/m);
    expect(r.stdout).toMatch(/^ {2}flaky: its solution scored 1 in 3 of 5 runs on clean machines/m);
    expect(r.stdout).toMatch(/^ {2}reasons: 3× \/tmp\/pincer-health\/flaky\.txt exists \| 2× .*fails every even attempt$/m);
    expect(r.stdout).toMatch(/^TOO LENIENT t\/lenient: solution passed 5\/5 .*, no actions 1,/m);
    expect(r.stdout).toMatch(/^BROKEN {6}t\/broken: solution passed 0\/5/m);
    expect(r.stdout).toMatch(/^ {2}broken: its solution never scored 1 in 5 run\(s\): 5× \/tmp\/pincer-health\/never\.txt does not exist$/m);
    expect(r.stdout).toMatch(/^2 of 5 tasks healthy over 5 run\(s\) each; broken 1: t\/broken; flaky 1: t\/flaky; too lenient 1: t\/lenient$/m);
    expect(r.stdout).toContain(`report: ${join(out, "health.json")}\n`);
  });

  test("health.json: statuses, passes, scores, reasons with their runs, times, and each run's summary.json", () => {
    expect(health).toMatchObject({ repeat: 5, tasks: 5, counts: { healthy: 2, flaky: 1, broken: 1, too_lenient: 1, unmeasured: 0 } });
    expect(Object.fromEntries(health.perTask.map((t) => [t.key, t.status]))).toEqual({
      "t/broken": "broken",
      "t/flaky": "flaky",
      "t/good": "healthy",
      "t/lenient": "too_lenient",
      "t/steady": "healthy",
    });
    const flaky = byKey("t/flaky");
    expect(flaky).toMatchObject({ runs: 5, verdicts: 5, passes: 3, machineFailures: 0, scores: [1, 0, 1, 0, 1] });
    expect(flaky.reasons.map((x) => [x.count, x.runs])).toEqual([
      [3, [1, 3, 5]],
      [2, [2, 4]],
    ]);
    expect(flaky.findings.map((f) => f.kind)).toEqual(["flaky"]);
    expect(byKey("t/lenient")).toMatchObject({ passes: 5, noActions: { state: "passed", score: 1 }, findings: [{ kind: "too_lenient" }] });
    expect(byKey("t/good")).toMatchObject({ status: "healthy", findings: [], passes: 5, noActions: { score: 0 } });
    for (const t of health.perTask) {
      expect(t.medianMs).toBeGreaterThan(0);
      for (const run of [...t.solutionRuns, t.noActions]) {
        expect(run.ms).toBeGreaterThan(0);
        const summary = JSON.parse(readFileSync(join(out, run.summary), "utf8"));
        expect(summary.id).toBe(t.id);
        expect(summary.results.score).toBe(run.score);
      }
    }
    // Every run kept, each a run folder with its viewer; nothing half-written left behind.
    expect(readdirSync(out).sort()).toEqual(["health.html", "health.json", "no-actions", "solution-1", "solution-2", "solution-3", "solution-4", "solution-5"]);
    expect(existsSync(join(out, "solution-3", "report.html"))).toBe(true);
  });

  test("bad input says what to do: --repeat 0 or not a number, an --out folder that is not empty", async () => {
    for (const bad of ["0", "five"]) {
      const res = await runPincer(["check", DATASET, "--repeat", bad]);
      expect(res.code).not.toBe(0);
      expect(res.stderr).toMatch(/--repeat takes how many times each task's solution runs, a whole number ≥ 1 \(e\.g\. --repeat 5\)/);
    }
    const full = join(work, "full");
    mkdirSync(full);
    writeFileSync(join(full, "keep.txt"), "mine");
    const res = await runPincer(["check", DATASET, "--repeat", "2", "--out", full]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/--out .*full is not empty: check writes its runs into a new or empty folder; choose another/);
    expect(readdirSync(full)).toEqual(["keep.txt"]);
  });

  test("a machine that dies in one run is its machine's failure, not the task's: unmeasured, never flaky; exit 3", async () => {
    // test/fixtures/health-machine: a sound task whose setup kills its own sandbox's daemon in its second run.
    const dir = join(work, "dies");
    const res = await runPincer(["check", "test/fixtures/health-machine", "--repeat", "3", "--out", dir]);
    expect(res.code, res.stderr + res.stdout).toBe(3);
    expect(res.stdout).toMatch(/^UNMEASURED {2}t\/dies: solution passed 2\/2 \(of 3 runs\) \(scores 1 machine-failed 1\), no actions 0/m);
    expect(res.stdout).toMatch(
      /^ {2}machine: its machine failed in 1 of 3 run\(s\) with its solution \(1× machine failed: .*unreachable.*\): not the task's fault/m,
    );
    expect(res.stdout).not.toMatch(/flaky/i);
    const report = JSON.parse(readFileSync(join(dir, "health.json"), "utf8")) as HealthReport;
    expect(report.counts).toMatchObject({ unmeasured: 1, flaky: 0 });
    expect(report.perTask[0]).toMatchObject({ status: "unmeasured", passes: 2, verdicts: 2, machineFailures: 1, scores: [1, null, 1] });
    expect(report.perTask[0]!.solutionRuns.map((x) => x.state)).toEqual(["passed", "env_error", "passed"]);
  });

  test("without --repeat, check prints as before; --out keeps its two runs", async () => {
    const kept = join(work, "kept");
    const res = await runPincer(["check", DATASET, "--task", "t/good", "--out", kept]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^ok {3}t\/good\n1 of 1 tasks check out\n$/m);
    expect(readdirSync(kept).sort()).toEqual(["no-actions", "with-solution"]);
    expect(existsSync(join(kept, "with-solution", "t", "good", "attempt-1", "summary.json"))).toBe(true);
  });
});

describe("health.html in headless Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium("the health page test");
  });
  afterAll(async () => {
    await browser?.close();
  });

  test("a row per task, the most serious first, with status, passes, runs, no actions, reasons and time; the links open the runs", async () => {
    const page = await browser.newPage({ viewport: { width: 1500, height: 700 } });
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("request", (q) => {
      if (!q.url().startsWith("file:")) problems.push(`request: ${q.url()}`);
    });
    await page.goto(pathToFileURL(join(out, "health.html")).href);
    const rows = page.locator("#health tbody tr");
    expect(await rows.evaluateAll((trs) => trs.map((tr) => `${tr.getAttribute("data-key")} ${tr.querySelector(".state")?.textContent}`))).toEqual([
      "t/broken broken",
      "t/flaky flaky",
      "t/lenient too lenient",
      "t/good healthy",
      "t/steady healthy",
    ]);
    const flaky = page.locator('tr[data-key="t/flaky"]');
    expect(await flaky.locator('[data-col="passes"]').textContent()).toBe("3/5");
    expect(await flaky.locator("a.run").evaluateAll((as) => as.map((a) => `${a.textContent}:${a.className}`))).toEqual([
      "1:run good",
      "0:run bad",
      "1:run good",
      "0:run bad",
      "1:run good",
      "0:run good",
    ]);
    expect(await flaky.locator('[data-col="reasons"] li').count()).toBe(2);
    expect(await flaky.locator('[data-col="median"]').textContent()).toMatch(/^\d+\.\d\d$/);
    expect(await page.locator('tr[data-key="t/lenient"] [data-col="no-actions"] a.run').getAttribute("class")).toBe("run bad");
    // Every run's link is a summary.json of the folder.
    const hrefs = await page.locator("a.run").evaluateAll((as) => as.map((a) => a.getAttribute("href")!));
    expect(hrefs).toHaveLength(30);
    for (const href of hrefs) expect(existsSync(join(out, href)), href).toBe(true);
    mkdirSync(join(ROOT, ".tmp"), { recursive: true });
    await page.screenshot({ path: join(ROOT, ".tmp", "health-html.png"), fullPage: true });

    // A run number of a reason opens that run's viewer at the task.
    await flaky.locator('[data-col="reasons"] li:nth-child(2) a').first().click();
    await expect.poll(() => page.url()).toMatch(/solution-2\/report\.html#task=t%2Fflaky$/);
    await expect.poll(() => page.locator("#view-task").isVisible()).toBe(true);
    expect(await page.locator("#task-head").textContent()).toContain("t/flaky");
    expect(problems).toEqual([]);
    await page.close();
  });
});
