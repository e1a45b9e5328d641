import { z } from "zod";
import type { EvaluationOutcome, HelperContext } from "../helpers.js";
import { defineEvaluationHelper } from "../helpers.js";
import { envArg, fail, fetchResultText, readLocalText } from "./common.js";
import {
  checkCellsExecuted,
  checkOutputsCleared,
  compareNotebookCells,
  compareNotebookOutputs,
  compareNotebooks,
  parseNotebook,
  type NotebookCell,
  type NotebookCompareOptions,
} from "./notebookChecks.js";

/** The expected notebook of the task; one that does not parse throws (the task is broken). */
async function expectedNotebook(ctx: HelperContext, path: string): Promise<NotebookCell[]> {
  const text = await readLocalText(ctx, path);
  try {
    return parseNotebook(text);
  } catch (e) {
    throw new Error(`local_expected ${path}: ${(e as Error).message}`, { cause: e });
  }
}

/** The result notebook on the machine, or the failing outcome (missing, or not a notebook). */
async function resultNotebook(
  ctx: HelperContext,
  env: string | undefined,
  path: string,
): Promise<{ ok: true; cells: NotebookCell[] } | { ok: false; outcome: EvaluationOutcome }> {
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
  ignore_whitespace: z
    .boolean()
    .default(true)
    .describe("Outputs: whitespace runs and blank lines do not matter; sources: trailing whitespace and surrounding blank lines do not"),
  env: envArg,
};

const outputArgs = {
  ignore_execution_count: z.boolean().default(true).describe("false: execution counts must match too"),
  include_stderr: z.boolean().default(false).describe("Compare stderr streams too"),
};

interface PairArgs {
  local_expected: string;
  vm_result: string;
  ignore_whitespace: boolean;
  env?: string | undefined;
  ignore_execution_count?: boolean;
  include_stderr?: boolean;
}

type Compare = (expected: NotebookCell[], result: NotebookCell[], opts: NotebookCompareOptions) => EvaluationOutcome;

async function runPair(args: PairArgs, ctx: HelperContext, compare: Compare): Promise<EvaluationOutcome> {
  const expected = await expectedNotebook(ctx, args.local_expected);
  const result = await resultNotebook(ctx, args.env, args.vm_result);
  if (!result.ok) return result.outcome;
  return compare(expected, result.cells, {
    ignoreWhitespace: args.ignore_whitespace,
    ignoreExecutionCount: args.ignore_execution_count ?? true,
    includeStderr: args.include_stderr ?? false,
  });
}

/** `compare_notebook_outputs`: the code cells' text outputs match the expected notebook's, in order. */
export const compareNotebookOutputsHelper = defineEvaluationHelper({
  name: "compare_notebook_outputs",
  description: "Compares the text outputs of the code cells of a notebook on the machine with an expected notebook, in order",
  args: z.strictObject({ ...pairArgs, ...outputArgs }),
  run: (args, ctx) => runPair(args, ctx, compareNotebookOutputs),
});

/** `compare_notebook_cells`: the cells' types and sources match the expected notebook's. */
export const compareNotebookCellsHelper = defineEvaluationHelper({
  name: "compare_notebook_cells",
  description: "Compares the cell types and sources of a notebook on the machine with an expected notebook, in order",
  args: z.strictObject(pairArgs),
  run: (args, ctx) => runPair(args, ctx, compareNotebookCells),
});

/** `compare_ipynb_files`: cells and outputs both match. */
export const compareIpynbFilesHelper = defineEvaluationHelper({
  name: "compare_ipynb_files",
  description: "Compares a notebook on the machine with an expected one: cell types and sources, then code cell outputs",
  args: z.strictObject({ ...pairArgs, ...outputArgs }),
  run: (args, ctx) => runPair(args, ctx, compareNotebooks),
});

/** `is_jupyter_cell_executed`: every code cell (or the listed ones) has been run. */
export const isJupyterCellExecuted = defineEvaluationHelper({
  name: "is_jupyter_cell_executed",
  description: "Checks that the code cells of a notebook on the machine (all, or those listed) have been executed",
  args: z.strictObject({
    vm_result: z.string().min(1).describe("The .ipynb on the machine"),
    cells: z.array(z.number().int().nonnegative()).min(1).optional().describe("0-based indices of the cells to check; every code cell when unset"),
    require_outputs: z.boolean().default(false).describe("A checked cell must also have outputs (cells that print nothing have none)"),
    expected: z
      .array(z.number().int().nonnegative())
      .optional()
      .describe("Older form: exactly these code cells (0-based) must remain unexecuted; replaces the check of `cells`"),
    env: envArg,
  }),
  async run(args, ctx) {
    const nb = await resultNotebook(ctx, args.env, args.vm_result);
    if (!nb.ok) return nb.outcome;
    return checkCellsExecuted(nb.cells, {
      requireOutputs: args.require_outputs,
      ...(args.cells ? { cells: args.cells } : {}),
      ...(args.expected ? { expected: args.expected } : {}),
    });
  },
});

/** `are_jupyter_outputs_cleared`: no code cell has outputs or an execution count. */
export const areJupyterOutputsCleared = defineEvaluationHelper({
  name: "are_jupyter_outputs_cleared",
  description: "Checks that the code cells of a notebook on the machine have no outputs and no execution counts",
  args: z.strictObject({
    vm_result: z.string().min(1).describe("The .ipynb on the machine"),
    expected: z.array(z.number().int().nonnegative()).default([]).describe("0-based indices of code cells that must keep their outputs"),
    check_execution_counts: z.boolean().default(true).describe("Cleared cells must also have no execution count"),
    env: envArg,
  }),
  async run(args, ctx) {
    const nb = await resultNotebook(ctx, args.env, args.vm_result);
    if (!nb.ok) return nb.outcome;
    return checkOutputsCleared(nb.cells, { expected: args.expected, checkExecutionCounts: args.check_execution_counts });
  },
});
