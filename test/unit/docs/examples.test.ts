import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, test } from "vitest";
import {
  createBenchmark,
  createEnvironment,
  createMemoryEnv,
  createTask,
  evaluator,
  type AnyAction,
  type Observation,
  type StepResult,
  type Task,
} from "@pincer/controller";
import type { Agent } from "@pincer/controller/agents";
import { createRegistries, type DatasetFormat, loadDataset, type ModuleDatasetTask, taskFolder } from "@pincer/controller/datasets";
import { clickBoth } from "../../../examples/readme-benchmark.js";
import { codeBlocks, ROOT } from "./markdown.js";

// The snippets of the README and the manual that can run without a machine, run here against the
// source (every ```ts block is also type-checked: codeBlocks.test.ts).

const EXAMPLE = readFileSync(join(ROOT, "examples/readme-benchmark.ts"), "utf8");
// Inside the repository (and git-ignored), so the snippets resolve @pincer/controller and zod as a user's files would.
const SCRATCH = join(ROOT, ".tmp", `readme-${process.pid}`);
afterAll(() => rmSync(SCRATCH, { recursive: true, force: true }));

/** The ```ts blocks of `page`'s section that starts with `heading`, up to the next heading of its level or higher. */
function blocksUnder(page: string, heading: string): string[] {
  const text = readFileSync(join(ROOT, page), "utf8");
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`${page} has no heading ${heading}`);
  const level = heading.split(" ")[0]!;
  const rest = text.slice(start + heading.length + 2);
  const next = rest.search(new RegExp(`^#{1,${level.length}} `, "m"));
  const section = next < 0 ? rest : rest.slice(0, next);
  return codeBlocks(page, section)
    .filter((b) => b.lang === "ts")
    .map((b) => b.code);
}

/** Writes `text` to a file under SCRATCH and imports it. */
async function importScratch(path: string, text: string): Promise<Record<string, unknown>> {
  const file = join(SCRATCH, path);
  mkdirSync(resolve(file, ".."), { recursive: true });
  writeFileSync(file, text);
  return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
}

describe("the README example (examples/readme-benchmark.ts)", () => {
  test("runs over two in-memory environments and reaches success with the expected metrics", async () => {
    const a = createMemoryEnv({ name: "a" });
    const b = createMemoryEnv({ name: "b" });
    const lines: unknown[][] = [];
    const metrics = await clickBoth(a, b, (...args) => lines.push(args));
    expect(metrics).toEqual({
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
      passedNodes: ["on_a", "on_b"],
    });
    expect(lines).toEqual([
      ["a__click", "ok", "completion", 0.5, ""],
      ["b__press", "ok", "completion", 0.5, ""],
      ["b__click", "ok", "completion", 1, "success"],
      ["success", "completion ratio", 1, metrics],
    ]);
    expect(a.events).toEqual([{ type: "click", at: { x: 150, y: 120 }, button: "left", count: 1, modifiers: [] }]);
    expect(b.events.map((e) => e.type)).toEqual(["press", "click"]);
  });

  test("the README shows the file from its first import to its end, unchanged", () => {
    const [block] = blocksUnder("README.md", "## A benchmark");
    expect(block).toBe(EXAMPLE.slice(EXAMPLE.search(/^import /m)));
    expect(block).toContain("startLocalMachine");
    // Short enough to read in the README.
    expect(EXAMPLE.trimEnd().split("\n").length).toBeLessThan(70);
  });
});

