import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { coverageOf, createRegistries as builtinRegistries, formatProblems, loadDataset } from "@pincer/controller/datasets";
import { osworldFormat, type OsworldDatasetTask } from "@pincer/controller/osworld";

/** The registries the CLI reads with: the built-in formats and OSWorld's. */
const createRegistries = () => builtinRegistries({ formats: [osworldFormat] });
import { createMemoryEnv } from "../../../packages/controller/src/env/index.js";
import { DownloadCache } from "../../../packages/controller/src/datasets/osworld/downloadCache.js";
import { evaluateOsworld } from "../../../packages/controller/src/datasets/osworld/evaluate.js";
import { OSWORLD_METRICS } from "../../../packages/controller/src/datasets/osworld/metrics/index.js";
import { VOCABULARY } from "../../../packages/controller/src/actions/pyautogui/index.js";

// OSWorld's layout (<app>/<uuid>.json) and format, written here in its shape: read, validated, and
// sorted into supported tasks and valid ones needing functions Pincer lacks (by name).
// What the interpreter performs, as its messages list it.
const PERFORMED = VOCABULARY.describe();
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
    'c2.json:evaluator.options.rulez: compare_table does not take the option "rulez": it is ignored, as OSWorld ignores it (check its spelling)',
  ]);
  expect(ds.tasks).toEqual([]);
});

test("an option a metric does not read: ignored with a warning where OSWorld's function takes **options, an error where it raises TypeError", async () => {
  const pptx = { type: "vm_file", path: "/home/user/a.pptx", dest: "a.pptx" };
  const gold = { type: "cloud_file", path: "https://example.org/a.pptx", dest: "a_gold.pptx" };
  // compare_pptx_files(file1, file2, **options): the misspelt key keeps examine_alignment at its default.
  write("impress", "k1", osworld("k1", { func: "compare_pptx_files", result: pptx, expected: gold, options: { examine_aligment: false } }));
  // check_json(result, rules, is_yaml=False): Python raises TypeError on any other keyword.
  write(
    "os",
    "k2",
    osworld("k2", {
      func: "check_json",
      result: { type: "vm_file", path: "/a.json", dest: "a.json" },
      expected: { type: "rule", rules: {} },
      options: { yaml: true },
    }),
  );
  // compare_archive hands the other keys to compare_pdfs, which takes none.
  const archive = { type: "vm_file", path: "/a.zip", dest: "a.zip" };
  write("os", "k3", osworld("k3", { func: "compare_archive", result: archive, expected: archive, options: { file_type: "pdf", ignore_case: true } }));
  write(
    "os",
    "k4",
    osworld("k4", { func: "compare_archive", result: archive, expected: archive, options: { file_type: "image", ignore_case: true, colour: 1 } }),
  );
  const ds = await loadDataset(root, createRegistries());
  const ignored = "it is ignored, as OSWorld ignores it (check its spelling)";
  expect(formatProblems(ds.problems, root).split("\n")).toEqual([
    `impress/k1.json:evaluator.options.examine_aligment: warning: compare_pptx_files does not take the option "examine_aligment": ${ignored}`,
    'os/k2.json:evaluator.options: error: check_json: unknown option "yaml": OSWorld\'s check_json has no such parameter (Python raises TypeError); remove it',
    "os/k3.json:evaluator.options.ignore_case: error: compare_archive: ignore_case goes to compare_pdfs, which takes no options (Python raises TypeError): " +
      "remove it",
    `os/k4.json:evaluator.options.colour: warning: compare_archive does not take the option "colour": ${ignored}`,
  ]);
  expect(ds.tasks.map((t) => t.id)).toEqual(["k1", "k4"]);
  const metric = OSWORLD_METRICS.get("compare_pptx_files")!;
  const parsed = metric.options.parse({ examine_aligment: false }) as Record<string, unknown>;
  expect(parsed.examine_alignment).toBe(true);
  expect(parsed).not.toHaveProperty("examine_aligment");
});

test("a task file's name may carry a suffix after the id, as OSWorld's variants do (<uuid>-win.json)", async () => {
  const id = "0c825995-5b70-4526-b663-113f4c999dd2";
  write("os", `${id}-win`, osworld(id, { func: "infeasible" }));
  write("os", `${id}x`, osworld(id, { func: "infeasible" }));
  const ds = await loadDataset(root, createRegistries());
  expect(ds.tasks.map((t) => [t.id, t.file.split("/").at(-1)])).toEqual([[id, `${id}-win.json`]]);
  expect(ds.problems.map((p) => `${p.file.split("/").at(-1)}:${p.path}: ${p.message}`)).toEqual([
    `${id}x.json:id: id "${id}" differs from the file name; name the file <id>.json (or <id>-<suffix>.json)`,
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
    'b3.json:id: id "other-id" differs from the file name; name the file <id>.json (or <id>-<suffix>.json)',
    `b4.json:: a task of the JSON task format goes in a folder of its own: move it to ${join(root, "os", "b4", "b4.json")} with its files`,
  ]);
  expect(coverageOf(ds)).toMatchObject({ supported: 0, unsupported: 0, invalid: 4 });
});

test("a rule's 5.0 stays a float, as Python's json reads it: literal_match compares str(5.0), and 1.0 is no int to a VLC check", async () => {
  mkdirSync(join(root, "os"), { recursive: true });
  // Written by hand: JSON.stringify would print 5.0 as 5.
  const task = (id: string, func: string, result: string, expected: string) =>
    `{"id": "${id}", "instruction": "Do it.", "config": [], "evaluator": {"func": "${func}", "result": ${result}, "expected": ${expected}}}`;
  writeFileSync(join(root, "os", "f1.json"), task("f1", "literal_match", '{"type": "rule", "rules": "5"}', '{"type": "rule", "rules": 5.0}'));
  writeFileSync(join(root, "os", "f2.json"), task("f2", "literal_match", '{"type": "rule", "rules": "5.0"}', '{"type": "rule", "rules": 5.0}'));
  writeFileSync(join(root, "os", "vlcrc"), "qt-minimal-view=1\n");
  const vlc = (v: string) =>
    task("f3", "check_qt_minimal_view", `{"type": "cache_file", "path": "vlcrc"}`, `{"type": "rule", "rules": {"expected_qt_minimal_view": ${v}}}`);
  writeFileSync(join(root, "os", "f3.json"), vlc("1.0"));
  const ds = await loadDataset(root, createRegistries());
  expect(ds.problems).toEqual([]);
  const ctx = {
    env: createMemoryEnv(),
    signal: new AbortController().signal,
    cacheDir: join(root, "os"),
    downloads: new DownloadCache(),
    password: "password",
    log: () => {},
  };
  const score = async (id: string) => {
    const t = ds.tasks.find((x) => x.id === id) as OsworldDatasetTask;
    if (t.kind !== "osworld") throw new Error("not an OSWorld task");
    return (await evaluateOsworld(t.json.evaluator, ctx, false)).score;
  };
  expect(await score("f1")).toBe(0);
  expect(await score("f2")).toBe(1);
  expect(await score("f3")).toBe(0);
  writeFileSync(join(root, "os", "f3.json"), vlc("1"));
  const again = await loadDataset(root, createRegistries());
  const f3 = again.tasks.find((x) => x.id === "f3") as OsworldDatasetTask;
  if (f3.kind !== "osworld") throw new Error("not an OSWorld task");
  expect((await evaluateOsworld(f3.json.evaluator, ctx, false)).score).toBe(1);
});
