import { describe, expect, test } from "vitest";
import { buildReport, reportMarkdown, type Summary, type TaskResults } from "@pincer/controller/runner";

function summary(id: string, fields: Record<string, unknown>, results: Partial<TaskResults>): { tool: string; summary: Summary; attempts: number } {
  const base: TaskResults = {
    score: 0,
    state: "failed",
    agent_state: "agent_done",
    end_reason: "agent_complete",
    eval_error: null,
    eval_reason: null,
    error: null,
    teardown_error: null,
    messages: [],
    total_tokens: 0,
    input_tokens: 0,
    output_tokens: 0,
    total_timing: { total_ms: 2000, setup_ms: 0, model_ms: 0, env_ms: 0 },
    steps: 1,
    max_steps: 10,
    max_steps_rule: "fixed 10",
    agent: "scripted",
    model: "",
    daemon_versions: {},
    environments: {},
    machine_reset: {},
    attempt: 1,
    started_at: "",
    finished_at: "",
  };
  return { tool: "t", attempts: 1, summary: { id, ...fields, results: { ...base, ...results } } };
}

describe("the run report", () => {
  const finals = [
    summary("a", { tags: ["cli", "verbose"], related_apps: ["xterm"], counterpart: "b" }, { score: 1, state: "passed", total_tokens: 1000, cost_usd: 0.01 }),
    summary(
      "b",
      { tags: ["cli", "abstract"], related_apps: ["xterm"], counterpart: "a" },
      {
        score: 0.5,
        state: "failed",
        total_tokens: 3000,
        cost_usd: 0.03,
        metrics: {
          completionRatio: 0.5,
          score: 0.5,
          reason: "1 of 2 checks passed",
          success: false,
          actions: 1,
          tokens: 3000,
          executionEfficiency: 0.5,
          costEfficiency: null,
          stepsToComplete: null,
          longestUnfinishedPath: 1,
          passedNodes: ["first"],
        },
      },
    ),
    summary("c", { tags: ["gui"] }, { state: "setup_error", error: "script failed", total_timing: { total_ms: 4000, setup_ms: 0, model_ms: 0, env_ms: 0 } }),
  ];
  const r = buildReport("run-x", finals);

  test("errors count as failures in the success rate and are also counted apart", () => {
    expect(r).toMatchObject({ tasks: 3, passed: 1, failed: 1, errors: 1, errorsByState: { setup_error: 1 } });
    expect(r.successRate).toBeCloseTo(1 / 3);
    expect(r.meanScore).toBeCloseTo(1.5 / 3);
    expect(r.meanCompletionRatio).toBeCloseTo((1 + 0.5 + 0) / 3);
  });

  test("per tag, per app, counterpart pairs side by side, tokens, cost and time", () => {
    expect(r.byTag.cli).toMatchObject({ tasks: 2, passed: 1, failed: 1, errors: 0, meanScore: 0.75 });
    expect(r.byTag.gui).toMatchObject({ tasks: 1, errors: 1 });
    expect(r.byApp.xterm).toMatchObject({ tasks: 2 });
    expect(r.counterparts).toEqual([{ a: "a", b: "b", aScore: 1, bScore: 0.5, aTags: ["cli", "verbose"], bTags: ["cli", "abstract"] }]);
    expect(r.totalTokens).toBe(4000);
    expect(r.totalCostUsd).toBeCloseTo(0.04);
    expect(r.meanSecondsPerTask).toBeCloseTo(8 / 3);
    const md = reportMarkdown(r);
    expect(md).toMatch(/success rate: 33\.3% \(errors count as failures\)/);
    expect(md).toMatch(/infrastructure errors 1 \(setup_error 1\)/);
    expect(md).toMatch(/cost: \$0\.0400/);
    expect(md).toMatch(/\| a \(cli, verbose\) \| 1\.00 \| b \(cli, abstract\) \| 0\.50 \|/);
  });

  test("no price anywhere: no cost", () => {
    expect(buildReport("r", [summary("x", {}, { state: "passed", score: 1 })]).totalCostUsd).toBeNull();
  });
});