describe("the manual's snippets run against the source", () => {
  test("Compose actions: bind, withName, then, pipe and extraActions give the names and parameters it says", async () => {
    const [snippet] = blocksUnder("docs/benchmarks.md", "### Compose actions");
    // It continues the example: the example's module with the snippet appended (imports are hoisted).
    const mod = await importScratch("compose.ts", `${EXAMPLE}\n${snippet}\nexport { jpeg, shell, clickType, paste, task };\n`);
    const { jpeg, shell, clickType, paste, task } = mod as { jpeg: AnyAction; shell: AnyAction; clickType: AnyAction; paste: AnyAction; task: Task };
    expect([jpeg.name, Object.keys(jpeg.params.shape)]).toEqual(["screenshot", []]);
    expect([shell.name, shell.description, Object.keys(shell.params.shape)]).toEqual([
      "shell",
      "Run a /bin/sh command line.",
      ["command", "cwd", "timeout_seconds"],
    ]);
    expect([clickType.name, Object.keys(clickType.params.shape)]).toEqual(["click_then_type", ["x", "y", "modifiers", "text"]]);
    expect([paste.name, Object.keys(paste.params.shape)]).toEqual(["read_clipboard_to_type", []]);

    const bench = createBenchmark({ environments: [createEnvironment({ name: "a", env: createMemoryEnv() })], tasks: [task] });
    expect(bench.toolNames()).not.toContain("a__read_clipboard_to_type");
    const started = await bench.start("paste");
    expect(started.tools).toContain("a__read_clipboard_to_type");
    await bench.close();
  });

  test("Task modules: the example loads as a dataset task with its environments, setup, graph and solution", async () => {
    const [block] = blocksUnder("docs/datasets.md", "## Task modules");
    const dir = join(SCRATCH, "dataset");
    await importScratch("dataset/multi/hand-over.task.ts", block!);
    const ds = await loadDataset(dir, createRegistries());
    expect(ds.problems).toEqual([]);
    expect(ds.tasks).toHaveLength(1);
    const t = ds.tasks[0] as ModuleDatasetTask;
    if (t.kind !== "module") throw new Error("expected a module task");
    expect([t.id, t.tool, t.module.environments, t.actionNumber]).toEqual(["hand-over", "multi", ["desktop", "server"], 3]);
    expect(t.solution!.map((c) => ("tool" in c ? c.tool : ""))).toEqual(["desktop__download_file", "server__upload_file", "desktop__run_command"]);
    const built = t.module.build({ envs: {}, taskDir: t.dir, taskFiles: taskFolder(t.dir) });
    const task = createTask({ ...built, id: t.id, description: t.instruction });
    expect(task.setup.map((c) => c.env)).toEqual(["desktop", "server"]);
    expect([...task.graph.nodes.keys()]).toEqual(["on_server", "reported"]);
  });

  test("Environments and observations: observe() gives the screen observation, and the typed text passes", async () => {
    const [snippet] = blocksUnder("docs/benchmarks.md", "## Environments and observations");
    const { seen, step } = (await importScratch("observe.ts", `${snippet}\nexport { seen, step };\n`)) as { seen: Observation; step: StepResult };
    const screen = seen.environments.desktop!.screen as { screenshot?: { width: number; height: number }; errors: string[] };
    // The in-memory machine's 1280 × 800 screen, scaled to fit 1024 × 768; it has no accessibility tree, which the observation names.
    expect([screen.screenshot?.width, screen.screenshot?.height]).toEqual([1024, 640]);
    expect(screen.errors.some((e) => e.startsWith("accessibility:"))).toBe(true);
    expect([step.ok, step.reason]).toEqual([true, "success"]);
  });

  test("Dataset formats of your own: the text format reads the fixture's tasks and names a missing field", async () => {
    const [snippet] = blocksUnder("docs/datasets.md", "## Dataset formats of your own");
    const { default: format } = (await importScratch("textFormat.ts", snippet!)) as { default: DatasetFormat };
    const registries = createRegistries({ formats: [format] });
    const ds = await loadDataset(join(ROOT, "test/fixtures/text-tasks"), registries);
    expect(ds.problems).toEqual([]);
    expect(ds.tasks.map((t) => [t.kind, t.tool, t.id, t.solution?.length])).toEqual([
      ["text", "files", "count", 1],
      ["text", "files", "greet", 1],
    ]);
    const broken = await loadDataset(join(ROOT, "test/fixtures/text-tasks-broken"), registries);
    expect(broken.problems.map((p) => p.message)).toContain("give instruction: …");
    const task = format.build(ds.tasks[1]!, { envs: {}, registries, agent: {}, maxSteps: 5, timeLimitMs: 60_000, dir: SCRATCH });
    expect([task.id, task.maxSteps, [...task.graph.nodes.keys()]]).toEqual(["greet", 5, ["output_matches"]]);
  });

  test("An agent of your own: the baseline types the quoted text and presses Return, which a benchmark runs, then says it is done", async () => {
    const [snippet] = blocksUnder("docs/agents.md", "## An agent of your own");
    const { QuotedTextAgent } = (await importScratch("agent.ts", snippet!)) as { QuotedTextAgent: new () => Agent };
    const machine = createMemoryEnv();
    const entered = evaluator({
      name: "entered_ls",
      description: "ls -l was typed and entered",
      local: true,
      run: () => machine.typed === "ls -l" && machine.events.some((e) => e.type === "press"),
    });
    const instruction = 'Type "ls -l" in the terminal.';
    const bench = createBenchmark({
      environments: [createEnvironment({ name: "desktop", env: machine })],
      tasks: [createTask({ id: "t", description: instruction, evaluator: entered })],
    });
    const agent = new QuotedTextAgent();
    const signal = new AbortController().signal;
    await agent.start({ taskId: "t", instruction, tools: [], maxSteps: 5, signal });
    const turn = await agent.act({ step: 0, environments: {}, screenshots: {}, settle: {}, lastResults: [], signal });
    await bench.start("t");
    const results = [];
    for (const call of turn.calls) results.push(await bench.step(call));
    await bench.close();
    expect(results.map((r) => [r.tool, r.ok])).toEqual([
      ["desktop__type", true],
      ["desktop__key", true],
    ]);
    expect(results.map((r) => r.reason)).toEqual([null, "success"]);
    expect(machine.events.map((e) => e.type)).toEqual(["type", "press"]);
    expect(await agent.act({ step: 2, environments: {}, screenshots: {}, settle: {}, lastResults: results, signal })).toEqual({ calls: [], done: true });
  });
});
