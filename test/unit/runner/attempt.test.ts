import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test, vi } from "vitest";
import { z } from "zod";
import {
  action,
  createBenchmark,
  createEnvironment,
  createGraphEvaluator,
  createMemoryEnv,
  createTask,
  evaluator,
  screenObservation,
  UnauthenticatedError,
  type Env,
  type StepCall,
} from "@pincer/controller";
import { ScriptedAgent, type Agent } from "@pincer/controller/agents";
import { createRegistries, defineTask, type DatasetTask, type TaskModule } from "@pincer/controller/datasets";
import type { MachinePool } from "@pincer/controller/machines";
import { runTasks, type Summary } from "@pincer/controller/runner";
import { runAgentLoop } from "../../../packages/controller/src/runner/agentLoop.js";
import { ResultStore } from "../../../packages/controller/src/runFolder/results.js";
import { AttemptUsage } from "../../../packages/controller/src/runner/usage.js";
import { moduleTask } from "../../fixtures/tasks.js";

const work = mkdtempSync(join(tmpdir(), "pincer-attempt-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Wraps an env so that every call rejects with UnauthenticatedError once `refusing()` is true. */
function refusingEnv(env: Env, refusing: () => boolean): Env {
  const wrapNamespace = (ns: object) =>
    new Proxy(ns, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) =>
          refusing() ? Promise.reject(new UnauthenticatedError("the daemon refused the token (it was rotated)")) : value.apply(target, args);
      },
    });
  return new Proxy(env, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      return value && typeof value === "object" ? wrapNamespace(value) : value;
    },
  });
}

const memoryPool = (envs: Record<string, Env>): MachinePool => ({
  slots: [{ index: 0, envs, addresses: Object.fromEntries(Object.keys(envs).map((n) => [n, "memory"])) }],
  provider: { name: "memory", config: {} },
  close: async () => {},
});

const pointerAt = (x: number, y: number) =>
  evaluator({
    name: "pointer_at",
    description: `The pointer is at (${x}, ${y}).`,
    run: async (_p, { env, signal }) => ((p) => p.x === x && p.y === y)(await env.mouse.position({ signal })),
  });

const click = (x: number, y: number): StepCall => ({ tool: "desktop__click", args: { x, y } });

async function run(tasks: DatasetTask[], envs: Record<string, Env>, agentFor: (t: DatasetTask) => Agent, runId: string) {
  const { runDir, report } = await runTasks({
    tasks,
    registries: createRegistries(),
    pool: memoryPool(envs),
    agentFor,
    outDir: work,
    runId,
    screenshots: false,
    maxSteps: 10,
  });
  const summary = (id: string): Summary => JSON.parse(readFileSync(join(runDir, "agents", id, "attempt-1", "summary.json"), "utf8"));
  return { runDir, report, summary };
}

const task = (module: TaskModule) => moduleTask(module, work);

describe("one verdict, from the evaluator to summary.json", () => {
  test("a module task whose evaluator gives 0.5 scores 0.5, with its reason, and fails", async () => {
    const half = evaluator({
      name: "half_done",
      description: "Half of the rows are sorted.",
      run: async (_p, { env, signal }) => ((await env.mouse.position({ signal })).x === 7 ? { score: 0.5, reason: "2 of 4 rows sorted" } : false),
    });
    const t = task(defineTask({ id: "half", instruction: "Sort the rows.", build: () => ({ evaluator: half }) }));
    const { summary, report } = await run([t], { desktop: createMemoryEnv() }, () => new ScriptedAgent([click(7, 8)]), "half");
    expect(summary("half").results).toMatchObject({ state: "failed", score: 0.5, eval_reason: "2 of 4 rows sorted" });
    expect(report.perTask[0]).toMatchObject({ score: 0.5, state: "failed" });
  });

  test("a graph's score is the mean of its nodes' scores, partial credit included", async () => {
    const first = pointerAt(7, 8).withName("first");
    const partly = evaluator({ name: "partly", description: "d", run: () => ({ score: 0.5, reason: "one of two windows" }) });
    const t = task(
      defineTask({
        id: "graph-half",
        instruction: "Click, then open two windows.",
        build: () => ({ evaluator: createGraphEvaluator({ nodes: { first, partly }, edges: [["first", "partly"]], passPolicy: "sticky" }) }),
      }),
    );
    const { summary } = await run([t], { desktop: createMemoryEnv() }, () => new ScriptedAgent([click(7, 8)]), "graph-half");
    expect(summary("graph-half").results).toMatchObject({
      state: "failed",
      score: 0.75,
      eval_reason: "1 of 2 checks passed; partly: one of two windows",
    });
  });
});

