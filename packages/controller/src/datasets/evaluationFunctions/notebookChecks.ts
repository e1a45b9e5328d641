import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import type { Verdict } from "../../evaluators/verdict.js";
import { pyStrip } from "../pycompat/pyStr.js";
import { fail, pass, show } from "./common.js";

/**
 * Jupyter notebooks (nbformat 4 `.ipynb` JSON): parsing and the comparisons behind the notebook
 * functions. Each comparison gives the verdict the published tasks' own evaluator gives on the same
 * files (they read notebooks with nbformat, which joins multi-line sources and texts); where that
 * evaluator is plainly wrong, a documented option gives the corrected verdict. Cell indices are
 * 0-based, as in the notebook's `cells` array.
 */

const multiline = z.union([z.string(), z.array(z.string())]);

const outputSchema = z.looseObject({
  output_type: z.string(),
  name: z.string().optional(),
  text: multiline.optional(),
  data: z.record(z.string(), z.unknown()).optional(),
  ename: z.string().optional(),
  evalue: z.string().optional(),
});

const cellSchema = z.looseObject({
  cell_type: z.string(),
  source: multiline.default(""),
  outputs: z.array(outputSchema).optional(),
  execution_count: z.number().nullable().optional(),
});

const notebookSchema = z.looseObject({ cells: z.array(cellSchema, { error: "no cells array (is it an nbformat 4 notebook?)" }) });

/** One output of a code cell, multi-line texts joined (as nbformat reads them). */
export interface NotebookOutput {
  output_type: string;
  name?: string;
  text?: string;
  data?: Record<string, unknown>;
  ename?: string;
  evalue?: string;
  [key: string]: unknown;
}

/** A notebook cell, its source joined into one string. */
export interface NotebookCell {
  /** 0-based position in the notebook. */
  index: number;
  /** "code", "markdown" or "raw". */
  type: string;
  source: string;
  /** null when the cell was never run (or is not a code cell). */
  executionCount: number | null;
  outputs: NotebookOutput[];
}

const join = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join("") : (v ?? ""));

/** An output as nbformat reads it: stream text and the text forms of rich data joined into strings. */
function rejoin(o: z.infer<typeof outputSchema>): NotebookOutput {
  const { text, ...rest } = o;
  const out: NotebookOutput = { ...(rest as NotebookOutput), ...(text !== undefined ? { text: join(text) } : {}) };
  if (o.data) {
    out.data = Object.fromEntries(
      Object.entries(o.data).map(([k, v]) => [k, !k.endsWith("json") && Array.isArray(v) && v.every((x) => typeof x === "string") ? v.join("") : v]),
    );
  }
  return out;
}

/** Parses an `.ipynb` file's text; throws with the reason when it is not an nbformat 4 notebook. */
export function parseNotebook(text: string): NotebookCell[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`not JSON: ${(e as Error).message}`, { cause: e });
  }
  const r = notebookSchema.safeParse(json);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new Error(`not a notebook: ${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}`);
  }
  return r.data.cells.map((c, index) => ({
    index,
    type: c.cell_type,
    source: join(c.source),
    executionCount: c.execution_count ?? null,
    outputs: (c.outputs ?? []).map(rejoin),
  }));
}

const cellCount = (expected: NotebookCell[], result: NotebookCell[]) =>
  expected.length === result.length ? undefined : fail(`expected ${expected.length} cell(s) (markdown included), the result has ${result.length}`);

/** `compare_notebook_cells`: the same number of cells, and per cell the same type and source (its ends stripped). */
export function compareNotebookCells(expected: NotebookCell[], result: NotebookCell[]): Verdict {
  const count = cellCount(expected, result);
  if (count) return count;
  for (const [i, e] of expected.entries()) {
    const r = result[i]!;
    if (e.type !== r.type) return fail(`cell [${i}]: expected a ${e.type} cell, got a ${r.type} cell`);
    if (pyStrip(e.source) !== pyStrip(r.source)) return fail(`cell [${i}] source: expected ${show(pyStrip(e.source))}, got ${show(pyStrip(r.source))}`);
  }
  return pass(`the types and sources of ${expected.length} cell(s) match`);
}

