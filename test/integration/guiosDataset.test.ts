import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRegistries, loadDataset, type Dataset, type DatasetTask, type JsonDatasetTask } from "@pincer/controller/datasets";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";

// Published GUI-OS tasks, copied as they are (test/fixtures/guios): validate's verdicts, and each
// evaluation run as the runner runs it — the gold file scores 1, plausible wrong results 0. The
// vm_* paths are moved into a temporary folder: nothing is written to /home/user.

const ROOT = resolve(import.meta.dirname, "../fixtures/guios");
const EVAL_FIXTURES = resolve(import.meta.dirname, "../fixtures/evaluation");
const registries = createRegistries();

let ds: Dataset;
let daemon: RunningDaemon;
let work: string;

beforeAll(async () => {
  ds = await loadDataset(ROOT, registries);
  daemon = await spawnDaemon();
  work = mkdtempSync(join(tmpdir(), "pincer-guios-"));
});
afterAll(async () => {
  await daemon?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const short = (id: string) => id.slice(0, 8);

describe("validate on the published tasks", () => {
  test("consistent tasks are valid; src/dest and a self-counterpart are rejected by name with the fix", () => {
    expect(ds.tasks.map((t) => short(t.id)).sort()).toEqual(["040af931", "1fe7d03d", "224009fd", "279a4290", "2ed53418", "99a0ef1f", "e1da7d3d", "f650d0be"]);
    const errors = ds.problems.filter((p) => p.severity === "error").map((p) => [short(p.file.split("/").at(-1)!), p.path, p.message]);
    expect(errors).toEqual([
      [
        "a4773fa9",
        "config[9].arguments",
        "upload_script_and_execute: it takes local_path and remote_path, not src and dest: rename src to local_path and dest to remote_path",
      ],
      [
        "5085517b",
        "counterpart",
        "the task names itself as its counterpart: set counterpart to the id of its twin in the other instruction style, or remove it",
      ],
    ]);
    const warnings = ds.problems.filter((p) => p.severity === "warning").map((p) => `${short(p.file.split("/").at(-1)!)} ${p.path}: ${p.message}`);
    expect(warnings).toContain(
      "99a0ef1f counterpart: counterpart 5085517b-69e9-467a-897b-21b8fd926bde names itself as its counterpart, not this task; fix its counterpart field",
    );
    // A check that is faithful to the dataset but known to pass wrong results is named, with what to use instead.
    expect(warnings).toContain(
      "279a4290 evaluation: compare_jupyterlab_images compares grey-level histograms: a flipped, shifted or rearranged image passes; " +
        "add method: ssim for a structural check",
    );
    // The dataset's own argument spellings are not flagged.
    const expected = /counterpart|old \{"type", "parameters"\} spelling|compares grey-level histograms/;
    expect(warnings.filter((w) => !expected.test(w))).toEqual([]);
  });
});

/** Runs a task's evaluation with its vm_* result file replaced by `resultFile`. */
async function evaluateWith(task: DatasetTask, resultFile: string): Promise<{ score: number; reason: string }> {
  if (task.kind !== "json") throw new Error("a JSON task");
  const { func, arguments: args } = (task as JsonDatasetTask).json.evaluation as { func: string; arguments: Record<string, unknown> };
  const vmKey = Object.keys(args).find((k) => k.startsWith("vm_"))!;
  const target = join(work, `${short(task.id)}-${Math.random().toString(36).slice(2)}-${(args[vmKey] as string).split("/").at(-1)}`);
  copyFileSync(resultFile, target);
  const helper = registries.evaluations.get(func)!;
  return helper.run(helper.args.parse({ ...args, [vmKey]: target }), {
    env: daemon.env,
    envs: { desktop: daemon.env },
    taskDir: task.dir,
    signal: new AbortController().signal,
  });
}

/** A copy of a task file with `edit` applied, in the work folder. */
function edited(task: DatasetTask, file: string, edit: (text: string) => string): string {
  const out = join(work, `${short(task.id)}-edited-${file}`);
  const before = readFileSync(join(task.dir, file), "utf8");
  const after = edit(before);
  if (after === before) throw new Error(`the edit of ${file} changed nothing`);
  writeFileSync(out, after);
  return out;
}

describe("gold scores 1, wrong results 0, with the dataset's own evaluation arguments", () => {
  const byId = (prefix: string) => ds.tasks.find((t) => t.id.startsWith(prefix))!;
  const cases: Array<[string, string, Array<[string, (t: DatasetTask) => string]>]> = [
    [
      "1fe7d03d",
      "AdaBoost_gold.ipynb",
      [
        ["the notebook as handed out", (t) => join(t.dir, "AdaBoost.ipynb")],
        ["an accuracy printed differently", (t) => edited(t, "AdaBoost_gold.ipynb", (s) => s.replace("Accuracy: 1.0\\n", "Accuracy: 0.9\\n"))],
      ],
    ],
    [
      "99a0ef1f",
      "decision_tree_gold.ipynb",
      [
        ["the notebook as handed out", (t) => join(t.dir, "decision_tree.ipynb")],
        [
          "an extra markdown cell",
          (t) => edited(t, "decision_tree_gold.ipynb", (s) => s.replace('"cells": [', '"cells": [{"cell_type": "markdown", "metadata": {}, "source": "x"},')),
        ],
      ],
    ],
    [
      "040af931",
      "logistic_regression_gold.ipynb",
      [
        ["the notebook as handed out", (t) => join(t.dir, "logistic_regression.ipynb")],
        ["an edited cell", (t) => edited(t, "logistic_regression_gold.ipynb", (s) => s.replace("np.exp(-z)", "np.exp(z)"))],
      ],
    ],
    [
      "224009fd",
      "code_content_gold.txt",
      [
        ["an edited line", (t) => edited(t, "code_content_gold.txt", (s) => s.replace(/import numpy as np/, "import numpy"))],
        ["an empty file", (t) => edited(t, "code_content_gold.txt", () => "")],
      ],
    ],
    [
      "f650d0be",
      "gold.csv",
      [
        ["the result as handed out", (t) => join(t.dir, "result.csv")],
        ["a missing row", (t) => edited(t, "gold.csv", (s) => s.split("\n").slice(0, -2).join("\n"))],
        [
          "an index column",
          (t) =>
            edited(t, "gold.csv", (s) =>
              s
                .split("\n")
                .map((l, i) => (l ? `${i === 0 ? "" : i - 1},${l}` : l))
                .join("\n"),
            ),
        ],
      ],
    ],
    [
      "279a4290",
      "gold.png",
      [
        ["a black image", () => join(EVAL_FIXTURES, "jupyterlab/black.png")],
        ["a white image", () => join(EVAL_FIXTURES, "jupyterlab/white.png")],
      ],
    ],
  ];

  test.each(cases)("%s: %s scores 1", async (id, gold) => {
    const task = byId(id);
    expect(await evaluateWith(task, join(task.dir, gold))).toMatchObject({ score: 1 });
  });

  test.each(cases.flatMap(([id, , wrongs]) => wrongs.map(([what, make]) => [id, what, make] as const)))("%s: %s scores 0", async (id, _what, make) => {
    const task = byId(id);
    expect(await evaluateWith(task, make(task))).toMatchObject({ score: 0 });
  });
});

describe("compare_script_logs as published (2ed53418): its eval.sh runs, writes $HOME/eval.log, the rules judge it", () => {
  /** A machine whose HOME is a temporary folder, with a stand-in venv whose `jupyter` lists `kernels`. */
  async function machineWithKernels(kernels: string[] | undefined) {
    const home = mkdtempSync(join(work, "home-"));
    if (kernels) {
      const bin = join(home, "Desktop", ".action-env", "bin");
      mkdirSync(bin, { recursive: true });
      writeFileSync(join(bin, "activate"), `export PATH="${bin}:$PATH"\n`);
      const list = kernels.map((k) => `  ${k}    /usr/share/jupyter/kernels/${k}`).join("\\n");
      writeFileSync(join(bin, "jupyter"), `#!/bin/sh\nprintf 'Available kernels:\\n${list}\\n'\n`, { mode: 0o755 });
    } else mkdirSync(join(home, "Desktop"));
    const machine = await spawnDaemon({ env: { ...process.env, HOME: home } });
    return { home, machine };
  }

  test.each([
    ["the kernel set up as asked", ["python3"], 1],
    ["the agent's own kernel left registered", ["python3", "jupyter-kernel"], 0],
    ["no virtual environment at all", undefined, 0],
  ] as const)("%s (jupyter lists %j) scores %d", async (_what, kernels, score) => {
    const task = ds.tasks.find((t) => t.id.startsWith("2ed53418")) as JsonDatasetTask;
    if (task.kind !== "json") throw new Error("a JSON task");
    const { home, machine } = await machineWithKernels(kernels ? [...kernels] : undefined);
    try {
      const evaluation = task.json.evaluation as { func: string; arguments: Record<string, unknown> }; // one function, not a graph
      const helper = registries.evaluations.get(evaluation.func)!;
      const args = { ...evaluation.arguments, vm_eval_logs: join(home, "eval.log") };
      const outcome = await helper.run(helper.args.parse(args), {
        env: machine.env,
        envs: { desktop: machine.env },
        taskDir: task.dir,
        signal: new AbortController().signal,
      });
      expect(outcome).toMatchObject({ score });
    } finally {
      await machine.close();
    }
  });
});
