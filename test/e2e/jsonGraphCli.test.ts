import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { runPincer } from "../fixtures/cli.js";

// test/fixtures/graph-dataset: one JSON task whose evaluation is a graph of two nodes (a.txt, then b.txt).
const DATASET = "test/fixtures/graph-dataset";

describe("a JSON task judged by an evaluation graph, through the CLI", () => {
  test("check: its solution scores 1 and no action 0", async () => {
    const r = await runPincer(["check", DATASET]);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toContain("ok   files/two-files\n1 of 1 tasks check out");
  });

  test("run: summary.json has the graph's metrics and passed nodes; the trajectory shows the partial credit after each step", async () => {
    const out = mkdtempSync(join(tmpdir(), "pincer-graph-run-"));
    try {
      const r = await runPincer(["run", DATASET, "--out", out, "--run-id", "r", "--no-screenshots"]);
      expect(r.code, r.stderr + r.stdout).toBe(0);
      const attempt = join(out, "r", "files", "two-files", "attempt-1");
      const summary = JSON.parse(readFileSync(join(attempt, "summary.json"), "utf8"));
      expect(summary.evaluation.graph.edges).toEqual([["a_written", "b_written"]]);
      expect(summary.results).toMatchObject({
        state: "passed",
        score: 1,
        eval_reason: "2 of 2 checks passed",
        metrics: { completionRatio: 1, success: true, stepsToComplete: 2, passedNodes: ["a_written", "b_written"] },
      });
      const lines = readFileSync(join(attempt, "trajectory.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(lines.map((l) => [l.evaluation.nodes, l.evaluation.score])).toEqual([
        [{ a_written: "passed", b_written: "failed" }, 0.5],
        [{ a_written: "passed", b_written: "passed" }, 1],
      ]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
