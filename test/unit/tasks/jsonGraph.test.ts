import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { z } from "zod";
import { createBenchmark, createEnvironment, createMemoryEnv } from "@pincer/controller";
import {
  createRegistries,
  defineEvaluationFunction,
  jsonTaskFormat,
  loadDataset,
  type DatasetProblem,
  type JsonDatasetTask,
  type Registries,
} from "@pincer/controller/datasets";

// The graph form of a JSON task's evaluation: `evaluation: {graph: {nodes, edges, pass_policy}}`.

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "pincer-json-graph-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Writes <root>/g/<id>/<id>.json (and extra files). */
function writeTask(id: string, evaluation: unknown, files: Record<string, string> = {}) {
  const dir = join(root, "g", id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${id}.json`), JSON.stringify({ id, instruction: "Do the thing.", evaluation }, null, 2));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
}

const exists = (path: string, env?: string) => ({ func: "check_file_exists", arguments: { vm_file: path }, ...(env ? { env } : {}) });
const twoNodes = (extra: Record<string, unknown> = {}) => ({
  graph: { nodes: { saved: exists("/tmp/a"), exported: exists("/tmp/b") }, edges: [["saved", "exported"]], ...extra },
});

const errorLines = (problems: DatasetProblem[]) =>
  problems.filter((p) => p.severity === "error").map((p) => `${p.file.split("/").at(-1)}:${p.path}: ${p.message}`);

describe("validating an evaluation graph", () => {
  test("a valid graph loads: sticky by default, the environments its nodes name", async () => {
    writeTask("ok", { graph: { nodes: { saved: exists("/tmp/a"), copied: exists("/tmp/b", "server") }, edges: [["saved", "copied"]] } });
    writeTask("rechecked", twoNodes({ pass_policy: "recheck" }));
    const ds = await loadDataset(root, createRegistries());
    expect(ds.problems).toEqual([]);
    const byId = Object.fromEntries(ds.tasks.map((t) => [t.id, t as JsonDatasetTask]));
    expect(byId.ok!.environments).toEqual(["desktop", "server"]);
    expect(byId.ok!.json.evaluation).toMatchObject({ graph: { edges: [["saved", "copied"]], pass_policy: "sticky" } });
    expect(byId.rechecked!.json.evaluation).toMatchObject({ graph: { pass_policy: "recheck" } });
  });

  test("each node's function and arguments are checked, with the node's JSON path", async () => {
    const nodes = {
      typo: { func: "check_file_exist", arguments: { vm_file: "/tmp/a" } },
      args: { func: "check_file_exists", arguments: { vm_fil: "/tmp/a" } },
      nested: { func: "all", arguments: { evaluators: [{ func: "nope", arguments: {} }] } },
      local: { func: "compare_text_file", arguments: { local_expected: "missing.txt", vm_result: "/tmp/a" } },
      end: exists("/tmp/e"),
    };
    const edges = [
      ["typo", "end"],
      ["args", "end"],
      ["nested", "end"],
      ["local", "end"],
    ];
    writeTask("nodes", { graph: { nodes, edges } });
    const lines = errorLines((await loadDataset(root, createRegistries())).problems);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^nodes\.json:evaluation\.graph\.nodes\.typo\.func: unknown evaluation function "check_file_exist" \(did you mean "check_file_exists"\?\)/,
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^nodes\.json:evaluation\.graph\.nodes\.args\.arguments: check_file_exists: unknown argument "vm_fil" \(did you mean "vm_file"\?\)/,
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^nodes\.json:evaluation\.graph\.nodes\.nested\.arguments\.evaluators\[0\]\.func: unknown evaluation function "nope"/),
    );
    expect(lines).toContain(
      `nodes.json:evaluation.graph.nodes.local.arguments.local_expected: local file missing.txt does not exist (looked in ${join(root, "g", "nodes")})`,
    );
  });

  test("the graph's structure: unknown nodes, a node following itself, cycles, more than one sink", async () => {
    const three = { saved: exists("/tmp/a"), exported: exists("/tmp/b"), archived: exists("/tmp/c") };
    writeTask("unknown", {
      graph: {
        nodes: three,
        edges: [
          ["saved", "exported"],
          ["exported", "archive"],
          ["mailed", "archived"],
        ],
      },
    });
    writeTask("self", {
      graph: {
        nodes: three,
        edges: [
          ["saved", "exported"],
          ["exported", "archived"],
          ["archived", "archived"],
        ],
      },
    });
    writeTask("cycle", {
      graph: {
        nodes: three,
        edges: [
          ["saved", "exported"],
          ["exported", "saved"],
          ["exported", "archived"],
        ],
      },
    });
    writeTask("sinks", { graph: { nodes: three, edges: [["saved", "exported"]] } });
    const lines = errorLines((await loadDataset(root, createRegistries())).problems);
    expect(lines).toEqual([
      "cycle.json:evaluation.graph.edges: the edges form a cycle through saved, exported, archived; an evaluator graph must be acyclic",
      "self.json:evaluation.graph.edges[2]: edge archived → archived joins a node to itself (a cycle)",
      "sinks.json:evaluation.graph.edges: it must have exactly one sink (the node that means success); it has 2: exported, archived. " +
        "Add edges into one final node",
      'unknown.json:evaluation.graph.edges[1][1]: edge exported → archive names no node "archive" (did you mean "archived"?); ' +
        "the nodes are saved, exported, archived",
      'unknown.json:evaluation.graph.edges[2][0]: edge mailed → archived names no node "mailed"; the nodes are saved, exported, archived',
    ]);
  });

  test("the shape: func and graph together, no nodes, a bad node id, an edge that is not a pair, an unknown policy", async () => {
    writeTask("both", { func: "check_file_exists", arguments: { vm_file: "/tmp/a" }, ...twoNodes() });
    writeTask("empty", { graph: { nodes: {} } });
    writeTask("id", { graph: { nodes: { "file saved": exists("/tmp/a") } } });
    writeTask("pair", { graph: { nodes: { a: exists("/tmp/a") }, edges: [["a"]] } });
    writeTask("policy", twoNodes({ pass_policy: "forever" }));
    writeTask("extra", { graph: { ...twoNodes().graph, sink: "exported" } });
    const lines = errorLines((await loadDataset(root, createRegistries())).problems);
    expect(lines).toEqual([
      "both.json:evaluation: give func (one evaluation function) or graph (a graph of them), not both",
      "empty.json:evaluation.graph.nodes: give at least one node: {id: {func, arguments}}",
      'extra.json:evaluation.graph: Unrecognized key: "sink"',
      "id.json:evaluation.graph.nodes.file saved: node id \"file saved\": use letters, digits, '_' and '-'",
      "pair.json:evaluation.graph.edges[0]: Too small: expected array to have >=2 items",
      'policy.json:evaluation.graph.pass_policy: Invalid option: expected one of "sticky"|"recheck"',
    ]);
  });

  test("a known-weak check in a node is a warning at the node's path", async () => {
    const weak = { func: "compare_ipynb_files", arguments: { local_expected: "e.ipynb", vm_result: "/tmp/r.ipynb" } };
    writeTask("weak", { graph: { nodes: { first: exists("/tmp/a"), notebook: weak }, edges: [["first", "notebook"]] } }, { "e.ipynb": "{}" });
    const ds = await loadDataset(root, createRegistries());
    expect(ds.problems.filter((p) => p.severity === "warning").map((p) => p.path)).toEqual(["evaluation.graph.nodes.notebook"]);
  });
});

describe("the built evaluator", () => {
  /** Conditions the test sets between steps; each call of `holds` records its node's condition and its `final` flag. */
  const world = new Set<string>();
  const calls: Array<{ name: string; final: boolean | undefined }> = [];
  const holds = defineEvaluationFunction({
    name: "holds",
    description: "test helper: the named condition holds",
    args: z.strictObject({ name: z.string() }),
    async run({ name }, ctx) {
      calls.push({ name, final: ctx.final });
      return world.has(name) ? { score: 1, reason: `${name} holds` } : { score: 0, reason: `${name} does not hold` };
    },
  });

  async function benchOf(evaluation: unknown): Promise<ReturnType<typeof createBenchmark>> {
    writeTask("t", evaluation);
    const registries: Registries = createRegistries({ evaluations: [holds] });
    const ds = await loadDataset(root, registries);
    expect(ds.problems).toEqual([]);
    const env = createMemoryEnv();
    const input = { envs: { desktop: env }, registries, agent: {}, maxSteps: 10, timeLimitMs: 60_000, dir: root };
    const task = jsonTaskFormat.build(ds.tasks[0] as JsonDatasetTask, input);
    world.clear();
    calls.length = 0;
    return createBenchmark({ environments: [createEnvironment({ name: "desktop", env })], tasks: [task] });
  }

  const node = (name: string) => ({ func: "holds", arguments: { name } });
  const wait = { tool: "root__wait", args: { seconds: 0 } };

  test("partial credit as the nodes pass: the mean of their scores; each node learns whether its round is the last", async () => {
    const bench = await benchOf({ graph: { nodes: { a: node("a"), b: node("b") }, edges: [["a", "b"]] } });
    await bench.start("t");
    calls.length = 0;
    world.add("a");
    const first = await bench.step(wait);
    expect(first.evaluation).toMatchObject({ nodes: { a: "passed", b: "failed" }, score: 0.5, success: false });
    world.add("b");
    const second = await bench.step({ tool: "root__complete" });
    expect(second.evaluation).toMatchObject({ nodes: { a: "passed", b: "passed" }, score: 1, success: true });
    expect(second).toMatchObject({ reason: "success", terminated: true });
    // Sticky: a passed node is not checked again; the round after the agent said it was done is the final one.
    expect(calls).toEqual([
      { name: "a", final: false },
      { name: "b", final: false },
      { name: "b", final: true },
    ]);
  });

  test("recheck: a node that stops holding drops the score", async () => {
    const bench = await benchOf({ graph: { nodes: { a: node("a"), b: node("b") }, edges: [["a", "b"]], pass_policy: "recheck" } });
    await bench.start("t");
    world.add("a");
    expect((await bench.step(wait)).evaluation.score).toBe(0.5);
    world.delete("a");
    expect((await bench.step(wait)).evaluation).toMatchObject({ nodes: { a: "failed", b: "pending" }, score: 0 });
  });
});
