import { describe, expect, test } from "vitest";
import { z } from "zod";
import {
  action,
  CancelledError,
  createBenchmark,
  createEnvironment,
  createGraphEvaluator,
  createMemoryEnv,
  createTask,
  desktopActions,
  evaluator,
  FailedPreconditionError,
  InvalidArgumentError,
  TeardownError,
  UnavailableError,
  type MemoryEnv,
  type ScreenObservation,
  type TaskOptions,
} from "@pincer/controller";
import { decodeToolName } from "@pincer/controller/agents";

/** True once the pointer of the evaluated machine is inside the box. */
const pointerIn = evaluator({
  name: "pointer_in",
  description: "Is the pointer inside the box?",
  params: z.object({ x: z.number(), y: z.number(), w: z.number(), h: z.number() }),
  run: async (b, { env, signal }) => {
    const p = await env.mouse.position({ signal });
    return p.x >= b.x && p.x < b.x + b.w && p.y >= b.y && p.y < b.y + b.h;
  },
});
const box = { x: 100, y: 100, w: 50, h: 50 };

function setup(taskOpts: Partial<TaskOptions> = {}, memory: { latencyMs?: number } = {}) {
  const vm1 = createMemoryEnv({ name: "vm1", ...memory });
  const vm2 = createMemoryEnv({ name: "vm2", ...memory });
  const graph = createGraphEvaluator({
    nodes: { on_vm1: { evaluator: pointerIn, env: "vm1", args: box }, on_vm2: { evaluator: pointerIn, env: "vm2", args: box } },
    edges: [["on_vm1", "on_vm2"]],
    passPolicy: "sticky",
  });
  const task = createTask({ id: "two", description: "Click the box on both machines.", evaluator: graph, ...taskOpts });
  const bench = createBenchmark({
    environments: [createEnvironment({ name: "vm1", env: vm1 }), createEnvironment({ name: "vm2", env: vm2 })],
    tasks: [task],
  });
  return { vm1, vm2, bench };
}

const inBox = { x: 120, y: 120 };
const outOfBox = { x: 10, y: 10 };

