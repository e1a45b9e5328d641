import { z } from "zod";
import type { EvaluationFunction, TaskFunctionContext } from "../taskFunctions.js";
import type { Verdict } from "../../evaluators/verdict.js";
import { defineEvaluationFunction } from "../taskFunctions.js";
import { envArg, fail, fetchResultText, pass, readLocalText } from "./common.js";
import { compareJupyterlabImages } from "./images.js";
import {
  checkCellsExecuted,
  checkOutputsCleared,
  compareIpynbFiles,
  compareNotebookCells,
  compareNotebookOutputs,
  parseNotebook,
  type NotebookCell,
} from "./notebookChecks.js";

/** The expected notebook of the task; one that does not parse throws (the task is broken). */
async function expectedNotebook(ctx: TaskFunctionContext, path: string): Promise<NotebookCell[]> {
  const text = await readLocalText(ctx, path);
  try {
    return parseNotebook(text);
  } catch (e) {
    throw new Error(`local_expected ${path}: ${(e as Error).message}`, { cause: e });
  }
}

/** The result notebook on the machine, or the failing outcome (missing, or not a notebook). */
async function resultNotebook(
  ctx: TaskFunctionContext,
  env: string | undefined,
  path: string,
): Promise<{ ok: true; cells: NotebookCell[] } | { ok: false; outcome: Verdict }> {
  const r = await fetchResultText(ctx, env, path);
  if (!r.ok) return r;
  try {
    return { ok: true, cells: parseNotebook(r.text) };
  } catch (e) {
    return { ok: false, outcome: fail(`the result ${path} is ${(e as Error).message}`) };
  }
}

const pairArgs = {
  local_expected: z.string().min(1).describe("The expected .ipynb, relative to the task folder"),
  vm_result: z.string().min(1).describe("The .ipynb on the machine"),
  env: envArg,
};

type Compare = (expected: NotebookCell[], result: NotebookCell[]) => Verdict;

async function runPair(
  args: { local_expected: string; vm_result: string; env?: string | undefined },
  ctx: TaskFunctionContext,
  compare: Compare,
): Promise<Verdict> {
  const expected = await expectedNotebook(ctx, args.local_expected);
  const result = await resultNotebook(ctx, args.env, args.vm_result);
  if (!result.ok) return result.outcome;
  return compare(expected, result.cells);
}

/** `compare_notebook_outputs`: the cells match in number and type, and the code cells' stdout and text results match, in order. */
export const compareNotebookOutputsFunction = defineEvaluationFunction({
  name: "compare_notebook_outputs",
  description: "Compares the stdout and text/plain outputs of a notebook's code cells on the machine with an expected notebook's, in order, exactly",
  args: z.strictObject({
    ...pairArgs,
    fix_mixed_outputs: z
      .boolean()
      .default(false)
      .describe("The dataset's evaluator errs when a result's execute_result meets an expected stream; true compares their text"),
  }),
  run: (args, ctx) => runPair(args, ctx, (e, r) => compareNotebookOutputs(e, r, { fixMixedOutputs: args.fix_mixed_outputs })),
});

/** `compare_notebook_cells`: the cells' types and sources match the expected notebook's. */
export const compareNotebookCellsFunction = defineEvaluationFunction({
  name: "compare_notebook_cells",
  description: "Compares the cell types and sources (ends stripped) of a notebook on the machine with an expected notebook, in order",
  args: z.strictObject(pairArgs),
  run: (args, ctx) => runPair(args, ctx, compareNotebookCells),
});

/** `compare_ipynb_files`: types, sources and output texts match. */
export const compareIpynbFilesFunction = defineEvaluationFunction({
  name: "compare_ipynb_files",
  description: "Compares a notebook on the machine with an expected one: cell types, sources and the texts of outputs, metadata and counts aside",
  args: z.strictObject(pairArgs),
  run: (args, ctx) => runPair(args, ctx, compareIpynbFiles),
});

const cellTypeArg = z.enum(["code", "markdown", "raw"]).default("code").describe("Which cells are checked");
const versionArg = z.literal(4).default(4).describe("The nbformat version read (only 4)");

/** `is_jupyter_cell_executed`: exactly the `expected` cells are unexecuted (or, Pincer's form, the listed cells were run). */
export const isJupyterCellExecuted = defineEvaluationFunction({
  name: "is_jupyter_cell_executed",
  description: "Checks which cells of a notebook on the machine have been executed",
  args: z.strictObject({
    vm_result: z.string().min(1).describe("The .ipynb on the machine"),
    expected: z
      .array(z.number().int().nonnegative())
      .optional()
      .describe("The dataset's form: exactly these cells (0-based, in order) have no execution count; [] means all were run"),
    cell_type: cellTypeArg,
    version: versionArg,
    cells: z.array(z.number().int().nonnegative()).min(1).optional().describe("Pincer's form: these code cells (0-based) must have run; all when unset"),
    require_outputs: z.boolean().default(false).describe("Pincer's form: a checked cell must also have outputs"),
    env: envArg,
  }),
  async run(args, ctx) {
    const nb = await resultNotebook(ctx, args.env, args.vm_result);
    if (!nb.ok) return nb.outcome;
    return checkCellsExecuted(nb.cells, {
      cellType: args.cell_type,
      requireOutputs: args.require_outputs,
      ...(args.cells ? { cells: args.cells } : {}),
      ...(args.expected ? { expected: args.expected } : {}),
    });
  },
});

