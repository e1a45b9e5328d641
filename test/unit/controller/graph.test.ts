import { describe, expect, test } from "vitest";
import { z } from "zod";
import {
  action,
  ActionDefinitionError,
  CancelledError,
  createGraphEvaluator,
  createMemoryEnv,
  evaluator,
  type EpisodeEvent,
  type GraphEvaluatorOptions,
  type PassPolicy,
} from "@pincer/controller";
import { computeMetrics } from "@pincer/controller/runner";

/** A world of named conditions the test flips between rounds; `checked` counts evaluator calls. */
function world() {
  const holds = new Set<string>();
  const checked: string[] = [];
  const flag = evaluator({
    name: "flag",
    description: "Is the named condition true?",
    params: z.object({ name: z.string() }),
    run: ({ name }) => {
      checked.push(name);
      return holds.has(name);
    },
  });
  const node = (name: string) => ({ evaluator: flag, args: { name } });
  return { holds, checked, node };
}

function graphOf(nodes: string[], edges: Array<[string, string]>, passPolicy: PassPolicy) {
  const w = world();
  const graph = createGraphEvaluator({ nodes: Object.fromEntries(nodes.map((n) => [n, w.node(n)])), edges, passPolicy });
  const events: EpisodeEvent[] = [];
  const env = createMemoryEnv();
  const round = (step: number, holding: string[]) => {
    w.holds.clear();
    for (const h of holding) w.holds.add(h);
    w.checked.length = 0;
    return graph.evaluate({ events, step, envFor: () => env });
  };
  return { graph, events, round, checked: w.checked };
}

const diamond: Array<[string, string]> = [
  ["A", "B"],
  ["A", "C"],
  ["B", "D"],
  ["C", "D"],
];

describe("construction", () => {
  const w = world();
  const cases: Array<[string, Partial<GraphEvaluatorOptions>, RegExp]> = [
    [
      "a cycle",
      {
        nodes: { A: w.node("A"), B: w.node("B"), C: w.node("C") },
        edges: [
          ["A", "B"],
          ["B", "A"],
          ["B", "C"],
        ],
      },
      /cycle through A, B/,
    ],
    ["a self-loop", { nodes: { A: w.node("A") }, edges: [["A", "A"]] }, /cycle/],
    [
      "two sinks",
      {
        nodes: { A: w.node("A"), B: w.node("B"), C: w.node("C") },
        edges: [
          ["A", "B"],
          ["A", "C"],
        ],
      },
      /exactly one sink.*it has 2: B, C/,
    ],
    ["two unconnected nodes", { nodes: { A: w.node("A"), B: w.node("B") } }, /exactly one sink/],
    ["an edge to an unknown node", { nodes: { A: w.node("A") }, edges: [["A", "Z"]] }, /unknown node Z/],
    ["no nodes", { nodes: {} }, /at least one node/],
    ["a node that is not an evaluator", { nodes: { A: action({ name: "a", description: "d", run: () => true }) as never } }, /not an evaluator/],
    ["invalid node arguments", { nodes: { A: { evaluator: w.node("A").evaluator, args: { name: 3 } } } }, /node A: flag: invalid arguments/],
    ["no pass policy", { nodes: { A: w.node("A") }, passPolicy: undefined as never }, /passPolicy must be/],
  ];
  test.each(cases)("%s is rejected", (_name, opts, message) => {
    expect(() => createGraphEvaluator({ passPolicy: "sticky", ...opts } as GraphEvaluatorOptions)).toThrow(ActionDefinitionError);
    expect(() => createGraphEvaluator({ passPolicy: "sticky", ...opts } as GraphEvaluatorOptions)).toThrow(message);
  });

  test("a valid DAG has a topological order and its one sink", () => {
    const { graph } = graphOf(["D", "C", "B", "A"], diamond, "sticky");
    expect(graph.order).toEqual(["A", "C", "B", "D"]);
    expect(graph.sink).toBe("D");
    expect(graph.predecessors("D")).toEqual(["B", "C"]);
  });
});

