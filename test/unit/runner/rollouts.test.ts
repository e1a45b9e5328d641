import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import type { DatasetTask } from "@pincer/controller/datasets";
import { buildReport, reportMarkdown, type Summary } from "@pincer/controller/runner";
import { passAtK, rolloutStats, runRolloutStats } from "../../../packages/controller/src/reports/rollouts.js";
import { collectTaskFinals } from "../../../packages/controller/src/reports/writeReports.js";
import { ResultStore } from "../../../packages/controller/src/runFolder/results.js";
import { writeSummary } from "../../../packages/controller/src/runFolder/runFiles.js";
import { writeManifest } from "../../../packages/controller/src/runFolder/runFiles.js";
import { checkResumedRollouts, pendingUnits, workUnits } from "../../../packages/controller/src/runner/runner.js";
import { summaryOf, unfinishedResults } from "../../../packages/controller/src/runner/summary.js";

const work = mkdtempSync(join(tmpdir(), "pincer-rollouts-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const C = (n: number, k: number): number => (k < 0 || k > n ? 0 : k === 0 ? 1 : (C(n - 1, k - 1) * n) / k);

describe("pass@k, the unbiased estimator of Chen et al. 2021", () => {
  test("known values: n=4, c=2", () => {
    expect(passAtK(4, 2, 1)).toBeCloseTo(0.5, 12);
    expect(passAtK(4, 2, 2)).toBeCloseTo(1 - C(2, 2) / C(4, 2), 12);
    expect(passAtK(4, 2, 2)).toBeCloseTo(5 / 6, 12);
    expect(passAtK(4, 2, 3)).toBe(1);
    expect(passAtK(4, 2, 4)).toBe(1);
  });

  test("none passed is 0 for every k; all passed is 1 for every k", () => {
    for (const k of [1, 2, 3, 4]) {
      expect(passAtK(4, 0, k)).toBe(0);
      expect(passAtK(4, 4, k)).toBe(1);
    }
  });

  test("the product form agrees with the binomials, and stays finite where they overflow", () => {
    for (const [n, c, k] of [
      [10, 3, 1],
      [10, 3, 5],
      [20, 1, 7],
      [16, 15, 16],
    ] as const) {
      expect(passAtK(n, c, k)).toBeCloseTo(1 - C(n - c, k) / C(n, k), 12);
    }
    expect(passAtK(2000, 1, 1)).toBeCloseTo(1 / 2000, 15);
    expect(passAtK(2000, 1000, 100)).toBeGreaterThan(0.999999);
    expect(Number.isFinite(passAtK(2000, 10, 500))).toBe(true);
  });

  test("outside 0 ≤ c ≤ n, 1 ≤ k ≤ n is an error", () => {
    expect(() => passAtK(4, 5, 1)).toThrow(RangeError);
    expect(() => passAtK(4, 2, 5)).toThrow(/1 ≤ k ≤ n/);
    expect(() => passAtK(4, 2, 0)).toThrow(RangeError);
  });
});

const rollout = (r: number, state: string, score: number) => ({ rollout: r, state, score, attempts: 1, endReason: null, steps: 1, error: null });

describe("a task's rollout statistics", () => {
  test("pass@k for every k, best-of-N and the spread", () => {
    const s = rolloutStats([rollout(1, "failed", 0), rollout(2, "passed", 1), rollout(3, "failed", 0), rollout(4, "passed", 1)], 4);
    expect(s).toMatchObject({ planned: 4, n: 4, c: 2, errors: 0, bestOfN: 1, min: 0, max: 1, mean: 0.5, std: 0.5 });
    expect(s.passAt["1"]).toBeCloseTo(0.5, 12);
    expect(s.passAt["2"]).toBeCloseTo(5 / 6, 12);
    expect(s.passAt["4"]).toBe(1);
  });

  test("a rollout without a verdict is listed, and left out of n; pass@k beyond n is null", () => {
    const s = rolloutStats([rollout(1, "passed", 1), rollout(2, "env_error", 0), rollout(3, "failed", 0.5)], 3);
    expect(s).toMatchObject({ n: 2, c: 1, errors: 1, bestOfN: 1, min: 0.5, std: 0.25 });
    expect(s.results.map((r) => r.state)).toEqual(["passed", "env_error", "failed"]);
    expect(s.passAt).toEqual({ "1": 0.5, "2": 1, "3": null });
    expect(rolloutStats([rollout(1, "env_error", 0)], 2)).toMatchObject({ n: 0, bestOfN: null, std: null, passAt: { "1": null, "2": null } });
  });

  test("the run's means are over the tasks that have each k", () => {
    const a = rolloutStats([rollout(1, "passed", 1), rollout(2, "failed", 0)], 2);
    const b = rolloutStats([rollout(1, "failed", 0), rollout(2, "env_error", 0)], 2);
    expect(runRolloutStats([a, b], 2)).toEqual({ planned: 2, meanPassAt: { "1": 0.25, "2": 1 }, tasksAt: { "1": 2, "2": 1 }, meanBestOfN: 0.5, errors: 1 });
  });
});

const task = (id: string) => ({ id, tool: "t", kind: "json", file: `/x/${id}.json`, dir: "/x", environments: ["desktop"] }) as unknown as DatasetTask;

/** A summary of attempt `attempt` of task `id` ending in `state` with `score`. */
function summaryFor(id: string, attempt: number, state: string, score: number, rolloutNo?: number): Summary {
  const results = { ...unfinishedResults({ kind: "json" }, { attempt, worker: "", started: 0 }, state === "env_error" ? "the machine went away" : "") };
  const r = {
    ...results,
    state,
    score,
    error: state === "env_error" ? results.error : null,
    end_reason: state === "env_error" ? "env_error" : "agent_complete",
  };
  return summaryOf({ tags: ["demo"] }, id, { ...r, ...(rolloutNo ? { rollout: rolloutNo } : {}) } as Summary["results"]);
}

describe("a run of rollouts: its units, its resume, its report", () => {
  const store = new ResultStore(join(work, "run"));
  const write = (id: string, r: number, attempt: number, state: string, score: number) =>
    writeSummary(store.forRollout(r).attemptDir("t", id, attempt), summaryFor(id, attempt, state, score, r));

  test("every rollout of every task is a unit, a task's rollouts one after another; one rollout is the plain tasks", () => {
    const units = workUnits([task("a"), task("b")], 2).map((u) => `${u.task.id}#${u.rollout}`);
    expect(units).toEqual(["a#1", "a#2", "b#1", "b#2"]);
    expect(workUnits([task("a")], 1)).toEqual([{ task: task("a") }]);
    expect(store.forRollout(3).attemptDir("t", "a", 2)).toBe(join(work, "run", "t", "a", "rollout-3", "attempt-2"));
    expect(store.forRollout(undefined).attemptDir("t", "a", 2)).toBe(join(work, "run", "t", "a", "attempt-2"));
  });

  test("resume redoes only the rollouts without a verdict: unfinished, or ended in an infrastructure error", async () => {
    await write("a", 1, 1, "passed", 1);
    await write("a", 2, 1, "env_error", 0);
    // Rollout 3 never finished: a folder without summary.json.
    await store.forRollout(3).beginAttempt("t", "a", 1);
    await write("a", 4, 1, "env_error", 0);
    await write("a", 4, 2, "failed", 0);
    const kept: string[] = [];
    const pending = await pendingUnits(workUnits([task("a")], 4), store, (state) => kept.push(state));
    expect(pending.map((u) => u.rollout)).toEqual([2, 3]);
    expect(kept).toEqual(["passed", "failed"]);
  });

  test("the report: each rollout's score, pass@k, best-of-N, errors left out of n; the row stands for all rollouts", async () => {
    await write("a", 2, 2, "passed", 1);
    await write("a", 3, 1, "env_error", 0);
    const { finals, planned } = await collectTaskFinals(store, [{ tool: "t", id: "a" }]);
    expect(planned).toBe(4);
    expect(finals[0]!.rollouts!.map((r) => [r.rollout, r.summary.results.state, r.attempts])).toEqual([
      [1, "passed", 1],
      [2, "passed", 2],
      [3, "env_error", 1],
      [4, "failed", 2],
    ]);
    const report = buildReport("r", finals, planned);
    const row = report.perTask[0]!;
    expect(row.rollouts).toMatchObject({ n: 3, c: 2, errors: 1, bestOfN: 1, min: 0 });
    expect(row.rollouts!.passAt["1"]).toBeCloseTo(2 / 3, 12);
    expect(row.rollouts!.passAt["2"]).toBe(1);
    expect(row.rollouts!.passAt["4"]).toBeNull();
    expect(row).toMatchObject({ state: "failed", attempts: 6 });
    expect(row.score).toBeCloseTo(2 / 3, 12);
    expect(report.rollouts).toMatchObject({ planned: 4, errors: 1, meanBestOfN: 1 });
    const md = reportMarkdown(report);
    expect(md).toMatch(/## Rollouts \(4 per task\)/);
    expect(md).toMatch(
      /\| a \| 1: 1\.00, 2: 1\.00, 3: env_error, 4: 0\.00 \| 3 \| 2 \| 1 \| 0\.667 \| 1\.000 \| 1\.000 \| – \| 1\.000 \| 0\.000 \| 1\.000 \| 0\.471 \|/,
    );
  });

  test("a resume must keep the run's rollouts (its folders are laid out by them); a run without the field had one", async () => {
    const dir = join(work, "resumed");
    await writeManifest(dir, { run_id: "resumed", rollouts: 4, tasks: [], started_at: "2026-12-07T00:00:00.000Z" });
    await expect(checkResumedRollouts(dir, 2)).rejects.toThrow(/was run with --rollouts 4, not 2; resume it with --rollouts 4/);
    await expect(checkResumedRollouts(dir, 4)).resolves.toBeUndefined();
    await writeManifest(dir, { run_id: "resumed", tasks: [], started_at: "2026-12-07T00:00:00.000Z" });
    await expect(checkResumedRollouts(dir, 3)).rejects.toThrow(/--rollouts 1, not 3/);
  });

  test("a run of one rollout reports as before: no rollouts anywhere", async () => {
    const plain = new ResultStore(join(work, "plain"));
    await writeSummary(plain.attemptDir("t", "b", 1), summaryFor("b", 1, "passed", 1));
    const { finals, planned } = await collectTaskFinals(plain, [{ tool: "t", id: "b" }]);
    const report = buildReport("p", finals, planned);
    expect(report.rollouts).toBeUndefined();
    expect(report.perTask[0]).not.toHaveProperty("rollouts");
    expect(reportMarkdown(report)).not.toMatch(/Rollouts|pass@/);
  });
});
