import { describe, expect, test } from "vitest";
import { z } from "zod";
import { createEvaluationRegistry } from "../../../packages/controller/src/datasets/evaluationFunctions/index.js";
import { defineEvaluationFunction, type TaskFunctionContext } from "../../../packages/controller/src/datasets/taskFunctions.js";

/** A helper that scores what it is told (or throws), with no machine. */
const fixed = defineEvaluationFunction({
  name: "fixed",
  description: "test helper",
  args: z.strictObject({ score: z.number().min(0).max(1), reason: z.string().default("told so"), throws: z.string().optional() }),
  async run(args) {
    if (args.throws) throw new Error(args.throws);
    return { score: args.score, reason: args.reason };
  },
});

const registry = createEvaluationRegistry([fixed]);
const ctx = { env: {}, envs: {}, taskDir: "/nowhere", signal: new AbortController().signal } as unknown as TaskFunctionContext;
const part = (score: number, reason?: string) => ({ func: "fixed", arguments: { score, ...(reason ? { reason } : {}) } });

async function run(func: "all" | "any", args: unknown) {
  const helper = registry.get(func)!;
  return helper.run(helper.args.parse(args), ctx);
}

describe("all", () => {
  test("the minimum of the parts; the reason lists those below 1", async () => {
    expect(await run("all", { evaluators: [part(1, "a ok"), part(1, "b ok")] })).toEqual({
      score: 1,
      reason: "all 2 passed: [0] fixed: a ok; [1] fixed: b ok",
    });
    expect(await run("all", { evaluators: [part(1), part(0, "b bad"), part(0.5, "c half")] })).toEqual({
      score: 0,
      reason: "2 of 3 did not pass: [1] fixed: b bad; [2] fixed (0.500): c half",
    });
  });

  test("the mean with mean: true", async () => {
    expect((await run("all", { evaluators: [part(1), part(0), part(0.5)], mean: true })).score).toBeCloseTo(0.5);
  });
});

describe("any", () => {
  test("the maximum of the parts", async () => {
    expect(await run("any", { evaluators: [part(0, "no"), part(1, "yes")] })).toEqual({ score: 1, reason: "1 of 2 passed: [1] fixed: yes" });
    expect(await run("any", { evaluators: [part(0, "no"), part(0.25, "little")] })).toEqual({
      score: 0.25,
      reason: "none of 2 passed: [0] fixed: no; [1] fixed (0.250): little",
    });
    expect((await run("any", { evaluators: [part(0), part(1)], mean: true })).score).toBe(0.5);
  });

  test("nests", async () => {
    const nested = { func: "all", arguments: { evaluators: [part(1), { func: "any", arguments: { evaluators: [part(0), part(1)] } }] } };
    expect((await run("all", { evaluators: [nested] })).score).toBe(1);
  });
});

test("a part that throws makes the combination throw (an evaluation error, not a 0)", async () => {
  const args = { evaluators: [part(1), { func: "fixed", arguments: { score: 0, throws: "expected file is broken" } }] };
  await expect(run("any", args)).rejects.toThrow("evaluators[1] fixed failed: expected file is broken");
  await expect(run("all", args)).rejects.toThrow("evaluators[1] fixed failed: expected file is broken");
});

test("a part returning a score outside [0, 1] is an error", async () => {
  const bad = defineEvaluationFunction({ name: "bad", description: "", args: z.object({}), run: async () => ({ score: 2, reason: "" }) });
  const r = createEvaluationRegistry([bad]);
  const all = r.get("all")!;
  await expect(all.run(all.args.parse({ evaluators: [{ func: "bad" }] }), ctx)).rejects.toThrow("evaluators[0] bad returned score 2, outside [0, 1]");
});

test("validation reports unknown parts and bad arguments at their JSON path, nested too", () => {
  const r = registry.get("all")!.args.safeParse({
    evaluators: [
      { func: "nope" },
      { func: "compare_text_file", arguments: { local_expected: "a.txt", vm_reslt: "/tmp/a" } },
      { func: "any", arguments: { evaluators: [{ func: "fixed", arguments: { score: "high" } }] } },
    ],
  });
  expect(r.success).toBe(false);
  expect(r.error!.issues.map((i) => [i.path.join("."), i.message])).toEqual([
    ["evaluators.0.func", 'unknown evaluation function "nope"'],
    ["evaluators.1.arguments", 'Unrecognized key: "vm_reslt"'],
    ["evaluators.1.arguments.vm_result", "give vm_result (or vm_result_file)"],
    ["evaluators.2.arguments.evaluators.0.arguments.score", "Invalid input: expected number, received string"],
  ]);
  expect(registry.get("any")!.args.safeParse({ evaluators: [] }).success).toBe(false);
});

test("the registry holds every built-in, all and any, and the extras; names stay unique", () => {
  expect(registry.names()).toEqual([
    "all",
    "any",
    "are_jupyter_outputs_cleared",
    "check_clipboard",
    "check_file_exists",
    "check_include_exclude",
    "check_window_exists",
    "compare_csv",
    "compare_images",
    "compare_ipynb_files",
    "compare_jupyterlab_images",
    "compare_notebook_cells",
    "compare_notebook_outputs",
    "compare_script_logs",
    "compare_text_file",
    "evaluate_multiple_notebooks",
    "fixed",
    "is_jupyter_cell_executed",
  ]);
  expect(() => createEvaluationRegistry([fixed, fixed])).toThrow("evaluation function fixed is already registered");
  // A helper registered later is visible to all/any.
  const later = createEvaluationRegistry();
  expect(later.get("all")!.args.safeParse({ evaluators: [{ func: "fixed", arguments: { score: 1 } }] }).success).toBe(false);
  later.register(fixed);
  expect(later.get("all")!.args.safeParse({ evaluators: [{ func: "fixed", arguments: { score: 1 } }] }).success).toBe(true);
});
