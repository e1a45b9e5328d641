import { z } from "zod";
import type { EvaluationOutcome } from "../helpers.js";
import { fail, pass, splitLines } from "./common.js";
import { compareText } from "./text.js";

/**
 * Jupyter notebooks (nbformat 4 `.ipynb` JSON): parsing and the comparisons behind the notebook
 * helpers. Cell indices are 0-based everywhere, as in the notebook's `cells` array.
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

/** One output of a code cell. */
export type NotebookOutput = z.infer<typeof outputSchema>;

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
    outputs: c.outputs ?? [],
  }));
}

/**
 * The text a code cell printed: stdout streams (and stderr with `includeStderr`), the text/plain
 * form of results and displays, and errors as "Name: message". Images and other rich outputs are
 * left out. Stream pieces are joined as written, so the way output was split does not matter.
 */
export function outputText(cell: NotebookCell, opts: { includeStderr?: boolean } = {}): string {
  let text = "";
  const block = (s: string) => {
    if (text !== "" && !text.endsWith("\n")) text += "\n";
    text += s.endsWith("\n") ? s : `${s}\n`;
  };
  for (const o of cell.outputs) {
    if (o.output_type === "stream") {
      if (o.name === "stdout" || (opts.includeStderr && o.name === "stderr")) text += join(o.text);
    } else if (o.output_type === "execute_result" || o.output_type === "display_data") {
      const plain = o.data?.["text/plain"];
      if (typeof plain === "string" || Array.isArray(plain)) block(join(plain as string | string[]));
    } else if (o.output_type === "error") {
      block(`${o.ename ?? "Error"}: ${o.evalue ?? ""}`);
    }
  }
  return text;
}

/** Options of the notebook comparisons. */
export interface NotebookCompareOptions {
  /**
   * Outputs: whitespace runs count as one space, and leading/trailing whitespace and blank lines
   * are ignored. Sources: trailing whitespace of lines and blank lines at the start and end are
   * ignored (indentation always counts). @default true
   */
  ignoreWhitespace?: boolean;
  /** Ignore execution counts. @default true */
  ignoreExecutionCount?: boolean;
  /** Compare stderr streams too (warnings often differ between machines). @default false */
  includeStderr?: boolean;
}

const codeCells = (cells: NotebookCell[]) => cells.filter((c) => c.type === "code");

/** Compares the text outputs of the code cells of two notebooks, in order. */
export function compareNotebookOutputs(expected: NotebookCell[], result: NotebookCell[], opts: NotebookCompareOptions = {}): EvaluationOutcome {
  const exp = codeCells(expected);
  const res = codeCells(result);
  if (exp.length !== res.length) return fail(`expected ${exp.length} code cell(s), the result has ${res.length}`);
  for (let k = 0; k < exp.length; k++) {
    const e = exp[k]!;
    const r = res[k]!;
    const where = `code cell ${k + 1} (cell [${r.index}])`;
    const d = compareText(outputText(e, opts), outputText(r, opts), { ignoreBlanks: opts.ignoreWhitespace ?? true });
    if (d.score < 1) return fail(`${where} output, ${d.reason}`);
    if (opts.ignoreExecutionCount === false && e.executionCount !== r.executionCount) {
      return fail(`${where}: expected execution count ${e.executionCount}, got ${r.executionCount}`);
    }
  }
  return pass(`the outputs of ${exp.length} code cell(s) match`);
}

function normalizeSource(source: string, ignoreWhitespace: boolean): string {
  if (!ignoreWhitespace) return source;
  const lines = splitLines(source).map((l) => l.trimEnd());
  while (lines[0] === "") lines.shift();
  while (lines.at(-1) === "") lines.pop();
  return lines.join("\n");
}

/** Compares the types and sources of all cells of two notebooks, in order. */
export function compareNotebookCells(expected: NotebookCell[], result: NotebookCell[], opts: NotebookCompareOptions = {}): EvaluationOutcome {
  const ws = opts.ignoreWhitespace ?? true;
  for (let i = 0; i < Math.min(expected.length, result.length); i++) {
    const e = expected[i]!;
    const r = result[i]!;
    if (e.type !== r.type) return fail(`cell [${i}]: expected a ${e.type} cell, got a ${r.type} cell`);
    const d = compareText(normalizeSource(e.source, ws), normalizeSource(r.source, ws));
    if (d.score < 1) return fail(`cell [${i}] source, ${d.reason}`);
  }
  if (expected.length !== result.length) return fail(`expected ${expected.length} cell(s), the result has ${result.length}`);
  return pass(`the types and sources of ${expected.length} cell(s) match`);
}

/** Compares cells (types and sources) and then the code cells' outputs. */
export function compareNotebooks(expected: NotebookCell[], result: NotebookCell[], opts: NotebookCompareOptions = {}): EvaluationOutcome {
  const cells = compareNotebookCells(expected, result, opts);
  if (cells.score < 1) return cells;
  const outputs = compareNotebookOutputs(expected, result, opts);
  if (outputs.score < 1) return outputs;
  return pass(`${cells.reason}; ${outputs.reason}`);
}

const list = (xs: number[]) => `[${xs.join(", ")}]`;

/** Options of {@link checkCellsExecuted}. */
export interface CellsExecutedOptions {
  /** Cells to check (0-based); every code cell when unset. */
  cells?: number[];
  /** A checked cell must also have at least one output. @default false */
  requireOutputs?: boolean;
  /**
   * The older form: the exact list of code cells that must remain unexecuted; when given, the
   * notebook passes when the unexecuted code cells are exactly these (and `cells` is not used).
   */
  expected?: number[];
}

/** Checks that code cells have been run: they have an execution count (and outputs with `requireOutputs`). */
export function checkCellsExecuted(nb: NotebookCell[], opts: CellsExecutedOptions = {}): EvaluationOutcome {
  if (opts.expected) {
    const unexecuted = codeCells(nb)
      .filter((c) => !c.executionCount)
      .map((c) => c.index);
    const want = [...new Set(opts.expected)].sort((a, b) => a - b);
    if (unexecuted.join() === want.join()) return pass(`the unexecuted code cells are ${list(want)}, as expected`);
    return fail(`the unexecuted code cells are ${list(unexecuted)}, expected ${list(want)}`);
  }
  const targets = opts.cells ?? codeCells(nb).map((c) => c.index);
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
  /** Code cells that must keep their outputs (0-based). @default [] */
  expected?: number[];
  /** Cleared cells must also have no execution count. @default true */
  checkExecutionCounts?: boolean;
}

/** Checks that the code cells' outputs (and execution counts) have been cleared. */
export function checkOutputsCleared(nb: NotebookCell[], opts: OutputsClearedOptions = {}): EvaluationOutcome {
  const keep = new Set(opts.expected ?? []);
  const withOutputs: number[] = [];
  const withCounts: number[] = [];
  const lost: number[] = [];
  for (const c of codeCells(nb)) {
    if (keep.has(c.index)) {
      if (c.outputs.length === 0) lost.push(c.index);
      continue;
    }
    if (c.outputs.length) withOutputs.push(c.index);
    if ((opts.checkExecutionCounts ?? true) && c.executionCount !== null) withCounts.push(c.index);
  }
  const problems: string[] = [];
  if (withOutputs.length) problems.push(`outputs remain in cell(s) ${list(withOutputs)}`);
  if (withCounts.length) problems.push(`execution counts remain in cell(s) ${list(withCounts)}`);
  if (lost.length) problems.push(`cell(s) ${list(lost)} should have kept their outputs`);
  return problems.length ? fail(problems.join("; ")) : pass("the outputs are cleared");
}
