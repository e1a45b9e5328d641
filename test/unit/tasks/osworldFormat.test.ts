import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { coverageOf, createRegistries, loadDataset } from "@pincer/controller/datasets";

// OSWorld's layout (<app>/<uuid>.json) and format, written here in its shape: read, validated, and
// counted as valid but needing functions Pincer does not implement yet, by name.
let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "pincer-osworld-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(app: string, id: string, task: Record<string, unknown>) {
  mkdirSync(join(root, app), { recursive: true });
  writeFileSync(join(root, app, `${id}.json`), JSON.stringify(task));
}

const osworld = (id: string, evaluator: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id,
  snapshot: "os",
  instruction: "Do it.",
  source: "https://example.org/question",
  trajectory: "trajectories/",
  config: [{ type: "execute", parameters: { command: ["true"] } }],
  related_apps: ["os"],
  evaluator,
  ...extra,
});

test("flat <app>/<uuid>.json files load; each valid task is listed with the functions it needs", async () => {
  write(
    "os",
    "a1",
    osworld("a1", { func: "exact_match", result: { type: "vm_command_line", command: "echo hi" }, expected: { type: "rule", rules: { expected: "hi" } } }),
  );
  write(
    "os",
    "a2",
    osworld("a2", {
      func: ["compare_table", "check_include_exclude"],
      conj: "or",
      result: [{ type: "vm_file", path: "/home/user/a.xlsx", dest: "a.xlsx" }, { type: "vm_terminal_output" }],
      expected: [{ type: "cloud_file", path: "https://example.org/a.xlsx", dest: "a_gold.xlsx" }, {}],
      options: [{ rules: [] }, {}],
      postconfig: [{ type: "sleep", parameters: { seconds: 1 } }],
    }),
  );
  write("chrome", "a3", osworld("a3", { func: "infeasible" }, { config: [] }));
  const ds = await loadDataset(root, createRegistries());
  expect(ds.problems).toEqual([]);
  expect(ds.tasks).toEqual([]);
  expect(ds.unsupported.map((u) => [u.tool, u.id, u.needs.map((n) => `${n.kind} ${n.name}`)])).toEqual([
    ["chrome", "a3", ["metric infeasible"]],
    ["os", "a1", ["config type execute", "getter vm_command_line", "getter rule", "metric exact_match"]],
    [
      "os",
      "a2",
      [
        "config type execute",
        "config type sleep",
        "getter vm_file",
        "getter vm_terminal_output",
        "getter cloud_file",
        "metric compare_table",
        "metric check_include_exclude",
      ],
    ],
  ]);
  const c = coverageOf(ds);
  expect(c).toMatchObject({ supported: 0, unsupported: 3, invalid: 0 });
  expect(c.missing.slice(0, 2)).toEqual([
    { kind: "config type", name: "execute", tasks: 2 },
    { kind: "config type", name: "sleep", tasks: 1 },
  ]);
});

test("inconsistent tasks are invalid with a precise reason; a GUI-OS task outside its folder is told where it goes", async () => {
  write("os", "b1", osworld("b1", { func: ["exact_match", "exact_match"], result: [{ type: "vm_file" }], expected: { type: "rule" } }));
  write("os", "b2", osworld("b2", { func: "exact_match" }));
  write("os", "b3", osworld("other-id", { func: "infeasible" }));
  write("os", "b4", { id: "b4", instruction: "x", evaluation: { func: "compare_text_file", arguments: {} } });
  const ds = await loadDataset(root, createRegistries());
  expect(ds.problems.map((p) => `${p.file.split("/").at(-1)}:${p.path}: ${p.message}`)).toEqual([
    "b1.json:evaluator.result: func lists 2 metric(s) but result has 1",
    "b1.json:evaluator.expected: func is a list of 2: give expected as a list of the same length",
    "b2.json:evaluator.result: give the result getter the metric judges",
    'b3.json:id: id "other-id" differs from the file name; name the file <id>.json',
    `b4.json:: a task in Pincer's format goes in a folder of its own: move it to ${join(root, "os", "b4", "b4.json")} with its files`,
  ]);
  expect(coverageOf(ds)).toMatchObject({ supported: 0, unsupported: 0, invalid: 4 });
});
