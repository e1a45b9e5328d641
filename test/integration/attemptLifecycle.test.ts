import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ScriptedAgent } from "@pincer/controller/agents";
import { createRegistries, loadDataset, type DatasetTask } from "@pincer/controller/datasets";
import { type MachinePool, remotePool } from "@pincer/controller/machines";
import { Attempt, type AttemptStep, runSettings, type Summary } from "@pincer/controller/runner";
import { ResultStore } from "../../packages/controller/src/runFolder/results.js";
import { runOneAttempt } from "../../packages/controller/src/runner/runner.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

// An attempt driven from outside, one action at a time (what an episode service does), on a real
// daemon under Xvfb, with the sort-inbox example: three checks, so the score moves step by step.

const registries = createRegistries();
let xs: XServer;
let daemon: RunningDaemon;
let pool: MachinePool;
let work: string;
let task: DatasetTask;

beforeAll(async () => {
  xs = await startXvfb({ width: 1024, height: 768 });
  daemon = await spawnDaemon({ display: xs.display });
  pool = await remotePool([`desktop=${daemon.address}`]);
  work = mkdtempSync(join(tmpdir(), "pincer-lifecycle-"));
  const dataset = await loadDataset(resolve(import.meta.dirname, "../../examples/files"), registries);
  task = dataset.tasks.find((t) => t.id === "sort-inbox")!;
  expect(task).toBeDefined();
});
afterAll(async () => {
  await pool?.close();
  await daemon?.close();
  await xs?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const inbox = "/tmp/pincer-demo/sort-inbox";
const run = (command: string) => ({ tool: "desktop__run_command", args: { command } });
const lines = (dir: string) =>
  readFileSync(join(dir, "trajectory.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** An attempt of sort-inbox on the test's machine, its actions chosen by the test. */
function externalAttempt(store: ResultStore): Attempt {
  const slot = pool.slots[0]!;
  return new Attempt({
    task,
    attempt: 1,
    envs: slot.envs,
    addresses: slot.addresses,
    registries,
    agent: { name: "external", model: "test-driver", wantsScreenshots: true },
    settings: runSettings({ settle: false }),
    store,
    signal: new AbortController().signal,
  });
}

/** The parts of a summary's results that do not depend on timing or on who acted. */
function verdictOf(s: Summary) {
  const { state, score, end_reason, agent_state, steps, max_steps, max_steps_rule, environments, attempt, error, eval_reason, metrics } = s.results;
  const m = metrics as Record<string, unknown>;
  return {
    state,
    score,
    end_reason,
    agent_state,
    steps,
    max_steps,
    max_steps_rule,
    environments,
    attempt,
    error,
    eval_reason,
    metrics: { score: m.score, success: m.success, actions: m.actions, passedNodes: m.passedNodes },
  };
}

describe("an attempt driven step by step from outside", () => {
  test("start gives the first screens; each step the evaluation so far; finish the summary", { timeout: 120_000 }, async () => {
    const store = new ResultStore(join(work, "external"));
    const attempt = externalAttempt(store);
    const first = await attempt.start();
    expect(first).toMatchObject({ done: false, reason: null, reward: 0, evaluation: null, results: [] });
    const shot = first.observation!.screenshots.desktop!;
    expect(shot.width).toBeGreaterThan(0);
    expect(shot.data.length).toBeGreaterThan(100);
    // settle: false: no wait was recorded.
    expect(first.observation!.settle).toEqual({});
    expect(first.observation!.step).toBe(0);

    const half: AttemptStep = await attempt.step(run(`cd ${inbox} && mkdir -p docs && mv inbox/*.txt docs/`), "the text files first");
    expect(half.done).toBe(false);
    expect(half.results).toHaveLength(1);
    expect(half.results[0]).toMatchObject({ ok: true, step: 1, reason: null });
    expect(half.evaluation!.success).toBe(false);
    expect(half.reward).toBe(half.evaluation!.score);
    expect(half.reward).toBeLessThan(1);
    expect(half.observation!.step).toBe(1);
    expect(half.observation!.screenshots.desktop).toBeDefined();

    const done = await attempt.step([run(`cd ${inbox} && mkdir -p data && mv inbox/*.csv data/`)]);
    expect(done).toMatchObject({ done: true, reason: "success", reward: 1 });
    expect(done.evaluation!.success).toBe(true);
    expect(done.observation).toBeUndefined();
    await expect(attempt.step(run("true"))).rejects.toThrow(/done/);

    const summary = await attempt.finish();
    expect(summary.results).toMatchObject({ state: "passed", score: 1, end_reason: "success", steps: 2, agent: "external", model: "test-driver" });
    expect(summary.id).toBe("sort-inbox");
    // summary.json is written last, and is what finish returned (stamped with the run folder's format version).
    expect(JSON.parse(readFileSync(join(attempt.dir, "summary.json"), "utf8"))).toEqual({ format_version: 1, ...JSON.parse(JSON.stringify(summary)) });
    const trajectory = lines(attempt.dir);
    const steps = trajectory.filter((l) => typeof l.step === "number");
    expect(steps.map((l) => [l.turn, l.step, l.tool, l.ok])).toEqual([
      [1, 1, "desktop__run_command", true],
      [2, 2, "desktop__run_command", true],
    ]);
    expect(steps[0]!.message).toBe("the text files first");
    // Each step's line names the screenshot the step acted on, saved in the attempt's folder.
    for (const l of steps) expect(existsSync(join(attempt.dir, (l.screenshots as Record<string, string>).desktop!))).toBe(true);
    expect(trajectory.at(-1)).toMatchObject({ final: true });
  });

  test("finish before the episode ends: the actor is done, a final evaluation decides", { timeout: 120_000 }, async () => {
    const store = new ResultStore(join(work, "early"));
    const attempt = externalAttempt(store);
    await attempt.start();
    await attempt.step(run(`cd ${inbox} && mkdir -p docs && mv inbox/*.txt docs/`));
    const summary = await attempt.finish();
    expect(summary.results).toMatchObject({ state: "failed", end_reason: "agent_complete", agent_state: "agent_done", steps: 1 });
    expect(summary.results.score).toBeLessThan(1);
    expect(lines(attempt.dir).some((l) => l.done === true)).toBe(true);
    await expect(attempt.finish()).rejects.toThrow(/finished already/);
  });

  test("runOneAttempt with the scripted agent gives the summary the same steps give from outside", { timeout: 120_000 }, async () => {
    const slot = pool.slots[0]!;
    const settings = { ...runSettings({ screenshots: false }), registries, agentFor: (t: DatasetTask) => new ScriptedAgent(t.solution ?? []) };
    const scripted = await runOneAttempt(settings, new ResultStore(join(work, "scripted")), slot, task, 1, new AbortController().signal);
    expect(scripted.results).toMatchObject({ state: "passed", score: 1, end_reason: "success", steps: 1, agent: "scripted", max_steps: 7 });
    expect(scripted.results.max_steps_rule).toBe("auto: 2 × action_number (1) + 5");

    const store = new ResultStore(join(work, "same-steps"));
    const attempt = externalAttempt(store);
    await attempt.start();
    for (const call of task.solution!) await attempt.step(call as { tool: string; args: unknown });
    const external = await attempt.finish();
    expect(verdictOf(external)).toEqual(verdictOf(scripted));
  });
});