/** Options of {@link compareNotebookOutputs}. */
export interface NotebookOutputsOptions {
  /**
   * The dataset's evaluator fails with an error (a KeyError) when a result's rich output
   * (`execute_result`, `display_data`) stands where the expected notebook has a stream; true
   * compares their text instead. @default false
   */
  fixMixedOutputs?: boolean;
}

/** Pip's chatter, which the dataset's evaluator drops from the result's outputs on purpose. */
const PIP_NOISE = ["Requirement already satisfied:", "Successfully installed"];

const isStdout = (o: NotebookOutput) => o.name === "stdout";
const hasPlain = (o: NotebookOutput) => o.data !== undefined && "text/plain" in o.data;

/**
 * `compare_notebook_outputs`: the same number of cells and cell types; per code cell, its stdout
 * streams and the text/plain forms of its results compared in order, exactly (a stream as a whole,
 * type, name and text). The result's pip messages are left out; stderr, errors and images are not
 * compared.
 */
export function compareNotebookOutputs(expected: NotebookCell[], result: NotebookCell[], opts: NotebookOutputsOptions = {}): Verdict {
  const count = cellCount(expected, result);
  if (count) return count;
  let compared = 0;
  for (const [i, e] of expected.entries()) {
    const r = result[i]!;
    if (e.type !== r.type) return fail(`cell [${i}]: expected a ${e.type} cell, got a ${r.type} cell`);
    if (e.type !== "code") continue;
    compared++;
    const ro = r.outputs.filter((o) => (isStdout(o) && !PIP_NOISE.some((n) => (o.text ?? "").includes(n))) || hasPlain(o));
    const eo = e.outputs.filter((o) => isStdout(o) || hasPlain(o));
    if (ro.length !== eo.length) return fail(`cell [${i}]: expected ${eo.length} stdout/text output(s), the result has ${ro.length}`);
    for (const [k, x] of eo.entries()) {
      const y = ro[k]!;
      const where = `cell [${i}] output ${k + 1}`;
      if (y.name !== undefined && !isDeepStrictEqual({ ...y }, { ...x })) {
        return fail(`${where}: expected ${show(x.text ?? textOf(x))}, got ${show(y.text ?? "")}`);
      }
      if (y.data !== undefined) {
        const want = x.data?.["text/plain"];
        if (want === undefined && !opts.fixMixedOutputs) {
          return fail(`${where}: the result has a ${y.output_type} where the expected notebook has a ${x.output_type} (the dataset's evaluator errs here)`);
        }
        const got = y.data["text/plain"];
        if (!isDeepStrictEqual(got, want ?? x.text)) return fail(`${where}: expected ${show(String(want ?? x.text))}, got ${show(String(got))}`);
      }
    }
  }
  return pass(`the outputs of ${compared} code cell(s) match`);
}

const textOf = (o: NotebookOutput) => String(o.data?.["text/plain"] ?? o.text ?? "");

/** A cell as the dataset's `compare_ipynb_files` sees it: type, stripped source, and for code cells the stripped texts of outputs that have one. */
function sanitized(c: NotebookCell): { cell_type: string; source: string; outputs?: string } {
  const base = { cell_type: c.type, source: pyStrip(c.source) };
  if (c.type !== "code") return base;
  return {
    ...base,
    outputs: c.outputs
      .filter((o) => o.text !== undefined)
      .map((o) => pyStrip(o.text!))
      .join("\n"),
  };
}

/** `compare_ipynb_files`: per cell the same type and stripped source and, for code cells, the same stream texts (stderr included). */
export function compareIpynbFiles(expected: NotebookCell[], result: NotebookCell[]): Verdict {
  const count = cellCount(expected, result);
  if (count) return count;
  for (const [i, e] of expected.entries()) {
    const x = sanitized(e);
    const y = sanitized(result[i]!);
    if (x.cell_type !== y.cell_type) return fail(`cell [${i}]: expected a ${x.cell_type} cell, got a ${y.cell_type} cell`);
    if (x.source !== y.source) return fail(`cell [${i}] source: expected ${show(x.source)}, got ${show(y.source)}`);
    if (x.outputs !== y.outputs) return fail(`cell [${i}] output text: expected ${show(x.outputs ?? "")}, got ${show(y.outputs ?? "")}`);
  }
  return pass(`the ${expected.length} cell(s) match: types, sources and output texts`);
}

