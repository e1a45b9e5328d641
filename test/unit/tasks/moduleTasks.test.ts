import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { action, evaluator } from "@pincer/controller";
import { createRegistries, defineTask, loadDataset, type Dataset, type ModuleDatasetTask, type TaskModule } from "@pincer/controller/datasets";
import { checkTasksBuild } from "../../../packages/controller/src/cli/buildCheck.js";

const REPO = join(import.meta.dirname, "../../..");
let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "pincer-modules-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A task module with no imports, written at `rel` under the test root. */
function writeModule(rel: string, id: string): string {
  const file = join(root, rel);
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, `export default { id: ${JSON.stringify(id)}, instruction: "Do it.", build: () => ({}) };\n`);
  return file;
}

describe("the group (tool) of a task: results go to <run>/<tool>/<id>/, so it is a plain folder name", () => {
  test("one module file given as the dataset: its folder's name, never ..", async () => {
    const file = writeModule("multi/hand-over.task.ts", "hand-over");
    const ds = await loadDataset(file, createRegistries());
    expect(ds.problems).toEqual([]);
    expect(ds.tasks.map((t) => [t.id, t.tool])).toEqual([["hand-over", "multi"]]);
  });

  test("modules in a dataset folder: the first folder below it, or the folder's own name at its top", async () => {
    writeModule("multi/deep/a.task.ts", "a");
    writeModule("b.task.ts", "b");
    const ds = await loadDataset(root, createRegistries());
    expect(ds.problems).toEqual([]);
    expect(Object.fromEntries(ds.tasks.map((t) => [t.id, t.tool]))).toEqual({ a: "multi", b: basename(root) });
  });

  test("one JSON task file given as the dataset: the folder above its task folder", async () => {
    const dir = join(root, "terminal", "t1");
    mkdirSync(dir, { recursive: true });
    const task = { id: "t1", instruction: "Do it.", config: [], evaluation: { func: "check_file_exists", arguments: { vm_file: "/tmp/x" } } };
    writeFileSync(join(dir, "t1.json"), JSON.stringify(task));
    const ds = await loadDataset(join(dir, "t1.json"), createRegistries());
    expect(ds.problems).toEqual([]);
    expect(ds.tasks.map((t) => t.tool)).toEqual(["terminal"]);
  });

  test("task modules are imported with the given importModule", async () => {
    const file = writeModule("g/x.task.ts", "x");
    const seen: string[] = [];
    const ds = await loadDataset(root, createRegistries(), {
      importModule: async (f) => {
        seen.push(f);
        return import(f);
      },
    });
    expect(seen).toEqual([file]);
    expect(ds.tasks.map((t) => t.id)).toEqual(["x"]);
  });
});

