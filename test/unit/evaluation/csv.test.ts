import { describe, expect, test } from "vitest";
import { compareCsv } from "../../../packages/controller/src/datasets/evaluationFunctions/index.js";
import { readCsvLikePandas } from "../../../packages/controller/src/datasets/pycompat/pandasCsv.js";
import { fixture } from "./fixtures.js";

// Verdicts as the GUI-OS dataset's own compare_csv (pandas read_csv, sorted columns, DataFrame.equals)
// gives them on the same files; each was checked against it with pandas 1.5.
const expected = fixture("csv/expected.csv");

describe("compareCsv, as the dataset's evaluator", () => {
  test("passes with columns in another order, quoted commas and 1.50 for 1.5", () => {
    expect(compareCsv(expected, fixture("csv/result-pass.csv"))).toEqual({ score: 1, reason: "3 data row(s) and 3 column(s) match" });
  });

  test("plausible wrong results score 0, each with its reason", () => {
    const cases: Array<[string, string]> = [
      ["result-fail.csv", 'data row 2, column "qty": expected 10, got 12'],
      ["result-fail-extra.csv", 'the result has extra column(s) "notes"'],
      ["result-fail-index.csv", 'the result has extra column(s) "Unnamed: 0" (an index written as a column?)'],
      ["result-fail-float.csv", 'column "qty" is int64 in the expected file (e.g. 3) but float64 in the result (e.g. 3.0)'],
      ["result-fail-near.csv", 'data row 1, column "price": expected 1.5, got 1.5000000000001'],
    ];
    for (const [file, reason] of cases) expect(compareCsv(expected, fixture(`csv/${file}`)), file).toEqual({ score: 0, reason });
  });

  test("the loose result passes only with ignore_order, ignore_case and strict: false together", () => {
    const loose = fixture("csv/result-pass-loose.csv");
    const all = { ignoreOrder: true, ignoreCase: true, strict: false };
    expect(compareCsv(expected, loose, all)).toEqual({ score: 1, reason: "3 data row(s) and 3 column(s) match in some order" });
    expect(compareCsv(expected, loose, { ...all, strict: true }).reason).toBe('row 1 after sorting, column "name": expected "apple", got " apple "');
    expect(compareCsv(expected, loose, { ...all, ignoreCase: false }).score).toBe(0);
    expect(compareCsv(expected, loose, { ...all, ignoreOrder: false }).reason).toBe('data row 1, column "name": expected "apple", got "plum"');
  });

  test("column names always compare exactly; row counts and duplicates count", () => {
    expect(compareCsv("a\n1\n", "A\n1\n", { ignoreCase: true }).reason).toBe('the result lacks column(s) "a"; the result has extra column(s) "A"');
    expect(compareCsv(expected, "name,qty,price\napple,3,1.5\n")).toEqual({ score: 0, reason: "expected 3 data row(s), got 1" });
    expect(compareCsv("a\n1\n1\n2\n", "a\n2\n1\n1\n", { ignoreOrder: true }).score).toBe(1);
    expect(compareCsv("a\n1\n1\n2\n", "a\n2\n2\n1\n", { ignoreOrder: true }).score).toBe(0);
  });

  test("Pincer's tolerances are an option: numbers within rtol/atol, int and decimal columns alike", () => {
    expect(compareCsv(expected, fixture("csv/result-fail-near.csv"), { rtol: 1e-9 }).score).toBe(1);
    expect(compareCsv(expected, fixture("csv/result-fail-float.csv"), { rtol: 1e-9 }).score).toBe(1);
    expect(compareCsv("x\n100\n", "x\n100.6\n", { atol: 0.5 }).score).toBe(0);
    expect(compareCsv("x\n100\n", "x\n100.9\n", { rtol: 0.01 }).score).toBe(1);
  });

  test("a broken expected file throws; a broken result scores 0", () => {
    const invalid = fixture("csv/invalid.csv");
    expect(() => compareCsv(invalid, expected)).toThrow(/^the expected file is not valid CSV: /);
    expect(() => compareCsv("", expected)).toThrow("the expected file is not valid CSV: no columns to parse from the file (it is empty)");
    expect(compareCsv(expected, invalid)).toMatchObject({ score: 0, reason: expect.stringMatching(/^the result is not valid CSV: /) });
    expect(compareCsv(expected, "a,b\n1,2,3,4\n")).toEqual({ score: 0, reason: "the result is not valid CSV: data row 1 has 4 fields, the header 2" });
  });
});

test("readCsvLikePandas: types per column, NaN cells, unnamed and repeated headers", () => {
  expect(readCsvLikePandas("\ufeff,a,a,b,c,d,e\n0,1,x,1.5,True,,NA\n1,2,y,,False,z,\n")).toEqual({
    columns: ["Unnamed: 0", "a", "a.1", "b", "c", "d", "e"],
    dtypes: ["int64", "int64", "object", "float64", "bool", "object", "float64"],
    rows: [
      [0, 1, "x", 1.5, true, null, null],
      [1, 2, "y", null, false, "z", null],
    ],
  });
  // An integer column with a gap becomes float64, as in pandas.
  expect(readCsvLikePandas("n\n1\n\n3\n").dtypes).toEqual(["int64"]);
  expect(readCsvLikePandas("n,m\n1,a\n,b\n").dtypes).toEqual(["float64", "object"]);
});
