import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { createRegistries, loadDataset, translateLegacySpelling, type DatasetProblem } from "@pincer/controller/datasets";
import { maxStepsFor } from "@pincer/controller/runner";

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "pincer-dataset-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Writes examples/<tool>/<id>/<id>.json (and extra files) under the test root. */
function writeTask(tool: string, id: string, task: Record<string, unknown>, files: Record<string, string> = {}) {
  const dir = join(root, tool, id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${id}.json`), JSON.stringify(task, null, 2));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const good = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  instruction: "Do the thing.",
  config: [{ func: "upload_file_to_vm", arguments: { local_path: "in.txt", remote_path: "/tmp/in.txt" } }],
  evaluation: { func: "compare_text_file", arguments: { local_expected: "in.txt", vm_result: "/tmp/out.txt" } },
  action_number: 2,
  tags: ["cli"],
  ...extra,
});

const load = () => loadDataset(root, createRegistries());
const errors = (problems: DatasetProblem[]) => problems.filter((p) => p.severity === "error");

describe("loading and validating a dataset", () => {
  test("a valid task loads with its fields, folder and solution", async () => {
    const dir = writeTask("terminal", "t1", good("t1"), {
      "in.txt": "x",
      "solution.json": JSON.stringify([{ tool: "desktop__run_command", args: { command: "true" } }]),
    });
    const ds = await load();
    expect(ds.problems).toEqual([]);
    expect(ds.tasks).toHaveLength(1);
    expect(ds.tasks[0]).toMatchObject({
      kind: "json",
      id: "t1",
      tool: "terminal",
      dir,
      actionNumber: 2,
      tags: ["cli"],
      solution: [{ tool: "desktop__run_command" }],
    });
  });

  test("every kind of problem is reported with file and JSON path", async () => {
    writeTask("a", "unknown-func", good("unknown-func", { evaluation: { func: "compare_everything", arguments: {} } }), { "in.txt": "x" });
    writeTask("a", "bad-args", good("bad-args", { config: [{ func: "upload_file_to_vm", arguments: { local: "in.txt", remote_path: 5 } }] }), {
      "in.txt": "x",
    });
    writeTask("a", "missing-file", good("missing-file"));
    writeTask("a", "wrong-id", good("something-else"), { "in.txt": "x" });
    writeTask("a", "schema", { id: "schema", evaluation: { func: "compare_text_file" } });
    writeTask("a", "bad-solution", good("bad-solution"), { "in.txt": "x", "solution.json": JSON.stringify([{ click: 1 }]) });
    writeTask("a", "cp-a", good("cp-a", { counterpart: "cp-b" }), { "in.txt": "x" });
    writeTask("a", "cp-b", good("cp-b", { counterpart: "someone-else" }), { "in.txt": "x" });
    mkdirSync(join(root, "a", "broken"), { recursive: true });
    writeFileSync(join(root, "a", "broken", "broken.json"), "{ not json");
    const ds = await load();
    const seen = errors(ds.problems).map((p) => `${p.file.slice(root.length + 1)}:${p.path}: ${p.message}`);
    const expectLine = (re: RegExp) =>
      expect(
        seen.some((l) => re.test(l)),
        `${re} in\n${seen.join("\n")}`,
      ).toBe(true);
    expectLine(/unknown-func\.json:evaluation\.func: unknown evaluation function "compare_everything"; known: .*compare_csv/);
    expectLine(/bad-args\.json:config\[0\]\.arguments\.local_path: upload_file_to_vm: /);
    expectLine(/bad-args\.json:config\[0\]\.arguments\.remote_path: upload_file_to_vm: /);
    expectLine(/bad-args\.json:config\[0\]\.arguments: upload_file_to_vm: .*local/);
    expectLine(/missing-file\.json:config\[0\]\.arguments\.local_path: local file in\.txt does not exist/);
    expectLine(/missing-file\.json:evaluation\.arguments\.local_expected: local file in\.txt does not exist/);
    expectLine(/wrong-id\.json:id: id "something-else" differs from the file name/);
    expectLine(/schema\.json:instruction: /);
    expectLine(/bad-solution\/solution\.json:\[0\]: .*a solution is a list of/);
    expectLine(/cp-a\.json:counterpart: counterpart cp-b does not point back \(its counterpart is "someone-else"\)/);
    expectLine(/broken\.json:line 1, column 3: not valid JSON at line 1, column 3/);
    // Tasks with errors are left out; none of these is runnable.
    expect(ds.tasks.map((t) => t.id)).toEqual(["cp-b"]);
  });

  test("every problem of a task at once: schema, helper arguments, id, and its solution's steps", async () => {
    const solution = [
      { tool: "desktop__clik", args: { x: "a" } },
      { tool: "desktop__click", args: { x: "a", y: 1 } },
      { tool: "server__run_command", args: { command: "true" } },
      { tool: "desktop__upload_file", args: { local_path: "nowhere.txt", remote_path: "/tmp/x" } },
      { tool: "desktop__download_file", args: { remote_path: "/tmp/y", local_path: "got.txt" } },
      { tool: "desktop__upload_file", args: { local_path: "got.txt", remote_path: "/tmp/z" } },
      { tool: "desktop__upload_file", args: { local_path: "in.txt", remote_path: "/tmp/w" } },
    ];
    const broken = { ...good("many"), instruction: 5, id: "other", config: [{ func: "upload_file_to_vm", arguments: { local_path: "in.txt" } }] };
    writeTask("a", "many", broken, { "in.txt": "x", "solution.json": JSON.stringify(solution) });
    const ds = await load();
    expect(errors(ds.problems).map((p) => `${p.file.split("/").at(-1)}:${p.path}: ${p.message}`)).toEqual([
      "many.json:instruction: Invalid input: expected string, received number",
      'many.json:id: id "other" differs from the file name; name the file <id>.json in a folder <id>/',
      "many.json:config[0].arguments.remote_path: upload_file_to_vm: argument remote_path is missing (string)",
      'solution.json:[0].tool: step 1: desktop has no built-in action "clik" (did you mean desktop__click?)',
      "solution.json:[1].args.x: step 2: desktop__click: Invalid input: expected number, received string",
      'solution.json:[2].tool: step 3: tool "server__run_command" names no environment of this task; write <environment>__<action> with one of desktop',
      expect.stringMatching(
        /^solution\.json:\[3\]\.args\.local_path: step 4: nowhere\.txt is neither in the task folder \(.*\) nor downloaded by an earlier step$/,
      ),
    ]);
  });

  test("a misspelt function or argument gets a did-you-mean and the names the function takes", async () => {
    const task = {
      ...good("typos"),
      config: [{ func: "upload_file_to_vm", arguments: { local_pth: "in.txt", remote_path: "/tmp/x" } }],
      evaluation: { func: "check_file_exist", arguments: { vm_file: "/tmp/x" } },
    };
    writeTask("a", "typos", task, { "in.txt": "x" });
    const ds = await load();
    const lines = errors(ds.problems).map((p) => `${p.path}: ${p.message}`);
    expect(lines).toContain(
      'config[0].arguments: upload_file_to_vm: unknown argument "local_pth" (did you mean "local_path"?); ' +
        "it takes local_path, remote_path (docs/task-functions.md)",
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^evaluation\.func: unknown evaluation function "check_file_exist" \(did you mean "check_file_exists"\?\); known: /),
    );
  });

  test("invalid JSON is reported with its line and column", async () => {
    const dir = join(root, "a", "bad");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "bad.json"), '{\n  "id": "bad",\n  "instruction": "x"\n  "config": []\n}\n');
    const ds = await load();
    expect(errors(ds.problems)).toEqual([
      { file: join(dir, "bad.json"), path: "line 4, column 3", message: expect.stringMatching(/^not valid JSON at line 4, column 3: /), severity: "error" },
    ]);
  });

  test("the older {type, parameters} spelling is translated and reported, never skipped", async () => {
    const legacy = {
      id: "old",
      instruction: "Old style.",
      config: [{ type: "execute", parameters: { command: "true" } }],
      evaluation: { type: "check_file_exists", parameters: { vm_file: "/tmp/x" } },
    };
    writeTask("a", "old", legacy);
    const ds = await load();
    expect(errors(ds.problems)).toEqual([]);
    const warnings = ds.problems.filter((p) => p.severity === "warning").map((p) => p.path);
    expect(warnings).toEqual(["config[0]", "evaluation"]);
    expect(ds.tasks[0]).toMatchObject({
      id: "old",
      json: { config: [{ func: "execute", arguments: { command: "true" } }], evaluation: { func: "check_file_exists" } },
    });
    expect(translateLegacySpelling({ evaluation: { func: "x", arguments: {} } }).translated).toEqual([]);
  });

  test("parts of all/any are checked too", async () => {
    writeTask("a", "combo", good("combo", { evaluation: { func: "all", arguments: { evaluators: [{ func: "nope", arguments: {} }] } } }), { "in.txt": "x" });
    const ds = await load();
    expect(errors(ds.problems).map((p) => p.path)).toContain("evaluation.arguments.evaluators[0].func");
  });

  test("an empty folder says what it expected", async () => {
    const ds = await load();
    expect(ds.problems[0]!.message).toMatch(
      /no tasks found: expected JSON task files in a folder of their own \(<tool>\/<id>\/<id>\.json\); task modules \(\*\.task\.ts/,
    );
  });

  test("the max-steps rule: fixed, or 2 × action_number + 5, or 50", async () => {
    writeTask("a", "n3", good("n3", { action_number: 3 }), { "in.txt": "x" });
    writeTask("a", "none", good("none", { action_number: undefined }), { "in.txt": "x" });
    const ds = await load();
    const byId = Object.fromEntries(ds.tasks.map((t) => [t.id, t]));
    expect(maxStepsFor(byId.n3!, "auto")).toEqual({ maxSteps: 11, rule: "auto: 2 × action_number (3) + 5" });
    expect(maxStepsFor(byId.none!, "auto")).toEqual({ maxSteps: 50, rule: "auto: no action_number, 50" });
    expect(maxStepsFor(byId.n3!, 7)).toEqual({ maxSteps: 7, rule: "fixed 7" });
  });
});

describe("the examples folder", () => {
  test("validates without problems and holds at least 12 tasks, each with a solution", async () => {
    const ds = await loadDataset(join(import.meta.dirname, "../../../examples"), createRegistries());
    expect(ds.problems).toEqual([]);
    expect(ds.tasks.length).toBeGreaterThanOrEqual(12);
    expect(ds.tasks.filter((t) => !t.solution).map((t) => t.id)).toEqual([]);
    const tags = new Set(ds.tasks.flatMap((t) => t.tags));
    for (const tag of ["cli", "gui", "cli+gui", "multi-machine"]) expect(tags).toContain(tag);
  });
});