describe("an episode over two environments", () => {
  test("start, observe, step: a graph needing one step on each machine reaches success", async () => {
    const { vm1, vm2, bench } = setup();
    const started = await bench.start("two");
    expect(started).toMatchObject({ ok: true, reason: null, description: "Click the box on both machines." });
    expect(started.tools).toContain("vm1__click");
    expect(started.tools).toContain("vm2__double_click");
    expect(started.tools.slice(-3)).toEqual(["root__complete", "root__wait", "root__submit"]);

    const obs = await bench.observe();
    expect(Object.keys(obs.environments)).toEqual(["vm1", "vm2"]);
    // The default observation: the screen as an agent sees it (PNG here: the in-memory machine encodes no JPEG).
    expect((obs.environments.vm1!.screen as ScreenObservation).screenshot).toMatchObject({ format: "png", width: 1280, height: 800, scale: 1 });

    const s1 = await bench.step({ tool: "vm1__click", args: inBox, tokens: 100 });
    expect(s1).toMatchObject({ step: 1, ok: true, result: inBox, env: "vm1", action: "click", terminated: false, truncated: false, reason: null });
    expect(s1.evaluation.nodes).toEqual({ on_vm1: "passed", on_vm2: "failed" });

    const s2 = await bench.step({ env: "vm2", action: "click", args: outOfBox, tokens: 100 });
    expect(s2.evaluation.completionRatio).toBe(0.5);

    const s3 = await bench.step({ tool: "vm2__click", args: inBox, tokens: 100 });
    expect(s3).toMatchObject({ step: 3, ok: true, terminated: true, truncated: false, reason: "success" });
    expect(bench.metrics()).toEqual({
      completionRatio: 1,
      score: 1,
      reason: "2 of 2 checks passed",
      success: true,
      actions: 3,
      tokens: 300,
      executionEfficiency: 1 / 3,
      costEfficiency: 1 / 300,
      stepsToComplete: 3,
      longestUnfinishedPath: 0,
      passedNodes: ["on_vm1", "on_vm2"],
    });
    expect(vm1.events).toEqual([{ type: "click", at: inBox, button: "left", count: 1, modifiers: [] }]);
    expect(vm2.events.map((e) => e.type)).toEqual(["click", "click"]);
    await expect(bench.step({ tool: "vm1__click", args: inBox })).rejects.toThrow(/ended \(success\)/);
    await bench.close();
  });

  test("invalid arguments and unknown tools are returned to the agent, count as steps, and do not end the episode", async () => {
    const { vm1, bench } = setup();
    await bench.start("two");
    const bad = await bench.step({ tool: "vm1__click", args: { x: "left", y: -4 } });
    expect(bad).toMatchObject({ ok: false, step: 1, reason: null, error: { type: "ActionArgumentsError" } });
    expect(bad.ok === false && bad.error.issues!.map((i) => i.path[0])).toEqual(["x", "y"]);
    const unknown = await bench.step({ tool: "vm1__teleport", args: {} });
    expect(unknown).toMatchObject({ ok: false, step: 2, error: { type: "NotFoundError" } });
    expect(unknown.ok === false && unknown.error.message).toMatch(/vm1 has no such action; its actions: click, double_click/);
    const noEnv = await bench.step({ tool: "vm9__click", args: inBox });
    expect(noEnv.ok === false && noEnv.error.message).toMatch(/no environment named "vm9"/);
    const offScreen = await bench.step({ tool: "vm1__click", args: { x: 5000, y: 1 } });
    expect(offScreen).toMatchObject({ ok: false, error: { type: "InvalidArgumentError" }, reason: null });
    expect(vm1.events).toEqual([]);
    expect(bench.metrics().actions).toBe(4);
  });

  test("root actions: submit records the answer for evaluators and ends with agent_complete", async () => {
    const answered = evaluator({ name: "answered_42", description: "d", local: true, run: (_p, { episode }) => episode?.submissions.includes("42") ?? false });
    const vm = createMemoryEnv();
    const bench = createBenchmark({
      environments: [createEnvironment({ name: "vm", env: vm })],
      tasks: [
        createTask({ id: "q", description: "What is 6 x 7?", evaluator: answered }),
        createTask({ id: "q2", description: "Say done.", evaluator: answered }),
      ],
    });
    await bench.start("q");
    expect((await bench.step({ tool: "root__wait", args: { seconds: 0 } })).reason).toBeNull();
    expect(await bench.step({ tool: "root__submit", args: { content: "42" } })).toMatchObject({ ok: true, reason: "success", terminated: true });
    expect(bench.state().submissions).toEqual(["42"]);
    await bench.start("q2");
    expect(await bench.step({ tool: "root__complete" })).toMatchObject({ ok: true, reason: "agent_complete", terminated: true, truncated: false });
  });

  test("tool names decode without ambiguity", () => {
    expect(decodeToolName("vm-1__double_click")).toEqual({ environment: "vm-1", action: "double_click" });
    expect(decodeToolName("click")).toBeUndefined();
    expect(decodeToolName("a___b")).toBeUndefined();
    const { bench } = setup();
    for (const tool of bench.toolNames()) expect(decodeToolName(tool)).toBeDefined();
    expect(bench.tools("openai").map((t) => t.function.name)).toEqual(bench.toolNames());
  });
});