describe("the runner's failure states, on an in-memory machine", () => {
  test("a machine that refuses the token mid-task ends the task with env_error, not agent_error", async () => {
    let refusing = false;
    const env = refusingEnv(createMemoryEnv(), () => refusing);
    const t = task(defineTask({ id: "refused", instruction: "Click three times.", build: () => ({ evaluator: pointerAt(5, 5) }) }));
    const calls = [click(10, 10), click(20, 20), click(30, 30)];
    let turn = 0;
    const agent: Agent = {
      name: "refused-agent",
      model: "",
      wantsScreenshots: false,
      start() {},
      act: async () => {
        turn += 1;
        if (turn === 2) refusing = true;
        return { calls: [calls[turn - 1]!] };
      },
    };
    const { summary, report } = await run([t], { desktop: env }, () => agent, "refused");
    const s = summary("refused");
    expect(s.results).toMatchObject({ state: "env_error", end_reason: "env_error", agent_state: null, score: 0, steps: 2 });
    expect(s.results.error).toMatch(/UnauthenticatedError|refused the token/);
    expect(report).toMatchObject({ errors: 1, errorsByState: { env_error: 1 } });
  });

  test("a module task whose build() brings an action that clashes with an environment's is that task's setup_error; the others run", async () => {
    const ownClick = action({ name: "click", description: "The task's own click.", params: z.object({}), run: async () => undefined });
    const clashing = task(
      defineTask({ id: "clashing", instruction: "Click.", build: () => ({ evaluator: pointerAt(1, 1), extraActions: { desktop: [ownClick] } }) }),
    );
    const fine = task(defineTask({ id: "fine", instruction: "Click at (7, 8).", build: () => ({ evaluator: pointerAt(7, 8) }) }));
    const { summary, report } = await run([clashing, fine], { desktop: createMemoryEnv() }, () => new ScriptedAgent([click(7, 8)]), "clash");
    expect(summary("clashing").results).toMatchObject({ state: "setup_error", end_reason: "setup_error", steps: 0, score: 0 });
    expect(summary("clashing").results.error).toMatch(/^building the task: task clashing: extra action click clashes with an action of desktop/);
    expect(summary("fine").results).toMatchObject({ state: "passed", score: 1 });
    expect(report).toMatchObject({ tasks: 2, passed: 1, errors: 1, errorsByState: { setup_error: 1 } });
  });

  test("a module task whose build() throws is that task's setup_error", async () => {
    const broken = task(
      defineTask({
        id: "broken-build",
        instruction: "Nothing.",
        build: () => {
          throw new Error("the task module has a bug");
        },
      }),
    );
    const { summary } = await run([broken], { desktop: createMemoryEnv() }, () => new ScriptedAgent([]), "broken-build");
    expect(summary("broken-build").results).toMatchObject({ state: "setup_error", error: "building the task: the task module has a bug" });
  });
});