/** `are_jupyter_outputs_cleared`: only the `expected` cells have outputs. */
export const areJupyterOutputsCleared = defineEvaluationFunction({
  name: "are_jupyter_outputs_cleared",
  description: "Checks that the cells of a notebook on the machine have no outputs, except those listed",
  args: z.strictObject({
    vm_result: z.string().min(1).describe("The .ipynb on the machine"),
    expected: z.array(z.number().int().nonnegative()).default([]).describe("0-based indices of the cells that must still have outputs"),
    cell_type: cellTypeArg,
    version: versionArg,
    check_execution_counts: z.boolean().default(false).describe("Pincer's stricter form: cleared cells must also have no execution count"),
    env: envArg,
  }),
  async run(args, ctx) {
    const nb = await resultNotebook(ctx, args.env, args.vm_result);
    if (!nb.ok) return nb.outcome;
    return checkOutputsCleared(nb.cells, { expected: args.expected, cellType: args.cell_type, checkExecutionCounts: args.check_execution_counts });
  },
});

/** The functions `evaluate_multiple_notebooks` may combine, as in the published evaluator. */
const NOTEBOOK_FUNCTIONS: Record<string, EvaluationFunction> = {
  compare_notebook_cells: compareNotebookCellsFunction as EvaluationFunction,
  compare_notebook_outputs: compareNotebookOutputsFunction as EvaluationFunction,
  is_jupyter_cell_executed: isJupyterCellExecuted as EvaluationFunction,
  compare_ipynb_files: compareIpynbFilesFunction as EvaluationFunction,
  compare_jupyterlab_images: compareJupyterlabImages as EvaluationFunction,
  are_jupyter_outputs_cleared: areJupyterOutputsCleared as EvaluationFunction,
};

/**
 * `evaluate_multiple_notebooks`: several notebook checks combined with `and` (all must score 1) or
 * `or` (one is enough), as the format's published tasks write them. A check that fails to run scores 0, as
 * in the original; an unknown check or operator is a validation error here (the original would
 * score 0 without saying why).
 */
export const evaluateMultipleNotebooks = defineEvaluationFunction({
  name: "evaluate_multiple_notebooks",
  description: "Combines notebook checks (compare_notebook_cells, compare_notebook_outputs, …) with and/or",
  args: z
    .strictObject({
      operator: z
        .string()
        .refine((o) => ["and", "or"].includes(o.toLowerCase()), { message: 'write "and" or "or"' })
        .describe("and: every comparison must pass; or: one is enough"),
      comparisons: z
        .array(z.strictObject({ func: z.string(), arguments: z.record(z.string(), z.unknown()).default({}) }))
        .min(1)
        .describe("The checks: {func, arguments} each"),
    })
    .superRefine((a, zctx) => {
      a.comparisons.forEach((c, i) => {
        const fn = NOTEBOOK_FUNCTIONS[c.func];
        if (!fn) {
          zctx.addIssue({
            code: "custom",
            path: ["comparisons", i, "func"],
            message: `${JSON.stringify(c.func)} is not a notebook check; use one of ${Object.keys(NOTEBOOK_FUNCTIONS).join(", ")}`,
          });
          return;
        }
        const r = fn.args.safeParse(c.arguments);
        if (!r.success)
          for (const issue of r.error.issues) zctx.addIssue({ code: "custom", path: ["comparisons", i, "arguments", ...issue.path], message: issue.message });
      });
    }),
  async run(args, ctx) {
    const parts: Array<Verdict & { label: string }> = [];
    for (const [i, c] of args.comparisons.entries()) {
      ctx.signal.throwIfAborted();
      const fn = NOTEBOOK_FUNCTIONS[c.func]!;
      const label = `[${i}] ${c.func}`;
      try {
        const o = await fn.run(fn.args.parse(c.arguments), ctx);
        parts.push({ label, ...o });
      } catch (e) {
        if (ctx.signal.aborted) throw e;
        parts.push({ label, score: 0, reason: `failed to run (scored 0, as in the dataset's evaluator): ${(e as Error).message}` });
      }
    }
    const all = args.operator.toLowerCase() === "and";
    const passed = parts.filter((p) => p.score === 1);
    const ok = all ? passed.length === parts.length : passed.length > 0;
    const shown = (all ? parts.filter((p) => p.score !== 1) : ok ? passed : parts).map((p) => `${p.label}: ${p.reason}`).join("; ");
    const summary = all ? `${passed.length} of ${parts.length} passed (all needed)` : `${passed.length} of ${parts.length} passed (one needed)`;
    return ok ? pass(`${summary}${shown ? `: ${shown}` : ""}`) : fail(`${summary}: ${shown}`);
  },
});
