import { describe, expect, test } from "vitest";
import {
  checkCellsExecuted,
  checkOutputsCleared,
  compareIpynbFiles,
  compareNotebookCells,
  compareNotebookOutputs,
  parseNotebook,
  type NotebookCell,
} from "../../../packages/controller/src/datasets/evaluationFunctions/index.js";
import { pyStrip } from "../../../packages/controller/src/datasets/pycompat/pyStr.js";
import { fixture } from "./fixtures.js";

// Every verdict here is the one the GUI-OS dataset's own evaluators (nbformat, run unchanged on the
// same files) give; they were checked against them, and so were 714 pairs of the dataset's own
// notebooks.
const nb = (name: string) => parseNotebook(fixture(`notebook/${name}.ipynb`));
const expected = nb("expected");

/** A notebook from cells written inline: [type, source, outputs?]. */
function cells(...cs: Array<[string, string, unknown[]?]>): NotebookCell[] {
  return parseNotebook(
    JSON.stringify({
      cells: cs.map(([cell_type, source, outputs]) => ({
        cell_type,
        source,
        metadata: {},
        ...(cell_type === "code" ? { outputs: outputs ?? [], execution_count: 1 } : {}),
      })),
    }),
  );
}
const stdout = (text: string | string[]) => ({ output_type: "stream", name: "stdout", text });
const stderr = (text: string) => ({ output_type: "stream", name: "stderr", text });
const result = (plain: string) => ({ output_type: "execute_result", execution_count: 1, metadata: {}, data: { "text/plain": plain } });
const error = { output_type: "error", ename: "ValueError", evalue: "bad", traceback: [] };

test("parseNotebook joins sources, stream texts and text data as nbformat does", () => {
  expect(expected.map((c) => [c.index, c.type, c.executionCount, c.outputs.length])).toEqual([
    [0, "markdown", null, 0],
    [1, "code", 1, 0],
    [2, "code", 2, 1],
    [3, "code", 3, 1],
  ]);
  expect(expected[2]!.source).toBe("for p in prices:\n    print(p)");
  expect(expected[2]!.outputs[0]!.text).toBe("1.5\n0.25\n2\n");
  expect(() => parseNotebook(fixture("notebook/not-a-notebook.ipynb"))).toThrow("not a notebook: cells: no cells array (is it an nbformat 4 notebook?)");
  expect(() => parseNotebook("{")).toThrow(/^not JSON: /);
  expect(pyStrip("\u001c a \u0085")).toBe("a");
  expect(pyStrip("\ufeffa")).toBe("\ufeffa");
});

describe("compare_notebook_outputs", () => {
  test("gold against gold passes; wrong results fail", () => {
    expect(compareNotebookOutputs(expected, expected)).toEqual({ score: 1, reason: "the outputs of 3 code cell(s) match" });
    expect(compareNotebookOutputs(expected, nb("result-fail-outputs"))).toEqual({ score: 0, reason: 'cell [3] output 1: expected "1.25", got "1.3"' });
    expect(compareNotebookOutputs(expected, nb("unexecuted")).reason).toBe("cell [3]: expected 1 stdout/text output(s), the result has 0");
    // Output split into other chunks is another stream list: the original compares streams whole.
    expect(compareNotebookOutputs(expected, nb("result-pass")).reason).toBe("cell [2]: expected 1 stdout/text output(s), the result has 2");
  });

  test("the same number of cells, markdown included, and the same cell types", () => {
    const e = cells(["markdown", "# T"], ["code", "print(1)", [stdout("1\n")]]);
    expect(compareNotebookOutputs(e, cells(["code", "print(1)", [stdout("1\n")]])).reason).toBe("expected 2 cell(s) (markdown included), the result has 1");
    expect(compareNotebookOutputs(e, cells(["raw", "# T"], ["code", "print(1)", [stdout("1\n")]])).reason).toBe(
      "cell [0]: expected a markdown cell, got a raw cell",
    );
  });

  test("pip's messages in the result are dropped; stderr and errors are not compared; stdout compares exactly", () => {
    const e = cells(["code", "x", [stdout("done\n")]]);
    expect(compareNotebookOutputs(e, cells(["code", "x", [stdout("Requirement already satisfied: pandas\n"), stdout("done\n")]])).score).toBe(1);
    expect(compareNotebookOutputs(e, cells(["code", "x", [stdout("done\n"), stderr("warning\n"), error]])).score).toBe(1);
    expect(compareNotebookOutputs(e, cells(["code", "x", [stdout("done \n")]])).reason).toBe('cell [0] output 1: expected "done\\n", got "done \\n"');
    expect(compareNotebookOutputs(e, cells(["code", "x", [stdout(["do", "ne\n"])]])).score).toBe(1);
  });

  test("a result where the expected notebook has a stream: the original errs, fix_mixed_outputs compares the text", () => {
    const e = cells(["code", "x", [stdout("3")]]);
    const r = cells(["code", "x", [result("3")]]);
    expect(compareNotebookOutputs(e, r)).toEqual({
      score: 0,
      reason: "cell [0] output 1: the result has a execute_result where the expected notebook has a stream (the dataset's evaluator errs here)",
    });
    expect(compareNotebookOutputs(e, r, { fixMixedOutputs: true }).score).toBe(1);
    expect(compareNotebookOutputs(e, cells(["code", "x", [result("4")]]), { fixMixedOutputs: true }).score).toBe(0);
  });
});