describe("a module's solution is checked as solution.json is", () => {
  // Inside the checkout, so that the module's imports (zod, @pincer/controller) resolve as a user's would.
  let root: string;
  beforeEach(() => {
    mkdirSync(join(REPO, ".tmp"), { recursive: true });
    root = mkdtempSync(join(REPO, ".tmp", "modules-"));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  /** A module whose build() adds a `stamp` action to desktop, with a solution of `steps`. */
  const moduleWith = (steps: unknown[], build = "() => ({ extraActions: { desktop: [stamp] } })") =>
    [
      'import { z } from "zod";',
      'import { action } from "@pincer/controller";',
      'const stamp = action({ name: "stamp", description: "Stamp.", params: z.object({ text: z.string() }), run: async () => "ok" });',
      `export default { id: "m", instruction: "Do it.", build: ${build}, solution: ${JSON.stringify(steps)} };`,
    ].join("\n");

  test("an action no environment has is an error, with a did-you-mean over the module's own actions; its own actions' arguments are checked", async () => {
    mkdirSync(join(root, "g"), { recursive: true });
    writeFileSync(
      join(root, "g", "m.task.ts"),
      moduleWith([
        { tool: "desktop__stmp", args: { text: "a" } },
        { tool: "desktop__stamp", args: { text: 5 } },
      ]),
    );
    const ds = await loadDataset(root, createRegistries());
    expect(ds.problems.map((p) => [p.path, p.severity, p.message])).toEqual([
      ["solution[0].tool", "error", 'step 1: desktop has no action "stmp" (did you mean desktop__stamp?)'],
      ["solution[1].args.text", "error", expect.stringMatching(/^step 2: desktop__stamp: /)],
    ]);
  });

  test("a module whose build() needs its machines: an unknown action stays a warning", async () => {
    mkdirSync(join(root, "g"), { recursive: true });
    const build = "({ envs }) => { if (envs.desktop.address === 'none') throw new Error('needs its machine'); return {}; }";
    writeFileSync(join(root, "g", "m.task.ts"), moduleWith([{ tool: "desktop__stmp", args: {} }], build));
    const ds = await loadDataset(root, createRegistries());
    expect(ds.problems.map((p) => [p.path, p.severity])).toEqual([["solution[0].tool", "warning"]]);
  });
});

describe("validate builds each task (checkTasksBuild)", () => {
  const done = evaluator({ name: "done", description: "d", run: () => false });
  const datasetOf = (...modules: TaskModule[]): Dataset => ({
    root,
    problems: [],
    unsupported: [],
    tasks: modules.map(
      (module): ModuleDatasetTask => ({
        kind: "module",
        id: module.id,
        tool: "t",
        dir: root,
        file: join(root, `${module.id}.task.ts`),
        instruction: module.instruction,
        tags: [],
        relatedApps: [],
        environments: module.environments ?? ["desktop"],
        module,
      }),
    ),
  });

  test("an extra action named like an environment's own action is an error of that task, which leaves the dataset", () => {
    const click = action({ name: "click", description: "mine", run: () => "clicked" });
    const clash = defineTask({ id: "clash", instruction: "Do it.", build: () => ({ evaluator: done, extraActions: { desktop: [click] } }) });
    const fine = defineTask({
      id: "fine",
      instruction: "Do it.",
      build: () => ({ evaluator: done, extraActions: { desktop: [action({ name: "open_vault", description: "d", run: () => 1 })] } }),
    });
    const ds = checkTasksBuild(datasetOf(clash, fine), createRegistries());
    expect(ds.tasks.map((t) => t.id)).toEqual(["fine"]);
    expect(ds.problems).toEqual([
      {
        file: join(root, "clash.task.ts"),
        path: "build",
        severity: "error",
        message: expect.stringMatching(/extra action click clashes with an action of desktop/),
      },
    ]);
  });

  test("build() throwing, and a task using environments it does not declare, are errors too", () => {
    const throws = defineTask({
      id: "throws",
      instruction: "Do it.",
      build: () => {
        throw new Error("no config");
      },
    });
    const elsewhere = defineTask({ id: "elsewhere", instruction: "Do it.", build: () => ({ evaluator: done, extraActions: { server: [] } }) });
    const setupElsewhere = defineTask({
      id: "setup",
      instruction: "Do it.",
      build: () => ({ evaluator: done, setup: [{ action: action({ name: "s", description: "d", run: () => {} }), env: "vm7" }] }),
    });
    const ds = checkTasksBuild(datasetOf(throws, elsewhere, setupElsewhere), createRegistries());
    expect(ds.tasks).toEqual([]);
    const messages = ds.problems.map((p) => `${p.file.slice(root.length + 1)}: ${p.message}`);
    expect(messages[0]).toMatch(/^throws\.task\.ts: the task cannot be built: no config$/);
    expect(messages[1]).toMatch(/^elsewhere\.task\.ts: the task cannot be built: .*no environment named server/);
    expect(messages[2]).toMatch(/^setup\.task\.ts: the task cannot be built: .*no environment named vm7/);
  });
});