describe("evaluation rounds", () => {
  test("a node is checked only once its predecessors passed, and passes cascade within one round", async () => {
    const g = graphOf(["A", "B", "C", "D"], diamond, "sticky");
    let state = await g.round(1, []);
    expect(g.checked).toEqual(["A"]);
    expect(state.nodes).toEqual({ A: "failed", B: "pending", C: "pending", D: "pending" });
    // Everything holds now: A passes, which makes B and C checkable, which makes D checkable, all in one round.
    state = await g.round(2, ["A", "B", "C", "D"]);
    expect(g.checked).toEqual(["A", "B", "C", "D"]);
    expect(state).toEqual({
      nodes: { A: "passed", B: "passed", C: "passed", D: "passed" },
      completionRatio: 1,
      score: 1,
      reason: "4 of 4 checks passed",
      success: true,
      errors: [],
    });
  });

  test("the nodes whose predecessors have passed are checked at the same time, events in topological order", async () => {
    // Each of B and C waits for the other to have started: checked one after the other, neither could finish.
    const started = new Set<string>();
    const bothStarted = () =>
      new Promise<void>((resolve, reject) => {
        const t0 = Date.now();
        const poll = () => (started.size === 2 ? resolve() : Date.now() - t0 > 2_000 ? reject(new Error("checked one at a time")) : setTimeout(poll, 5));
        poll();
      });
    const meeting = evaluator({
      name: "meeting",
      description: "Passes once both branches are being checked.",
      params: z.object({ name: z.string() }),
      run: async ({ name }) => {
        started.add(name);
        await bothStarted();
        return true;
      },
    });
    const yes = evaluator({ name: "yes", description: "Always true.", run: () => true });
    const graph = createGraphEvaluator({
      nodes: { A: yes, B: { evaluator: meeting, args: { name: "B" } }, C: { evaluator: meeting, args: { name: "C" } }, D: yes },
      edges: [
        ["A", "B"],
        ["A", "C"],
        ["B", "D"],
        ["C", "D"],
      ],
      passPolicy: "sticky",
    });
    const events: EpisodeEvent[] = [];
    const state = await graph.evaluate({ events, step: 1, envFor: () => createMemoryEnv() });
    expect(events.filter((e) => e.type === "check").map((e) => [(e as { node: string }).node, (e as { outcome: string }).outcome])).toEqual([
      ["A", "passed"],
      ["B", "passed"],
      ["C", "passed"],
      ["D", "passed"],
    ]);
    expect(state).toMatchObject({ success: true });
  });

  test("sticky: passed nodes stay passed and are not checked again", async () => {
    const g = graphOf(
      ["A", "B", "C"],
      [
        ["A", "B"],
        ["B", "C"],
      ],
      "sticky",
    );
    await g.round(1, ["A", "B"]);
    const state = await g.round(2, []); // A and B no longer hold
    expect(g.checked).toEqual(["C"]);
    expect(state.nodes).toEqual({ A: "passed", B: "passed", C: "failed" });
    expect(state.completionRatio).toBeCloseTo(2 / 3);
  });

  test("recheck: every round starts from the sources, so a regression shows", async () => {
    const g = graphOf(
      ["A", "B", "C"],
      [
        ["A", "B"],
        ["B", "C"],
      ],
      "recheck",
    );
    expect((await g.round(1, ["A", "B"])).completionRatio).toBeCloseTo(2 / 3);
    const state = await g.round(2, ["B"]); // A regressed; B still holds but is not reachable
    expect(g.checked).toEqual(["A"]);
    expect(state.nodes).toEqual({ A: "failed", B: "pending", C: "pending" });
    expect(state.completionRatio).toBe(0);
    expect(computeMetrics(g.graph.shape, g.events).passedNodes).toEqual([]);
  });

  test("an evaluator that throws is an error, distinct from false, and other branches are still checked", async () => {
    const boom = evaluator({ name: "boom", description: "d", run: () => Promise.reject(new TypeError("cannot parse the file")) });
    const ok = evaluator({ name: "ok", description: "d", run: () => true });
    const last = evaluator({ name: "last", description: "d", run: () => true });
    const graph = createGraphEvaluator({
      nodes: { boom, ok, last },
      edges: [
        ["boom", "last"],
        ["ok", "last"],
      ],
      passPolicy: "sticky",
    });
    const state = await graph.evaluate({ events: [], step: 1, envFor: () => createMemoryEnv() });
    expect(state.nodes).toEqual({ boom: "error", ok: "passed", last: "pending" });
    expect(state.errors).toEqual([{ node: "boom", type: "TypeError", message: "cannot parse the file" }]);
  });

  test("each node gets the env handle of its environment, and the signal", async () => {
    const envs = { vm1: createMemoryEnv({ name: "vm1" }), vm2: createMemoryEnv({ name: "vm2" }) };
    const seen: string[] = [];
    const where = evaluator({
      name: "where",
      description: "d",
      run: (_p, { env }) => {
        seen.push(env.address);
        return true;
      },
    });
    const graph = createGraphEvaluator({
      nodes: { first: { evaluator: where, env: "vm1" }, second: { evaluator: where, env: "vm2" } },
      edges: [["first", "second"]],
      passPolicy: "sticky",
    });
    await graph.evaluate({ events: [], step: 1, envFor: (node) => envs[node.env as "vm1" | "vm2"] });
    expect(seen).toEqual(["vm1", "vm2"]);
    const ac = new AbortController();
    ac.abort();
    await expect(graph.evaluate({ events: [], step: 1, envFor: () => envs.vm1, signal: ac.signal })).rejects.toBeInstanceOf(CancelledError);
  });
});

