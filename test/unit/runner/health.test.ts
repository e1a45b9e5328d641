import { describe, expect, test } from "vitest";
import { type HealthReport, type HealthRun, healthRunFolders, type TaskHealth, taskHealth } from "@pincer/controller/runner";
import { healthConsole, healthExitCode, parseRepeat } from "../../../packages/controller/src/cli/healthCommand.js";
import { healthHtml } from "../../../packages/controller/src/health/healthHtml.js";
import { countStatuses, median } from "../../../packages/controller/src/health/taskHealth.js";

const task = { tool: "t", id: "x", hasSolution: true };

function run(n: number | "no-actions", state: HealthRun["state"], score: number, reason: string, ms = 1000): HealthRun {
  const name = n === "no-actions" ? n : `solution-${n}`;
  return { run: name, summary: `${name}/t/x/attempt-1/summary.json`, state, score, ms, resetMs: 300, reason };
}
const pass = (n: number, ms?: number) => run(n, "passed", 1, "the file exists", ms);
const fail = (n: number, reason = "the file does not exist") => run(n, "failed", 0, reason);
const idle = run("no-actions", "failed", 0, "the file does not exist");

describe("a task's health over repeated runs", () => {
  test("healthy: its solution scores 1 every time and no actions 0; the median is over its runs", () => {
    const h = taskHealth(task, [pass(1, 1000), pass(2, 3000), pass(3, 2000)], idle);
    expect(h).toMatchObject({ key: "t/x", status: "healthy", findings: [], runs: 3, verdicts: 3, passes: 3, machineFailures: 0, medianMs: 2000 });
    expect(h.reasons).toEqual([{ reason: "the file exists", count: 3, runs: [1, 2, 3] }]);
  });

  test("flaky: 1 in some runs only; the distinct reasons are counted with their runs, most frequent first", () => {
    const h = taskHealth(task, [pass(1), fail(2, "race lost"), pass(3), fail(4, "race lost"), pass(5)], idle);
    expect(h.status).toBe("flaky");
    expect(h.passes).toBe(3);
    expect(h.scores).toEqual([1, 0, 1, 0, 1]);
    expect(h.findings).toEqual([{ kind: "flaky", message: expect.stringMatching(/scored 1 in 3 of 5 runs on clean machines/) }]);
    expect(h.reasons).toEqual([
      { reason: "the file exists", count: 3, runs: [1, 3, 5] },
      { reason: "race lost", count: 2, runs: [2, 4] },
    ]);
  });

  test("scores that vary without ever reaching 1: broken, and flaky too", () => {
    const h = taskHealth(task, [run(1, "failed", 0.5, "half"), run(2, "failed", 0.25, "a quarter")], idle);
    expect(h.status).toBe("broken");
    expect(h.findings.map((f) => f.kind)).toEqual(["broken", "flaky"]);
    expect(h.findings[1]!.message).toMatch(/scores vary between runs on clean machines \(0\.5, 0\.25\)/);
  });

  test("broken: never 1, with why; a task without a solution is told to add one", () => {
    const h = taskHealth(task, [fail(1), fail(2)], idle);
    expect(h.status).toBe("broken");
    expect(h.findings).toEqual([{ kind: "broken", message: "its solution never scored 1 in 2 run(s): 2× the file does not exist" }]);
    const none = taskHealth({ ...task, hasSolution: false }, [fail(1)], idle);
    expect(none.findings[0]!.message).toMatch(/it has no solution to run \(add one/);
  });

  test("too lenient: no actions score more than 0; with a flaky solution, both are found and flaky is the status", () => {
    const lenient = run("no-actions", "passed", 1, "/tmp exists");
    expect(taskHealth(task, [pass(1), pass(2)], lenient)).toMatchObject({
      status: "too_lenient",
      findings: [{ kind: "too_lenient", message: "with no actions it scores 1 (passed): it passes by itself (/tmp exists)" }],
    });
    expect(taskHealth(task, [pass(1), fail(2)], lenient).findings.map((f) => f.kind)).toEqual(["flaky", "too_lenient"]);
    // A setup error with no actions scores 0: not lenient (and the runs with its solution say whether its setup is sound).
    expect(taskHealth(task, [pass(1)], run("no-actions", "setup_error", 0, "setup failed: x")).status).toBe("healthy");
  });

  test("a machine that failed is not the task's fault: left out of the counts, reported apart, never flaky", () => {
    const died = run(2, "env_error", 0, "machine failed: the daemon is unreachable");
    const h = taskHealth(task, [pass(1), died, pass(3)], idle);
    expect(h).toMatchObject({ status: "unmeasured", runs: 3, verdicts: 2, passes: 2, machineFailures: 1, medianMs: 1000, scores: [1, null, 1] });
    expect(h.findings).toEqual([
      {
        kind: "machine_failure",
        message: expect.stringMatching(
          /^its machine failed in 1 of 3 run\(s\) with its solution \(1× machine failed: the daemon is unreachable\): not the task's fault/,
        ),
      },
    ]);
    // A machine that failed with no actions: whether it passes by itself is not known.
    const idleDied = run("no-actions", "env_error", 0, "machine failed: reset failed");
    const h2 = taskHealth(task, [pass(1), pass(2)], idleDied);
    expect(h2).toMatchObject({ status: "unmeasured", machineFailures: 1 });
    expect(h2.findings[0]!.message).toMatch(/whether it passes by itself is not known; not the task's fault/);
    // Every run lost: nothing is known, and nothing is blamed on the task.
    expect(taskHealth(task, [died, died], idle)).toMatchObject({ status: "unmeasured", verdicts: 0, medianMs: null });
    // A broken task stays broken when a machine also failed.
    expect(taskHealth(task, [fail(1), died], idle).status).toBe("broken");
    // A setup error is the task's: it counts as a run that did not pass.
    expect(taskHealth(task, [pass(1), run(2, "setup_error", 0, "setup failed: no such file")], idle).status).toBe("flaky");
  });

  test("the median of an even count is the mean of the middle two; none for no values", () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });
});

function report(perTask: TaskHealth[]): HealthReport {
  return {
    repeat: 2,
    runFolders: healthRunFolders(2),
    startedAt: "2026-01-01T00:00:00.000Z",
    finishedAt: "2026-01-01T00:01:00.000Z",
    tasks: perTask.length,
    counts: countStatuses(perTask),
    perTask,
  };
}

describe("the health report", () => {
  const healthy = taskHealth({ tool: "t", id: "good", hasSolution: true }, [pass(1), pass(2)], idle);
  const flaky = taskHealth({ tool: "t", id: "flaky", hasSolution: true }, [pass(1), fail(2)], idle);
  const lost = taskHealth({ tool: "t", id: "lost", hasSolution: true }, [pass(1), run(2, "env_error", 0, "machine failed: gone")], idle);

  test("exit code: 0 all healthy, 3 when only machines failed, 1 when a task is not healthy", () => {
    expect(healthExitCode(report([healthy]))).toBe(0);
    expect(healthExitCode(report([healthy, lost]))).toBe(3);
    expect(healthExitCode(report([healthy, lost, flaky]))).toBe(1);
  });

  test("the console names the unhealthy tasks, with their findings and reasons", () => {
    const text = healthConsole(report([healthy, flaky, lost]), "/tmp/h");
    expect(text).toMatch(/^healthy {5}t\/good: solution passed 2\/2 \(scores 1 1\), no actions 0, median 1\.00 s$/m);
    expect(text).toMatch(/^FLAKY {7}t\/flaky: solution passed 1\/2 \(scores 1 0\)/m);
    expect(text).toMatch(/^ {2}reasons: 1× the file exists \| 1× the file does not exist$/m);
    expect(text).toMatch(/^UNMEASURED {2}t\/lost: solution passed 1\/1 \(of 2 runs\) \(scores 1 machine-failed\)/m);
    expect(text).toMatch(/^ {2}machine: its machine failed in 1 of 2 run\(s\)/m);
    expect(text).toMatch(/^1 of 3 tasks healthy over 2 run\(s\) each; flaky 1: t\/flaky; unmeasured 1: t\/lost$/m);
    expect(text).toContain("report: /tmp/h/health.json\n");
  });

  test("health.html: a row per task, the most serious first, every run linked to its summary.json, no script", () => {
    const html = healthHtml(report([healthy, flaky]));
    expect([...html.matchAll(/<tr data-key="([^"]+)" data-status="([^"]+)">/g)].map((m) => `${m[1]} ${m[2]}`)).toEqual(["t/flaky flaky", "t/good healthy"]);
    expect(html).toContain('href="solution-1/t/x/attempt-1/summary.json"');
    expect(html).toContain('href="solution-2/report.html#task=t%2Fflaky"');
    expect(html).not.toContain("<script");
  });

  test("health.html escapes what a task's reasons say", () => {
    const hostile = taskHealth({ tool: "t", id: "h", hasSolution: true }, [fail(1, "</td><script>alert(1)</script>")], idle);
    const html = healthHtml(report([hostile]));
    expect(html).not.toContain("<script>alert");
    expect(html).toContain("&#60;/td&#62;&#60;script&#62;");
  });

  test("--repeat takes a whole number ≥ 1 and says what to write otherwise", () => {
    expect(parseRepeat("5")).toBe(5);
    for (const bad of ["0", "-2", "2.5", "five", "", "1e3"]) expect(() => parseRepeat(bad)).toThrow(/--repeat takes how many times .* \(e\.g\. --repeat 5\)/);
  });

  test("run folders sort in order when there are ten or more", () => {
    expect(healthRunFolders(3)).toEqual({ solution: ["solution-1", "solution-2", "solution-3"], noActions: "no-actions" });
    expect(healthRunFolders(12).solution.slice(0, 2)).toEqual(["solution-01", "solution-02"]);
  });
});