const list = (xs: number[]) => `[${xs.join(", ")}]`;

/** Options of {@link checkCellsExecuted}. */
export interface CellsExecutedOptions {
  /**
   * The dataset's form: the exact list (in order) of cells of `cellType` that have no execution
   * count. When given, `cells` and `requireOutputs` are not used.
   */
  expected?: number[];
  /** Which cells `expected` counts. @default "code" */
  cellType?: string;
  /** Pincer's form: cells that must have run (0-based); every code cell when unset. */
  cells?: number[];
  /** Pincer's form: a checked cell must also have at least one output. @default false */
  requireOutputs?: boolean;
}

/** Checks which cells have been run. */
export function checkCellsExecuted(nb: NotebookCell[], opts: CellsExecutedOptions = {}): Verdict {
  if (opts.expected) {
    const unexecuted = nb.filter((c) => c.type === (opts.cellType ?? "code") && !c.executionCount).map((c) => c.index);
    if (isDeepStrictEqual(unexecuted, opts.expected)) return pass(`the unexecuted cells are ${list(unexecuted)}, as expected`);
    return fail(`the unexecuted cells are ${list(unexecuted)}, expected ${list(opts.expected)}`);
  }
  const targets = opts.cells ?? nb.filter((c) => c.type === "code").map((c) => c.index);
  if (targets.length === 0) return fail("the notebook has no code cells");
  const problems: string[] = [];
  const notRun: number[] = [];
  const silent: number[] = [];
  for (const i of targets) {
    const c = nb[i];
    if (!c) problems.push(`there is no cell [${i}] (the notebook has ${nb.length})`);
    else if (c.type !== "code") problems.push(`cell [${i}] is a ${c.type} cell, not a code cell`);
    else if (c.executionCount === null) notRun.push(i);
    else if (opts.requireOutputs && c.outputs.length === 0) silent.push(i);
  }
  if (notRun.length) problems.push(`not executed: cell(s) ${list(notRun)}`);
  if (silent.length) problems.push(`no outputs: cell(s) ${list(silent)}`);
  return problems.length ? fail(problems.join("; ")) : pass(`${targets.length} code cell(s) executed`);
}

/** Options of {@link checkOutputsCleared}. */
export interface OutputsClearedOptions {
  /** The cells (of `cellType`) that must still have outputs: any other with output fails. @default [] */
  expected?: number[];
  /** Which cells are checked. @default "code" */
  cellType?: string;
  /** Pincer's stricter form: the cleared cells must also have no execution count. @default false */
  checkExecutionCounts?: boolean;
}

/**
 * Checks that outputs were cleared: the cells of `cellType` that have an output with text, data or
 * an error are exactly `expected` (in any order).
 */
export function checkOutputsCleared(nb: NotebookCell[], opts: OutputsClearedOptions = {}): Verdict {
  const cells = nb.filter((c) => c.type === (opts.cellType ?? "code"));
  const withOutputs = cells.filter((c) => c.outputs.some((o) => o.text !== undefined || o.data !== undefined || o.ename !== undefined)).map((c) => c.index);
  const want = [...(opts.expected ?? [])].sort((a, b) => a - b);
  if (
    !isDeepStrictEqual(
      [...withOutputs].sort((a, b) => a - b),
      want,
    )
  ) {
    return fail(`the cells with outputs are ${list(withOutputs)}, expected ${list(want)}`);
  }
  const keep = new Set(want);
  const counted = opts.checkExecutionCounts ? cells.filter((c) => !keep.has(c.index) && c.executionCount !== null).map((c) => c.index) : [];
  if (counted.length) return fail(`execution counts remain in cell(s) ${list(counted)}`);
  return pass(want.length ? `only cells ${list(want)} have outputs, as expected` : "the outputs are cleared");
}
