import { describe, expect, test } from "vitest";
import type { PerTask } from "../../../packages/controller/src/reports/report.js";
import { taskChange } from "../../../packages/controller/src/reports/runComparison.js";
import { runConfig } from "../../../packages/controller/src/reports/viewerData.js";

const row = (state: string, score: number): PerTask => ({
  id: "t",
  tool: "x",
  state,
  score,
  steps: 1,
  tokens: 0,
  costUsd: null,
  seconds: 1,
  attempts: 1,
  error: null,
});

describe("comparing two runs", () => {
  test("a task got better, got worse, changed state or stayed the same; one run only", () => {
    expect(taskChange(row("failed", 0), row("passed", 1))).toBe("better");
    expect(taskChange(row("failed", 0.25), row("failed", 0.5))).toBe("better");
    expect(taskChange(row("passed", 1), row("failed", 0.5))).toBe("worse");
    expect(taskChange(row("failed", 0), row("env_error", 0))).toBe("changed");
    expect(taskChange(row("failed", 0), row("failed", 0))).toBe("same");
    expect(taskChange(null, row("failed", 0))).toBe("only_b");
    expect(taskChange(row("failed", 0), null)).toBe("only_a");
  });

  test("a run's configuration: what an older manifest did not record is null; a queue run's agent comes from its manifest", () => {
    const old = runConfig({ run_id: "r", max_steps: "auto", task_timeout_ms: 600_000, screenshots: true, settle: "auto" }, []);
    expect(old).toMatchObject({ agent: null, model: null, maxSteps: "auto", taskTimeout: "600 s", screenshots: "on", settle: "auto", record: null });
    expect(old.accessibility).toBeNull();
    const queued = runConfig({ queue: { name: "pincer" }, agent: { kind: "anthropic", model: "m1" }, settle: false, record: false, accessibility: null }, []);
    expect(queued).toMatchObject({ agent: "anthropic", model: "m1", provider: "queue pincer", settle: "off", record: "off", accessibility: "off" });
    const container = runConfig({ provider: { name: "container", config: { image: "pincer/desktop:1" } } }, []);
    expect(container).toMatchObject({ provider: "container", image: "pincer/desktop:1" });
  });
});
