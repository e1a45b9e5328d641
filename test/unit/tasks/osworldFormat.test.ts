import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { coverageOf, createRegistries, loadDataset } from "@pincer/controller/datasets";

// OSWorld's layout (<app>/<uuid>.json) and format, written here in its shape: read, validated, and
// sorted into supported tasks and valid ones needing functions Pincer lacks (by name).
const PERFORMED = ["hotkey", "press", "write", "typewrite", "click", "doubleClick", "rightClick", "moveTo", "mouseDown", "mouseUp", "scroll"]
  .map((n) => `pyautogui.${n}`)
  .concat("time.sleep")
  .join(", ");
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

test("flat <app>/<uuid>.json files load: tasks whose every function Pincer has run, the others are listed with what they need", async () => {
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
      result: [
        { type: "vm_file", path: "/home/user/a.xlsx", dest: "a.xlsx" },
        { type: "googledrive_file", path: ["a.txt"], dest: "a.txt" },
      ],
      expected: [{ type: "cloud_file", path: "https://example.org/a.xlsx", dest: "a_gold.xlsx" }, {}],
      options: [{ rules: [{ type: "sheet_data", sheet_idx0: 0, sheet_idx1: "EI0" }] }, {}],
      postconfig: [{ type: "sleep", parameters: { seconds: 1 } }],
    }),
  );
  write("chrome", "a3", osworld("a3", { func: "infeasible" }, { config: [] }));
  // A function Pincer has, used with a part it lacks (a sparkline rule), and a pyautogui call it does not perform.
  write(
    "calc",
    "a4",
    osworld(
      "a4",
      {
        func: "compare_table",
        result: { type: "vm_file", path: "/a.xlsx", dest: "a.xlsx" },
        options: { rules: [{ type: "sparkline", sheet_idx0: 0, sheet_idx1: "EI0" }] },
      },
      { config: [{ type: "execute", parameters: { command: ["python", "-c", "import pyautogui; pyautogui.locateOnScreen('x.png')"] } }] },
    ),
  );
  const ds = await loadDataset(root, createRegistries());
  expect(ds.problems).toEqual([]);
  expect(ds.tasks.map((t) => [t.kind, t.tool, t.id])).toEqual([
    ["osworld", "chrome", "a3"],
    ["osworld", "os", "a1"],
  ]);
  expect(ds.unsupported.map((u) => [u.tool, u.id, u.needs.map((n) => `${n.kind} ${n.name}`)])).toEqual([
    [
      "calc",
      "a4",
      [
        `config type execute (pyautogui: pyautogui.locateOnScreen(...) is not a call Pincer performs (it performs ${PERFORMED}))`,
        "metric compare_table.rule sparkline",
      ],
    ],
    ["os", "a2", ["getter googledrive_file"]],
  ]);
  const c = coverageOf(ds);
  expect(c).toMatchObject({ supported: 2, unsupported: 2, invalid: 0 });
  // Google Drive is known, but needs an account Pincer's machines do not have: named with that reason.
  expect(c.missing.find((m) => m.name === "googledrive_file")).toEqual({
    kind: "getter",
    name: "googledrive_file",
    reason: "needs a Google account",
    tasks: 1,
  });
  expect(c.missing.find((m) => m.name === "compare_table.rule sparkline")?.reason).toBeUndefined();
});

test("arguments of the functions Pincer has are checked: parameters, getter fields and metric options, with their JSON path", async () => {
  write("os", "c1", osworld("c1", { func: "exact_match", result: { type: "vm_file", path: "/x", dest: "a/b" }, expected: { type: "rule", rules: {} } }));
  write(
    "os",
    "c2",
    osworld(
      "c2",
      { func: "compare_table", result: { type: "vm_file", path: "/a.xlsx", dest: "a.xlsx" }, options: { rulez: [] } },
      { config: [{ type: "sleep", parameters: { second: 1 } }] },
    ),
  );
  const ds = await loadDataset(root, createRegistries());
  expect(ds.problems.map((p) => `${p.file.split("/").at(-1)}:${p.path}: ${p.message}`)).toEqual([
    "c1.json:evaluator.result.dest: vm_file: dest is a file name in the cache folder, without '/'",
    expect.stringMatching(/^c2\.json:config\[0\]\.parameters\.seconds: sleep: /),
    expect.stringMatching(/^c2\.json:config\[0\]\.parameters: sleep: Unrecognized key: "second"/),
    "c2.json:evaluator.options.rules: compare_table: Invalid input: expected array, received undefined",
    'c2.json:evaluator.options: compare_table: Unrecognized key: "rulez"',
  ]);
  expect(ds.tasks).toEqual([]);
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