describe("metrics are pure functions of the events (hand-computed)", () => {
  const action = (step: number, tokens: number, ok = true): EpisodeEvent => ({ type: "action", step, tool: "vm__click", ok, tokens });

  test("diamond reaching success at step 3", async () => {
    const g = graphOf(["A", "B", "C", "D"], diamond, "sticky");
    expect(computeMetrics(g.graph.shape, g.events).longestUnfinishedPath).toBe(3); // A → B → D
    g.events.push(action(1, 100));
    await g.round(1, ["A"]);
    let m = computeMetrics(g.graph.shape, g.events);
    expect(m).toEqual({
      completionRatio: 0.25,
      score: 0.25,
      reason: "1 of 4 checks passed; B: failed; C: failed; D: pending",
      success: false,
      actions: 1,
      tokens: 100,
      executionEfficiency: 0.25,
      costEfficiency: 0.0025,
      stepsToComplete: null,
      longestUnfinishedPath: 2, // B → D
      passedNodes: ["A"],
    });
    g.events.push(action(2, 50, false));
    await g.round(2, ["B"]);
    g.events.push(action(3, 50));
    await g.round(3, ["C", "D"]);
    m = computeMetrics(g.graph.shape, g.events);
    expect(m).toEqual({
      completionRatio: 1,
      score: 1,
      reason: "4 of 4 checks passed",
      success: true,
      actions: 3,
      tokens: 200,
      executionEfficiency: 1 / 3,
      costEfficiency: 1 / 200,
      stepsToComplete: 3,
      longestUnfinishedPath: 0,
      passedNodes: ["A", "B", "C", "D"],
    });
  });

  test("a one-node graph divides by nothing: no NaN, no Infinity", async () => {
    const g = graphOf(["only"], [], "sticky");
    expect(computeMetrics(g.graph.shape, g.events)).toEqual({
      completionRatio: 0,
      score: 0,
      reason: "pending",
      success: false,
      actions: 0,
      tokens: 0,
      executionEfficiency: null,
      costEfficiency: null,
      stepsToComplete: null,
      longestUnfinishedPath: 1,
      passedNodes: [],
    });
    await g.round(0, ["only"]); // already true before any action
    const m = computeMetrics(g.graph.shape, g.events);
    expect(m).toMatchObject({ completionRatio: 1, success: true, actions: 0, executionEfficiency: null, stepsToComplete: 0, longestUnfinishedPath: 0 });
  });

  test("evaluation calls are not actions; tokens spent outside a step count", async () => {
    const g = graphOf(["A", "B"], [["A", "B"]], "recheck");
    g.events.push(action(1, 10));
    await g.round(1, ["A"]);
    await g.round(1, ["A"]); // a second round after the same step (benchmark.evaluate())
    g.events.push({ type: "tokens", step: 1, tokens: 30 });
    const m = computeMetrics(g.graph.shape, g.events);
    expect(m.actions).toBe(1);
    expect(m.tokens).toBe(40);
    expect(m.executionEfficiency).toBe(0.5);
    expect(m.costEfficiency).toBe(0.5 / 40);
  });

  test("a chain's longest unfinished path counts the nodes still to pass", async () => {
    const g = graphOf(
      ["A", "B", "C", "D", "E"],
      [
        ["A", "B"],
        ["B", "C"],
        ["C", "D"],
        ["D", "E"],
      ],
      "sticky",
    );
    expect(computeMetrics(g.graph.shape, g.events).longestUnfinishedPath).toBe(5);
    await g.round(1, ["A", "B"]);
    expect(computeMetrics(g.graph.shape, g.events).longestUnfinishedPath).toBe(3);
  });
});
