import { describe, expect, test } from "vitest";
import {
  checkCellsExecuted,
  checkOutputsCleared,
  compareNotebookCells,
  compareNotebookOutputs,
  compareNotebooks,
  outputText,
  parseNotebook,
} from "../../../packages/controller/src/datasets/evaluationHelpers/index.js";
import { fixture } from "./fixtures.js";

const nb = (name: string) => parseNotebook(fixture(`notebook/${name}.ipynb`));
const expected = nb("expected");

test("parseNotebook joins sources and reads outputs and execution counts", () => {
  expect(expected.map((c) => [c.index, c.type, c.executionCount, c.outputs.length])).toEqual([
    [0, "markdown", null, 0],
    [1, "code", 1, 0],
    [2, "code", 2, 1],
    [3, "code", 3, 1],
  ]);
  expect(expected[2]!.source).toBe("for p in prices:\n    print(p)");
  expect(() => parseNotebook(fixture("notebook/not-a-notebook.ipynb"))).toThrow("not a notebook: cells: no cells array (is it an nbformat 4 notebook?)");
  expect(() => parseNotebook("{")).toThrow(/^not JSON: /);
});

test("outputText: stdout, text/plain and errors; stderr only when asked", () => {
  const cell = nb("result-pass")[2]!;
  expect(outputText(cell)).toBe("1.5\n0.25\n2  \n");
  expect(outputText(cell, { includeStderr: true })).toBe("1.5\n0.25\n2  \nDeprecationWarning: x\n");
  const error = {
    index: 0,
    type: "code",
    source: "",
    executionCount: 1,
    outputs: [
      { output_type: "stream", name: "stdout", text: "a" },
      { output_type: "error", ename: "ValueError", evalue: "bad" },
    ],
  };
  expect(outputText(error)).toBe("a\nValueError: bad\n");
});

describe("compareNotebookOutputs", () => {
  test("passes across execution counts, metadata, output chunking and trailing whitespace", () => {
    expect(compareNotebookOutputs(expected, nb("result-pass"))).toEqual({ score: 1, reason: "the outputs of 3 code cell(s) match" });
    expect(compareNotebookOutputs(expected, nb("result-fail-cells")).score).toBe(1);
  });

  test("fails naming the cell and the line", () => {
    expect(compareNotebookOutputs(expected, nb("result-fail-outputs"))).toEqual({
      score: 0,
      reason: 'code cell 3 (cell [3]) output, line 1: expected "1.25", got "1.3"',
    });
  });

  test("options: whitespace, execution counts, stderr", () => {
    const pass = nb("result-pass");
    expect(compareNotebookOutputs(expected, pass, { ignoreWhitespace: false }).reason).toBe('code cell 2 (cell [2]) output, line 3: expected "2", got "2  "');
    expect(compareNotebookOutputs(expected, pass, { ignoreExecutionCount: false }).reason).toBe("code cell 1 (cell [1]): expected execution count 1, got 7");
    expect(compareNotebookOutputs(expected, pass, { includeStderr: true }).reason).toMatch(/^code cell 2 \(cell \[2\]\) output, the result has 1 extra line/);
    expect(compareNotebookOutputs(expected, nb("unexecuted")).reason).toBe(
      'code cell 3 (cell [3]) output, the result ends after 0 line(s); expected line 1: "1.25"',
    );
  });

  test("a different number of code cells", () => {
    expect(compareNotebookOutputs(expected, expected.slice(0, 3))).toEqual({ score: 0, reason: "expected 3 code cell(s), the result has 2" });
  });
});

describe("compareNotebookCells", () => {
  test("passes on the same types and sources, trailing whitespace aside", () => {
    expect(compareNotebookCells(expected, nb("result-pass"))).toEqual({ score: 1, reason: "the types and sources of 4 cell(s) match" });
    expect(compareNotebookCells(expected, nb("result-fail-outputs")).score).toBe(1);
  });

  test("indentation always counts", () => {
    expect(compareNotebookCells(expected, nb("result-fail-cells"))).toEqual({
      score: 0,
      reason: 'cell [2] source, line 2: expected "    print(p)", got "  print(p)"',
    });
  });

  test("without ignore_whitespace, trailing whitespace counts", () => {
    expect(compareNotebookCells(expected, nb("result-pass"), { ignoreWhitespace: false })).toEqual({
      score: 0,
      reason: 'cell [1] source, line 2: expected "prices = [1.5, 0.25, 2]", got "prices = [1.5, 0.25, 2]   "',
    });
  });

  test("types and counts", () => {
    const swapped = [expected[1]!, expected[0]!, ...expected.slice(2)];
    expect(compareNotebookCells(expected, swapped).reason).toBe("cell [0]: expected a markdown cell, got a code cell");
    expect(compareNotebookCells(expected, [...expected, expected[0]!]).reason).toBe("expected 4 cell(s), the result has 5");
  });
});

test("compareNotebooks checks cells, then outputs", () => {
  expect(compareNotebooks(expected, nb("result-pass")).score).toBe(1);
  expect(compareNotebooks(expected, nb("result-fail-cells")).reason).toMatch(/^cell \[2\] source/);
  expect(compareNotebooks(expected, nb("result-fail-outputs")).reason).toMatch(/^code cell 3 \(cell \[3\]\) output/);
});

describe("checkCellsExecuted", () => {
  test("every code cell, or the ones listed", () => {
    expect(checkCellsExecuted(expected)).toEqual({ score: 1, reason: "3 code cell(s) executed" });
    expect(checkCellsExecuted(nb("unexecuted"))).toEqual({ score: 0, reason: "not executed: cell(s) [3]" });
    expect(checkCellsExecuted(nb("unexecuted"), { cells: [1, 2] }).score).toBe(1);
    expect(checkCellsExecuted(expected, { cells: [0, 9] })).toEqual({
      score: 0,
      reason: "cell [0] is a markdown cell, not a code cell; there is no cell [9] (the notebook has 4)",
    });
  });

  test("require_outputs: a cell that printed nothing fails", () => {
    expect(checkCellsExecuted(expected, { requireOutputs: true })).toEqual({ score: 0, reason: "no outputs: cell(s) [1]" });
    expect(checkCellsExecuted(expected, { requireOutputs: true, cells: [2, 3] }).score).toBe(1);
  });

  test("the older form: exactly these code cells stay unexecuted", () => {
    expect(checkCellsExecuted(nb("unexecuted"), { expected: [3] }).score).toBe(1);
    expect(checkCellsExecuted(expected, { expected: [3] })).toEqual({ score: 0, reason: "the unexecuted code cells are [], expected [3]" });
  });

  test("a notebook without code cells fails", () => {
    expect(checkCellsExecuted(expected.slice(0, 1))).toEqual({ score: 0, reason: "the notebook has no code cells" });
  });
});

describe("checkOutputsCleared", () => {
  test("passes when cleared, fails naming the cells", () => {
    expect(checkOutputsCleared(nb("cleared"))).toEqual({ score: 1, reason: "the outputs are cleared" });
    expect(checkOutputsCleared(expected)).toEqual({ score: 0, reason: "outputs remain in cell(s) [2, 3]; execution counts remain in cell(s) [1, 2, 3]" });
  });

  test("execution counts optional; cells that must keep their outputs", () => {
    expect(checkOutputsCleared(nb("unexecuted"), { expected: [2], checkExecutionCounts: false })).toEqual({ score: 1, reason: "the outputs are cleared" });
    expect(checkOutputsCleared(nb("cleared"), { expected: [2] })).toEqual({ score: 0, reason: "cell(s) [2] should have kept their outputs" });
  });
});