describe("why an episode ends", () => {
  test("step_limit", async () => {
    const { bench } = setup({ maxSteps: 2 });
    await bench.start("two");
    expect((await bench.step({ tool: "vm1__move", args: outOfBox })).reason).toBeNull();
    expect(await bench.step({ tool: "vm1__move", args: outOfBox })).toMatchObject({ reason: "step_limit", truncated: true, terminated: false });
  });

  test("token_budget", async () => {
    const { bench } = setup({ tokenBudget: 150 });
    await bench.start("two");
    expect((await bench.step({ tool: "vm1__move", args: outOfBox, tokens: 100 })).reason).toBeNull();
    expect((await bench.step({ tool: "vm1__move", args: outOfBox, tokens: 100 })).reason).toBe("token_budget");
  });

  test("time_limit aborts a running action, and also stops a step that comes too late", async () => {
    const { bench } = setup({ timeLimitMs: 150 });
    await bench.start("two");
    const slow = await bench.step({ tool: "root__wait", args: { seconds: 5 } });
    expect(slow).toMatchObject({ ok: false, reason: "time_limit", truncated: true, error: { type: "TimeoutError" } });
    // Cut at the 150 ms limit, well before the 5 s wait, with room for a loaded machine.
    expect(slow.durationMs).toBeLessThan(4_000);

    const late = setup({ timeLimitMs: 50 });
    await late.bench.start("two");
    await new Promise((r) => setTimeout(r, 80));
    const r = await late.bench.step({ tool: "vm1__click", args: inBox });
    expect(r).toMatchObject({ ok: false, reason: "time_limit", step: 0 });
    expect(late.vm1.events).toEqual([]);
  });

  test("env_error when a machine is unreachable; other action errors do not end the episode", async () => {
    const { vm2, bench } = setup();
    await bench.start("two");
    vm2.close();
    const r = await bench.step({ tool: "vm2__click", args: inBox });
    expect(r).toMatchObject({ ok: false, reason: "env_error", truncated: true, error: { type: "UnavailableError" } });
  });

  test("evaluator_error when an evaluator throws (distinct from false)", async () => {
    const broken = evaluator({ name: "broken", description: "d", run: () => Promise.reject(new RangeError("bad regex in the task")) });
    const bench = createBenchmark({
      environments: [createEnvironment({ name: "vm", env: createMemoryEnv() })],
      tasks: [createTask({ id: "t", description: "d", evaluator: broken })],
    });
    await bench.start("t");
    const r = await bench.step({ tool: "vm__move", args: outOfBox });
    expect(r).toMatchObject({ ok: true, reason: "evaluator_error", truncated: true });
    expect(r.evaluation.errors).toEqual([{ node: "broken", type: "RangeError", message: "bad regex in the task" }]);
    expect(bench.state().error).toEqual({ type: "RangeError", message: "evaluator node broken: bad regex in the task" });
  });

  test("env_error, not setup_error, when a setup action's machine fails (directly or as the cause of the action's error)", async () => {
    const failing = (err: Error) => action({ name: "prepare", description: "d", run: () => Promise.reject(err) });
    const unreachable = new UnavailableError("Process/Run: pincer-daemon at 127.0.0.1:1 is unreachable (Connection dropped)");
    for (const err of [unreachable, new Error("setup[0] (download): could not write the file", { cause: unreachable })]) {
      const { bench } = setup({ setup: [failing(err)] });
      const started = await bench.start("two");
      expect(started).toMatchObject({ ok: false, reason: "env_error" });
      expect(bench.state().reason).toBe("env_error");
    }
  });

  test("a machine failure the evaluator or a setup action caught still ends the episode as env_error, never as a verdict", async () => {
    // An evaluator that takes "the machine did not answer" for "the pointer is elsewhere".
    const lenient = evaluator({
      name: "pointer_home",
      description: "d",
      run: async (_p, { env, signal }) =>
        env.mouse.position({ signal }).then(
          (p) => p.x === 0 && p.y === 0,
          () => false,
        ),
    });
    const vm = createMemoryEnv();
    const bench = createBenchmark({
      environments: [createEnvironment({ name: "vm", env: vm })],
      tasks: [createTask({ id: "t", description: "d", evaluator: lenient })],
    });
    await bench.start("t");
    vm.close();
    const r = await bench.evaluate();
    expect(r.errors).toEqual([{ node: "pointer_home", type: "UnavailableError", message: expect.stringMatching(/is closed/) }]);
    expect(bench.state()).toMatchObject({ ended: true, reason: "env_error" });

    // A setup step that logs a failed call and goes on.
    const shrug = action({
      name: "prepare",
      description: "d",
      run: async (_p, { env, signal }) => void (await env.mouse.position({ signal }).catch(() => undefined)),
    });
    const vm2 = createMemoryEnv();
    const bench2 = createBenchmark({
      environments: [createEnvironment({ name: "vm", env: vm2 })],
      tasks: [createTask({ id: "t", description: "d", evaluator: lenient, setup: [shrug] })],
    });
    vm2.close();
    expect(await bench2.start("t")).toMatchObject({ ok: false, reason: "env_error", error: { type: "UnavailableError" } });
  });

  test("setup_error: a failing setup action ends the episode before any step, never skipped", async () => {
    const ran: string[] = [];
    const step = (name: string, fail = false) =>
      action({
        name,
        description: "d",
        run: () => {
          ran.push(name);
          return fail ? Promise.reject(new Error("apt-get failed")) : undefined;
        },
      });
    const { bench } = setup({ setup: [step("first"), step("second", true), step("third")] });
    const started = await bench.start("two");
    expect(started).toMatchObject({ ok: false, reason: "setup_error", error: { message: "setup[1] second in vm1: apt-get failed" } });
    expect(ran).toEqual(["first", "second"]);
    await expect(bench.step({ tool: "vm1__click", args: inBox })).rejects.toBeInstanceOf(FailedPreconditionError);
  });

  test("agent_error, reported by the caller", async () => {
    const { bench } = setup();
    await bench.start("two");
    bench.end("agent_error", new Error("model endpoint returned 500"));
    expect(bench.state()).toMatchObject({ ended: true, reason: "agent_error", error: { message: "model endpoint returned 500" } });
  });
});