describe("compare_notebook_cells", () => {
  test("types and sources, only their ends stripped", () => {
    expect(compareNotebookCells(expected, nb("result-pass"))).toEqual({ score: 1, reason: "the types and sources of 4 cell(s) match" });
    expect(compareNotebookCells(expected, nb("result-fail-cells"))).toEqual({
      score: 0,
      reason: 'cell [2] source: expected "for p in prices:\\n    print(p)", got "for p in prices:\\n  print(p)"',
    });
    const e = cells(["code", "a = 1\nb = 2"]);
    expect(compareNotebookCells(e, cells(["code", "\n a = 1\nb = 2  \n"])).score).toBe(1);
    expect(compareNotebookCells(e, cells(["code", "a = 1  \nb = 2"])).score).toBe(0);
    expect(compareNotebookCells(e, [...e, ...e]).reason).toBe("expected 1 cell(s) (markdown included), the result has 2");
  });
});

describe("compare_ipynb_files", () => {
  test("types, stripped sources and the stripped texts of outputs that have one (stderr too, results not)", () => {
    expect(compareIpynbFiles(expected, expected).score).toBe(1);
    expect(compareIpynbFiles(expected, nb("result-fail-cells")).reason).toMatch(/^cell \[2\] source: /);
    expect(compareIpynbFiles(expected, nb("result-pass")).reason).toBe(
      'cell [2] output text: expected "1.5\\n0.25\\n2", got "1.5\\n0.2\\n5\\n2\\nDeprecationWarning: x"',
    );
    // An execute_result has no text: a wrong 1.3 for 1.25 passes in the original (and here).
    expect(compareIpynbFiles(expected, nb("result-fail-outputs")).score).toBe(1);
    const e = cells(["code", "x", [stdout("ok\n")]]);
    expect(compareIpynbFiles(e, cells(["code", "x", [stdout("ok\n"), stderr("warn")]])).score).toBe(0);
    expect(compareIpynbFiles(e, cells(["code", "x", [stdout("  ok  ")]])).score).toBe(1);
  });
});

describe("is_jupyter_cell_executed and are_jupyter_outputs_cleared", () => {
  test("expected lists the unexecuted cells exactly, in order", () => {
    expect(checkCellsExecuted(nb("unexecuted"), { expected: [3] }).score).toBe(1);
    expect(checkCellsExecuted(expected, { expected: [] })).toEqual({ score: 1, reason: "the unexecuted cells are [], as expected" });
    expect(checkCellsExecuted(expected, { expected: [3] })).toEqual({ score: 0, reason: "the unexecuted cells are [], expected [3]" });
  });

  test("Pincer's form: every code cell or the ones listed ran", () => {
    expect(checkCellsExecuted(expected)).toEqual({ score: 1, reason: "3 code cell(s) executed" });
    expect(checkCellsExecuted(nb("unexecuted"))).toEqual({ score: 0, reason: "not executed: cell(s) [3]" });
    expect(checkCellsExecuted(expected, { requireOutputs: true })).toEqual({ score: 0, reason: "no outputs: cell(s) [1]" });
  });

  test("outputs only: execution counts left in place do not fail (unless asked)", () => {
    expect(checkOutputsCleared(nb("cleared"))).toEqual({ score: 1, reason: "the outputs are cleared" });
    expect(checkOutputsCleared(expected)).toEqual({ score: 0, reason: "the cells with outputs are [2, 3], expected []" });
    expect(checkOutputsCleared(nb("unexecuted"), { expected: [2] })).toEqual({ score: 1, reason: "only cells [2] have outputs, as expected" });
    const counted = cells(["code", "x"]);
    expect(checkOutputsCleared(counted).score).toBe(1);
    expect(checkOutputsCleared(counted, { checkExecutionCounts: true })).toEqual({ score: 0, reason: "execution counts remain in cell(s) [0]" });
  });
});
