import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { TaskFunctionContext } from "../../packages/controller/src/datasets/taskFunctions.js";
import type { Verdict } from "../../packages/controller/src/evaluators/verdict.js";
import { createEvaluationRegistry } from "../../packages/controller/src/datasets/evaluationFunctions/index.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";

// Every built-in evaluation function against a real daemon: the fixtures are uploaded to a folder on
// the machine through env.files, and the helpers fetch them back through env (files and processes
// need no display).

const FIXTURES = resolve(import.meta.dirname, "../fixtures/evaluation");
const registry = createEvaluationRegistry();

let daemon: RunningDaemon;
/** The fixtures' folder on the machine. */
let vm: string;
let ctx: TaskFunctionContext;

/** Runs a helper as the runner does: arguments parsed by its schema, then run. */
async function evaluate(func: string, args: Record<string, unknown>): Promise<Verdict> {
  const helper = registry.get(func);
  if (!helper) throw new Error(`no helper ${func}`);
  return helper.run(helper.args.parse(args), ctx);
}

beforeAll(async () => {
  daemon = await spawnDaemon();
  const env = daemon.env;
  vm = (await env.process.run(["mktemp", "-d", "/tmp/pincer-eval-test-XXXXXX"], { check: true })).stdout.trim();
  for (const sub of readdirSync(FIXTURES)) {
    for (const name of readdirSync(join(FIXTURES, sub))) await env.files.upload(join(FIXTURES, sub, name), `${vm}/${sub}/${name}`);
  }
  ctx = { env, envs: { main: env, second: env }, taskDir: FIXTURES, signal: new AbortController().signal };
});

afterAll(async () => {
  if (vm) await daemon?.env.files.remove(vm, { recursive: true, missingOk: true });
  await daemon?.close();
});

const at = (path: string) => `${vm}/${path}`;

/** Arguments with their vm_* paths (nested ones too) under the uploaded folder; absolute ones stay. */
function resolveVm(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(args).map(([k, v]) => [
      k,
      (k.startsWith("vm_") || k === "cwd") && typeof v === "string" && !v.startsWith("/")
        ? at(v).replace(/\/\.$/, "")
        : Array.isArray(v)
          ? v.map((x) => (x && typeof x === "object" && "arguments" in x ? { ...x, arguments: resolveVm(x.arguments as Record<string, unknown>) } : x))
          : v,
    ]),
  );
}