describe("task lifecycle", () => {
  test("setup runs in order in the named environments; teardown runs on close, all of it, and reports failures", async () => {
    const log: string[] = [];
    const note = action({
      name: "note",
      description: "d",
      params: z.object({ text: z.string() }),
      run: ({ text }, { env }) => void log.push(`${env.address}:${text}`),
    });
    const failing = action({ name: "failing", description: "d", run: () => Promise.reject(new Error("rm: permission denied")) });
    const { bench } = setup({
      setup: [
        { action: note, args: { text: "a" } },
        { action: note, args: { text: "b" }, env: "vm2" },
        { action: note, args: { text: "c" } },
      ],
      teardown: [failing, { action: note, args: { text: "bye" }, env: "vm2" }],
    });
    await bench.start("two");
    expect(log).toEqual(["vm1:a", "vm2:b", "vm1:c"]);
    const err = await bench.close().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TeardownError);
    expect((err as TeardownError).errors).toEqual([{ type: "Error", message: "teardown[0] failing: rm: permission denied" }]);
    expect(log.at(-1)).toBe("vm2:bye");
    await expect(bench.step({ tool: "vm1__click", args: inBox })).rejects.toThrow(/was closed/);
    await bench.close(); // closing twice is a no-op
  });

  test("extra actions exist only during their task and do not leak into the next one", async () => {
    const secret = action({ name: "open_vault", description: "d", run: () => "opened" });
    const vm = createMemoryEnv();
    const tasks = [
      createTask({ id: "with", description: "d", evaluator: pointerIn.bind(box), extraActions: { vm: [secret] } }),
      createTask({ id: "without", description: "d", evaluator: pointerIn.bind(box) }),
    ];
    const bench = createBenchmark({ environments: [createEnvironment({ name: "vm", env: vm })], tasks });
    expect(bench.toolNames()).not.toContain("vm__open_vault");
    await bench.start("with");
    expect(bench.toolNames()).toContain("vm__open_vault");
    expect(bench.tools("anthropic").map((t) => t.name)).toContain("vm__open_vault");
    expect(await bench.step({ tool: "vm__open_vault" })).toMatchObject({ ok: true, result: "opened" });
    await bench.start("without");
    expect(bench.toolNames()).not.toContain("vm__open_vault");
    expect(await bench.step({ tool: "vm__open_vault" })).toMatchObject({ ok: false, error: { type: "NotFoundError" } });
  });

  test("after close, toolNames() and tools() list only the environments' own actions", async () => {
    const secret = action({ name: "open_vault", description: "d", run: () => "opened" });
    const task = createTask({ id: "with", description: "d", evaluator: pointerIn.bind(box), extraActions: { vm: [secret] } });
    const bench = createBenchmark({ environments: [createEnvironment({ name: "vm", env: createMemoryEnv() })], tasks: [task] });
    const own = bench.toolNames();
    await bench.start("with");
    expect(bench.toolNames()).toEqual([...own.filter((t) => !t.startsWith("root__")), "vm__open_vault", ...own.filter((t) => t.startsWith("root__"))]);
    await bench.close();
    expect(bench.toolNames()).toEqual(own);
    expect(bench.tools("openai").map((t) => t.function.name)).toEqual(own);
    expect(bench.state().taskId).toBe("with"); // the closed episode stays readable
  });

  test("a benchmark refuses tasks that name unknown environments or clash with an environment's actions", () => {
    const vm = createEnvironment({ name: "vm", env: createMemoryEnv() });
    const onVm9 = createGraphEvaluator({ nodes: { n: { evaluator: pointerIn.bind(box), env: "vm9" } }, passPolicy: "sticky" });
    expect(() => createBenchmark({ environments: [vm], tasks: [createTask({ id: "t", description: "d", evaluator: onVm9 })] })).toThrow(
      /no environment named vm9/,
    );
    const clash = createTask({ id: "t", description: "d", evaluator: pointerIn.bind(box), extraActions: { vm: [desktopActions.click] } });
    expect(() => createBenchmark({ environments: [vm], tasks: [clash] })).toThrow(/clashes/);
    expect(() => createEnvironment({ name: "root", env: createMemoryEnv() })).toThrow(/reserved/);
    expect(() => createBenchmark({ environments: [vm, vm], tasks: [] })).toThrow(InvalidArgumentError);
    expect(() => createTask({ id: "t", description: "d", evaluator: pointerIn.bind(box), maxSteps: 0 })).toThrow(/maxSteps/);
    expect(() => createTask({ id: "t", description: "d", evaluator: pointerIn })).toThrow(/graph: node pointer_in: pointer_in: invalid arguments/);
    expect(() =>
      createTask({ id: "t", description: "d", evaluator: pointerIn.bind(box), setup: [{ action: desktopActions.click, args: { x: -1, y: 0 } }] }),
    ).toThrow(/setup\[0\]/);
  });

  test("every call is cancellable: a fired signal rejects with CancelledError", async () => {
    const { bench } = setup({}, { latencyMs: 1_000 });
    await bench.start("two");
    const ac = new AbortController();
    const pending = bench.step({ tool: "vm1__click", args: inBox }, { signal: ac.signal });
    setTimeout(() => ac.abort(), 20);
    await expect(pending).rejects.toBeInstanceOf(CancelledError);
    const observing = bench.observe({ signal: AbortSignal.timeout(20) });
    await expect(observing).rejects.toBeInstanceOf(CancelledError);
  });
});

describe("the in-memory environment", () => {
  test("validates like the daemon, renders a real PNG, and is unavailable once closed", async () => {
    const vm: MemoryEnv = createMemoryEnv({ width: 200, height: 100, background: [255, 0, 0] });
    await expect(vm.keyboard.press("ctrl+frobnicate")).rejects.toBeInstanceOf(InvalidArgumentError);
    await vm.keyboard.press("ctrl+shift+t");
    await vm.keyboard.type("héllo");
    expect(vm.events).toEqual([
      { type: "press", keys: ["Control_L", "Shift_L", "t"], repeat: 1 },
      { type: "type", text: "héllo" },
    ]);
    const shot = await vm.screen.screenshot({ maxWidth: 100 });
    expect(shot).toMatchObject({ width: 100, height: 50, scale: 0.5, screen: { width: 200, height: 100 } });
    expect(shot.data.subarray(1, 4).toString("ascii")).toBe("PNG");
    const raw = await vm.screen.screenshot({ format: "raw", region: { x: 0, y: 0, width: 2, height: 1 } });
    expect([...raw.data]).toEqual([255, 0, 0, 255, 0, 0]);
    vm.close();
    await expect(vm.mouse.position()).rejects.toBeInstanceOf(UnavailableError);
  });
});