describe("the agent loop", () => {
  async function loopWith(stepError: Error) {
    const env = createMemoryEnv();
    const bench = createBenchmark({
      environments: [createEnvironment({ name: "desktop", env, observations: [] })],
      tasks: [createTask({ id: "t", description: "d", evaluator: pointerAt(1, 1), maxSteps: 5 })],
    });
    await bench.start("t");
    vi.spyOn(bench, "step").mockRejectedValue(stepError);
    const dir = mkdtempSync(join(work, "loop-"));
    const error = await runAgentLoop({
      bench,
      agent: new ScriptedAgent([click(3, 3)]),
      dir,
      store: new ResultStore(work),
      messages: [],
      usage: new AttemptUsage(),
      signal: new AbortController().signal,
    });
    return { error, state: bench.state() };
  }

  test("an UnauthenticatedError thrown out of a step ends the episode with env_error", async () => {
    const { error, state } = await loopWith(new UnauthenticatedError("the daemon refused the token"));
    expect(error).toBe("UnauthenticatedError: the daemon refused the token");
    expect(state).toMatchObject({ ended: true, reason: "env_error", error: { type: "UnauthenticatedError" } });
  });

  test("the next turn's screenshot is taken while the step is evaluated; the final screen after the last evaluation, settled", async () => {
    const log: string[] = [];
    const env = createMemoryEnv();
    // A screenshot that says when it was asked for (the memory machine renders only PNG and raw).
    const screen = {
      ...env.screen,
      screenshot: async () => {
        log.push("screenshot");
        return { ...(await env.screen.screenshot({ format: "png" })), format: "jpeg" as const, mimeType: "image/jpeg" };
      },
    };
    const watched: Env = Object.assign(Object.create(Object.getPrototypeOf(env)), env, { screen });
    const slowCheck = evaluator({
      name: "slow_pointer_check",
      description: "The pointer is at (5, 5), checked slowly.",
      run: async (_p, { env: e, signal }) => {
        log.push("evaluate");
        await new Promise((r) => setTimeout(r, 100));
        const p = await e.mouse.position({ signal });
        log.push("evaluated");
        return p.x === 5 && p.y === 5;
      },
    });
    const bench = createBenchmark({
      environments: [createEnvironment({ name: "desktop", env: watched, observations: [screenObservation({ settle: false })] })],
      tasks: [createTask({ id: "t", description: "d", evaluator: slowCheck, maxSteps: 5 })],
    });
    await bench.start("t");
    const dir = mkdtempSync(join(work, "loop-"));
    mkdirSync(join(dir, "screenshots"));
    const store = new ResultStore(work);
    const error = await runAgentLoop({
      bench,
      agent: new ScriptedAgent([click(3, 3), click(5, 5)]),
      dir,
      store,
      messages: [],
      usage: new AttemptUsage(),
      signal: new AbortController().signal,
    });
    expect(error).toBeNull();
    expect(bench.state()).toMatchObject({ ended: true, reason: "success" });
    // Turn 1's screenshot, then per step: once the action is done, the next screenshot is asked for
    // and the evaluation starts beside it (before, the screenshot waited for "evaluated"). The step
    // that ends the episode is followed by the final screen, taken once its evaluation is done (a
    // check that waits for a window may pass long after the action).
    expect(log).toEqual(["screenshot", "screenshot", "evaluate", "evaluated", "screenshot", "evaluate", "evaluated", "screenshot"]);
    const lines = readFileSync(join(dir, "trajectory.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.at(-1)).toEqual({
      turn: 3,
      screenshots: { desktop: "screenshots/turn-003-desktop.jpg" },
      // Where the image's pixels lie on the screen, for drawing actions over it (the run viewer).
      screenshot_geometry: { desktop: expect.objectContaining({ width: 1280, height: 800, scale: 1, source: { x: 0, y: 0, width: 1280, height: 800 } }) },
      // The turns' observation does not wait (settle: false): the final screen is waited for first.
      settle: { desktop: { settled: expect.any(Boolean), waited_ms: expect.any(Number), changes: expect.any(Number) } },
      final: true,
    });
    expect(readFileSync(join(dir, "screenshots/turn-003-desktop.jpg")).subarray(1, 4).toString()).toBe("PNG");
  });

  test("with settle options, each screen is waited for before its screenshot and the wait is in the trajectory", async () => {
    const log: string[] = [];
    const env = createMemoryEnv();
    const screen = {
      ...env.screen,
      waitForSettle: async (o: { quietMs?: number } = {}) => {
        log.push(`settle ${o.quietMs}`);
        return { settled: true, waitedMs: 42, frames: 3, changes: 1, lastChangeMs: 5 };
      },
      screenshot: async () => {
        log.push("screenshot");
        return { ...(await env.screen.screenshot({ format: "png" })), format: "jpeg" as const, mimeType: "image/jpeg" };
      },
    };
    const watched: Env = Object.assign(Object.create(Object.getPrototypeOf(env)), env, { screen });
    const bench = createBenchmark({
      environments: [createEnvironment({ name: "desktop", env: watched, observations: [screenObservation({ settle: { quietMs: 250 } })] })],
      tasks: [createTask({ id: "t", description: "d", evaluator: pointerAt(5, 5), maxSteps: 5 })],
    });
    await bench.start("t");
    const dir = mkdtempSync(join(work, "loop-"));
    mkdirSync(join(dir, "screenshots"));
    const input = {
      bench,
      agent: new ScriptedAgent([click(5, 5)]),
      dir,
      store: new ResultStore(work),
      messages: [],
      usage: new AttemptUsage(),
      signal: new AbortController().signal,
    };
    expect(await runAgentLoop(input)).toBeNull();
    // The turn's, the next turn's (started once the action was done), and the final screen after the evaluation: each waited for.
    expect(log).toEqual(["settle 250", "screenshot", "settle 250", "screenshot", "settle 250", "screenshot"]);
    const lines = readFileSync(join(dir, "trajectory.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.settle)).toEqual([
      { desktop: { settled: true, waited_ms: 42, changes: 1 } },
      { desktop: { settled: true, waited_ms: 42, changes: 1 } },
    ]);
    expect(lines.at(-1)).toMatchObject({ final: true });
  });

  test("a screenshot a tool returns is written once as a file of the attempt, and named by its path", async () => {
    const env = createMemoryEnv();
    const bench = createBenchmark({
      environments: [createEnvironment({ name: "desktop", env, observations: [] })],
      tasks: [createTask({ id: "t", description: "d", evaluator: pointerAt(1, 1), maxSteps: 5 })],
    });
    await bench.start("t");
    const dir = mkdtempSync(join(work, "loop-"));
    mkdirSync(join(dir, "screenshots"));
    const messages: unknown[] = [];
    await runAgentLoop({
      bench,
      agent: new ScriptedAgent([{ tool: "desktop__screenshot", args: {} }]),
      dir,
      store: new ResultStore(work),
      messages,
      usage: new AttemptUsage(),
      signal: new AbortController().signal,
    });
    const step = readFileSync(join(dir, "trajectory.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((l) => l.tool === "desktop__screenshot");
    expect(step.result).toMatchObject({ file: "screenshots/step-001-desktop.png", mimeType: "image/png", width: 1280, height: 800 });
    expect(readFileSync(join(dir, step.result.file)).subarray(1, 4).toString()).toBe("PNG");
    expect(JSON.stringify(messages)).not.toMatch(/bytes>/);
    expect(messages).toContainEqual(expect.objectContaining({ role: "tool", content: expect.objectContaining({ file: "screenshots/step-001-desktop.png" }) }));
  });

  test("any other error thrown out of a step ends it with agent_error", async () => {
    const { error, state } = await loopWith(new RangeError("a bug"));
    expect(error).toBe("RangeError: a bug");
    expect(state).toMatchObject({ ended: true, reason: "agent_error" });
  });
});