describe("each helper passes its passing fixture and fails its failing one", () => {
  // [helper, arguments (vm paths relative to the uploaded folder), expected score, expected reason (or a pattern)]
  const cases: Array<[string, Record<string, unknown>, number, string | RegExp]> = [
    ["compare_text_file", { local_expected: "text/expected.txt", vm_result: "text/result-pass.txt" }, 1, "the texts match (4 line(s))"],
    // The dataset's own spelling of the same arguments.
    ["compare_text_file", { local_expected_file: "text/expected.txt", vm_result_file: "text/result-pass.txt" }, 1, "the texts match (4 line(s))"],
    [
      "compare_text_file",
      { local_expected_file: "text/expected.txt", vm_result_file: "text/result-fail-split.txt", ignore_blanks: true },
      1,
      "the texts match (blanks collapsed)",
    ],
    [
      "compare_text_file",
      { local_expected: "text/expected.txt", vm_result: "text/result-pass-blanks-case.txt", ignore_blanks: true, ignore_case: true },
      1,
      "the texts match (blanks collapsed)",
    ],
    [
      "compare_text_file",
      { local_expected: "text/expected.txt", vm_result: "text/result-pass-blanks-case.txt" },
      0,
      'line 1: expected "Total: 42", got "  total:   42"',
    ],
    [
      "compare_text_file",
      { local_expected: "text/expected.txt", vm_result: "text/result-fail.txt" },
      0,
      'line 2: expected "Items: apples, pears", got "Items: apples, plums"',
    ],
    ["compare_csv", { local_expected: "csv/expected.csv", vm_result: "csv/result-pass.csv" }, 1, "3 data row(s) and 3 column(s) match"],
    [
      "compare_csv",
      { local_expected: "csv/expected.csv", vm_result: "csv/result-pass-loose.csv", ignore_order: true, ignore_case: true, strict: false },
      1,
      "3 data row(s) and 3 column(s) match in some order",
    ],
    ["compare_csv", { local_expected: "csv/expected.csv", vm_result: "csv/result-fail-index.csv", ignore_order: true }, 0, /extra column\(s\) "Unnamed: 0"/],
    ["compare_csv", { local_expected: "csv/expected.csv", vm_result: "csv/result-fail.csv" }, 0, 'data row 2, column "qty": expected 10, got 12'],
    ["compare_csv", { local_expected: "csv/expected.csv", vm_result: "csv/invalid.csv" }, 0, /^the result is not valid CSV: /],
    ["compare_notebook_outputs", { local_expected: "notebook/expected.ipynb", vm_result: "notebook/expected.ipynb" }, 1, "the outputs of 3 code cell(s) match"],
    [
      "compare_notebook_outputs",
      { local_expected: "notebook/expected.ipynb", vm_result: "notebook/result-fail-outputs.ipynb" },
      0,
      'cell [3] output 1: expected "1.25", got "1.3"',
    ],
    ["compare_notebook_cells", { local_expected: "notebook/expected.ipynb", vm_result: "notebook/result-pass.ipynb" }, 1, /^the types and sources of 4 cell/],
    ["compare_notebook_cells", { local_expected: "notebook/expected.ipynb", vm_result: "notebook/result-fail-cells.ipynb" }, 0, /^cell \[2\] source: /],
    ["compare_ipynb_files", { local_expected: "notebook/expected.ipynb", vm_result: "notebook/expected.ipynb" }, 1, /^the 4 cell\(s\) match/],
    ["compare_ipynb_files", { local_expected: "notebook/expected.ipynb", vm_result: "notebook/result-pass.ipynb" }, 0, /^cell \[2\] output text: /],
    [
      "compare_notebook_cells",
      { local_expected: "notebook/expected.ipynb", vm_result: "notebook/not-a-notebook.ipynb" },
      0,
      /is not a notebook: cells: no cells array/,
    ],
    ["is_jupyter_cell_executed", { vm_result: "notebook/expected.ipynb" }, 1, "3 code cell(s) executed"],
    ["is_jupyter_cell_executed", { vm_result: "notebook/unexecuted.ipynb" }, 0, "not executed: cell(s) [3]"],
    ["is_jupyter_cell_executed", { vm_result: "notebook/unexecuted.ipynb", cells: [1, 2] }, 1, "2 code cell(s) executed"],
    ["is_jupyter_cell_executed", { vm_result: "notebook/unexecuted.ipynb", expected: [3] }, 1, "the unexecuted cells are [3], as expected"],
    ["are_jupyter_outputs_cleared", { vm_result: "notebook/cleared.ipynb", expected: [] }, 1, "the outputs are cleared"],
    ["are_jupyter_outputs_cleared", { vm_result: "notebook/expected.ipynb", expected: [] }, 0, "the cells with outputs are [2, 3], expected []"],
    [
      "evaluate_multiple_notebooks",
      {
        operator: "and",
        comparisons: [
          { func: "compare_notebook_cells", arguments: { local_expected: "notebook/expected.ipynb", vm_result: "notebook/result-fail-outputs.ipynb" } },
          { func: "compare_notebook_outputs", arguments: { local_expected: "notebook/expected.ipynb", vm_result: "notebook/result-fail-outputs.ipynb" } },
        ],
      },
      0,
      '1 of 2 passed (all needed): [1] compare_notebook_outputs: cell [3] output 1: expected "1.25", got "1.3"',
    ],
    [
      "evaluate_multiple_notebooks",
      {
        operator: "OR",
        comparisons: [
          { func: "compare_notebook_outputs", arguments: { local_expected: "notebook/expected.ipynb", vm_result: "notebook/result-fail-outputs.ipynb" } },
          { func: "compare_notebook_cells", arguments: { local_expected: "notebook/expected.ipynb", vm_result: "notebook/result-fail-outputs.ipynb" } },
        ],
      },
      1,
      /^1 of 2 passed \(one needed\): \[1\] compare_notebook_cells: /,
    ],
    [
      "evaluate_multiple_notebooks",
      {
        operator: "and",
        comparisons: [{ func: "compare_notebook_cells", arguments: { local_expected: "notebook/missing.ipynb", vm_result: "notebook/expected.ipynb" } }],
      },
      0,
      /^0 of 1 passed \(all needed\): \[0\] compare_notebook_cells: failed to run \(scored 0, as in the dataset's evaluator\): local_expected /,
    ],
    [
      "compare_jupyterlab_images",
      { local_expected_image: "jupyterlab/gold.png", vm_result_image: "jupyterlab/gold.png" },
      1,
      "histogram correlation 1.0000 ≥ threshold 0.95",
    ],
    [
      "compare_jupyterlab_images",
      { local_expected_image: "jupyterlab/gold.png", vm_result_image: "jupyterlab/half.png" },
      1,
      "histogram correlation 0.9999 ≥ threshold 0.95",
    ],
    [
      "compare_jupyterlab_images",
      { local_expected_image: "jupyterlab/gold.png", vm_result_image: "jupyterlab/white.png" },
      0,
      "histogram correlation 0.9358 < threshold 0.95",
    ],
    [
      "compare_jupyterlab_images",
      { local_expected_image: "jupyterlab/gold.png", vm_result_image: "jupyterlab/black.png" },
      0,
      "histogram correlation 0.0027 < threshold 0.95",
    ],
    // The original's blind spot, and the stricter verdict as an option.
    [
      "compare_jupyterlab_images",
      { local_expected_image: "jupyterlab/gold.png", vm_result_image: "jupyterlab/flipped.png" },
      1,
      /^histogram correlation 1\.0000/,
    ],
    [
      "compare_jupyterlab_images",
      { local_expected_image: "jupyterlab/gold.png", vm_result_image: "jupyterlab/shifted.png" },
      1,
      /^histogram correlation 1\.0000/,
    ],
    [
      "compare_jupyterlab_images",
      { local_expected_image: "jupyterlab/gold.png", vm_result_image: "jupyterlab/tiles.png" },
      1,
      /^histogram correlation 1\.0000/,
    ],
    [
      "compare_jupyterlab_images",
      { local_expected_image: "jupyterlab/gold.png", vm_result_image: "jupyterlab/odd-size.png" },
      1,
      /^histogram correlation 0\.9998/,
    ],
    [
      "compare_jupyterlab_images",
      { local_expected_image: "jupyterlab/gold.png", vm_result_image: "jupyterlab/flipped.png", method: "ssim" },
      0,
      /^SSIM 0\.\d+ < threshold 0\.95$/,
    ],
    [
      "compare_jupyterlab_images",
      { local_expected_image: "jupyterlab/gold.png", vm_result_image: "jupyterlab/gold.png", method: "ssim" },
      1,
      "SSIM 1.0000 ≥ threshold 0.95",
    ],
    ["compare_images", { local_expected: "images/expected.png", vm_result: "images/result-pass.png" }, 1, /^SSIM 0\.99\d\d ≥ threshold 0\.95$/],
    ["compare_images", { local_expected: "images/expected.png", vm_result: "images/result-fail.png" }, 0, /^SSIM 0\.3\d+ < threshold 0\.95$/],
    [
      "compare_images",
      { local_expected: "images/expected.png", vm_result: "images/result-pass.png", threshold: 0.999 },
      0,
      /^SSIM 0\.99\d\d < threshold 0\.999$/,
    ],
    ["compare_images", { local_expected: "images/expected.png", vm_result: "text/expected.txt" }, 0, /is not an image: /],
    ["check_file_exists", { vm_file: "text/expected.txt" }, 1, /exists \(a file\)$/],
    ["check_file_exists", { vm_file: "text/absent.txt" }, 0, /text\/absent\.txt does not exist$/],
    ["check_file_exists", { vm_file: "text", type: "file" }, 0, /text is a directory, not a file$/],
    ["check_file_exists", { vm_file: "text/absent.txt", exists: false }, 1, /does not exist$/],
    ["check_file_exists", { vm_file: "text/expected.txt", exists: false }, 0, /exists \(a file\) but should not$/],
    [
      "check_include_exclude",
      { vm_result: "text/settings.conf", include: ["theme = dark", { regex: "^font_size = \\d+$" }], exclude: ["theme = light"] },
      1,
      /all 2 include rule\(s\) found/,
    ],
    [
      "check_include_exclude",
      { vm_result: "text/settings.conf", include: ["theme = dark"], exclude: ["autosave = true"] },
      0,
      /: contains excluded "autosave = true"$/,
    ],
    [
      "check_include_exclude",
      { vm_result: "text/settings.conf", rules: { include: ["THEME = DARK"], exclude: [] }, ignore_case: true },
      1,
      /all 1 include rule\(s\) found/,
    ],
    [
      "compare_script_logs",
      { local_script: "scripts/report.sh", include: ["3 passed", { regex: "^tests: \\d+ passed, 0 failed$" }], exit_code: 0 },
      1,
      /all 2 include rule\(s\) found/,
    ],
    [
      "compare_script_logs",
      { local_script: "scripts/report.sh", include: ["3 passed"], exclude: [{ regex: "^warning:" }] },
      0,
      /contains excluded \/\^warning:\/m \(log ends ".*deprecated\\n"\)$/,
    ],
    [
      "compare_script_logs",
      { local_script: "scripts/report.sh", log: "stdout", include: ["3 passed"], exclude: [{ regex: "^warning:" }] },
      1,
      /^the stdout of "scripts\/report.sh"/,
    ],
    ["compare_script_logs", { command: "echo hello; exit 3", include: ["hello"], exit_code: 0 }, 0, /^"echo hello; exit 3" exited with 3, expected 0/],
    // The dataset's form: the script writes a log, the nested rules check the log.
    [
      "compare_script_logs",
      { eval_script: "scripts/write-log.sh", cwd: ".", vm_eval_logs: "eval-log.txt", rules: { include: ["python3"], exclude: ["jupyter-kernel"] } },
      1,
      /\/eval-log\.txt: all 1 include rule\(s\) found, none of 1 exclude rule\(s\)/,
    ],
    [
      "compare_script_logs",
      { eval_script: "scripts/write-log.sh", cwd: ".", vm_eval_logs: "eval-log.txt", rules: { include: ["SUCCESS"], exclude: ["python3"] } },
      0,
      /missing "SUCCESS"/,
    ],
    [
      "compare_script_logs",
      { eval_script: "scripts/report.sh", vm_eval_logs: "no-log.txt", rules: { include: ["x"] } },
      0,
      /^log file \/tmp\/pincer-eval-test-\w+\/no-log\.txt does not exist \("scripts\/report\.sh" printed /,
    ],
    ["compare_script_logs", { command: ["sh", "-c", "echo missing >&2"], include: ["found"] }, 0, /missing "found"/],
    ["compare_script_logs", { command: "sleep 5", include: ["x"], timeout_seconds: 0.5 }, 0, /did not finish within 0\.5 s/],
  ];

  test.each(cases)("%s %j → %d", async (func, args, score, reason) => {
    const resolved = resolveVm(args);
    const outcome = await evaluate(func, resolved);
    expect(outcome.score).toBe(score);
    if (typeof reason === "string") expect(outcome.reason).toBe(reason);
    else expect(outcome.reason).toMatch(reason);
  });
});

describe("missing results score 0; broken checks throw", () => {
  test.each([
    ["compare_text_file", { local_expected: "text/expected.txt" }],
    ["compare_csv", { local_expected: "csv/expected.csv" }],
    ["compare_notebook_outputs", { local_expected: "notebook/expected.ipynb" }],
    ["compare_notebook_cells", { local_expected: "notebook/expected.ipynb" }],
    ["compare_ipynb_files", { local_expected: "notebook/expected.ipynb" }],
    ["is_jupyter_cell_executed", {}],
    ["are_jupyter_outputs_cleared", {}],
    ["compare_images", { local_expected: "images/expected.png" }],
    ["check_include_exclude", { include: ["x"] }],
  ])("%s: a missing result file is a 0 that says so", async (func, args) => {
    expect(await evaluate(func, { ...args, vm_result: at("nothing/here.txt") })).toEqual({
      score: 0,
      reason: `result file ${at("nothing/here.txt")} does not exist`,
    });
  });

  test("a directory where the result file should be is a 0", async () => {
    expect(await evaluate("compare_text_file", { local_expected: "text/expected.txt", vm_result: at("text") })).toEqual({
      score: 0,
      reason: `result file ${at("text")} is a directory, not a file`,
    });
  });

  test.each([
    [
      "compare_text_file",
      { local_expected: "text/missing.txt", vm_result: "text/result-pass.txt" },
      /^local_expected text\/missing\.txt does not exist \(looked for .*\/fixtures\/evaluation\/text\/missing\.txt\)$/,
    ],
    ["compare_csv", { local_expected: "csv/invalid.csv", vm_result: "csv/result-pass.csv" }, /^the expected file is not valid CSV: /],
    [
      "compare_notebook_cells",
      { local_expected: "notebook/not-a-notebook.ipynb", vm_result: "notebook/result-pass.ipynb" },
      /^local_expected notebook\/not-a-notebook\.ipynb: not a notebook/,
    ],
    ["compare_images", { local_expected: "text/expected.txt", vm_result: "images/result-pass.png" }, /^local_expected text\/expected\.txt is not an image: /],
    ["compare_script_logs", { local_script: "scripts/missing.sh", include: ["x"] }, /^local_script scripts\/missing\.sh does not exist/],
    [
      "compare_text_file",
      { local_expected: "text/expected.txt", vm_result: "text/result-pass.txt", env: "third" },
      /^no environment named "third" in this run \(known: main, second\)$/,
    ],
  ])("%s %j throws", async (func, args, message) => {
    const resolved = { ...args, ...("vm_result" in args ? { vm_result: at(args.vm_result) } : {}) };
    await expect(evaluate(func, resolved)).rejects.toThrow(message);
  });
});

test("env names another machine of the run", async () => {
  const outcome = await evaluate("compare_text_file", { local_expected: "text/expected.txt", vm_result: at("text/result-pass.txt"), env: "second" });
  expect(outcome.score).toBe(1);
});

test("compare_script_logs runs in cwd and removes the script it uploaded", async () => {
  const before = (await daemon.env.files.list("/tmp")).entries.filter(
    (e) => e.name.startsWith("pincer-eval-") && !e.name.startsWith("pincer-eval-test-"),
  ).length;
  expect(await evaluate("compare_script_logs", { command: "pwd", cwd: at("text"), include: [at("text")] })).toMatchObject({ score: 1 });
  expect(await evaluate("compare_script_logs", { local_script: "scripts/report.sh", include: ["3 passed"] })).toMatchObject({ score: 1 });
  const after = (await daemon.env.files.list("/tmp")).entries.filter(
    (e) => e.name.startsWith("pincer-eval-") && !e.name.startsWith("pincer-eval-test-"),
  ).length;
  expect(after).toBe(before);
});

describe("all and any over real helpers", () => {
  const good = () => ({ func: "compare_text_file", arguments: { local_expected: "text/expected.txt", vm_result: at("text/result-pass.txt") } });
  const bad = () => ({ func: "compare_csv", arguments: { local_expected: "csv/expected.csv", vm_result: at("csv/result-fail.csv") } });

  test("all: every part must pass", async () => {
    expect(await evaluate("all", { evaluators: [good(), { func: "check_file_exists", arguments: { vm_file: at("csv/expected.csv") } }] })).toMatchObject({
      score: 1,
    });
    expect(await evaluate("all", { evaluators: [good(), bad()] })).toEqual({
      score: 0,
      reason: '1 of 2 did not pass: [1] compare_csv: data row 2, column "qty": expected 10, got 12',
    });
    expect(await evaluate("all", { evaluators: [good(), bad()], mean: true })).toMatchObject({ score: 0.5 });
  });

  test("any: one passing part is enough", async () => {
    expect(await evaluate("any", { evaluators: [bad(), good()] })).toEqual({
      score: 1,
      reason: "1 of 2 passed: [1] compare_text_file: the texts match (4 line(s))",
    });
    expect(await evaluate("any", { evaluators: [bad(), bad()] })).toMatchObject({
      score: 0,
      reason: expect.stringMatching(/^none of 2 passed: \[0\] compare_csv: data row 2/),
    });
  });

  test("a part that throws makes the combination throw", async () => {
    const broken = { func: "compare_text_file", arguments: { local_expected: "text/missing.txt", vm_result: at("text/result-pass.txt") } };
    await expect(evaluate("any", { evaluators: [good(), broken] })).rejects.toThrow(
      /^evaluators\[1\] compare_text_file failed: local_expected text\/missing\.txt does not exist/,
    );
  });
});
