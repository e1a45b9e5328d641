import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { createRegistries, loadDataset } from "@pincer/controller/datasets";

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
    const ds = await loadDataset(root, createRegistries(), { importModule: async (f) => (seen.push(f), import(f)) });
    expect(seen).toEqual([file]);
    expect(ds.tasks.map((t) => t.id)).toEqual(["x"]);
  });
});
