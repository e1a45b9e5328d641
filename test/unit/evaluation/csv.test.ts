import { describe, expect, test } from "vitest";
import { compareCsv, parseCsv } from "../../../packages/controller/src/datasets/evaluationHelpers/index.js";
import { fixture } from "./fixtures.js";

const expected = fixture("csv/expected.csv");

describe("compareCsv", () => {
  test("passes with columns in another order, CRLF, quoted commas and 1.50 for 1.5", () => {
    expect(compareCsv(expected, fixture("csv/result-pass.csv"))).toEqual({ score: 1, reason: "3 data row(s) and 3 column(s) match" });
  });

  test("fails naming the row, the column and both values", () => {
    expect(compareCsv(expected, fixture("csv/result-fail.csv"))).toEqual({ score: 0, reason: 'data row 2, column "qty": expected "10", got "12"' });
  });

  test("the loose result needs ignore_order, ignore_case and a tolerance, and fails when strict", () => {
    const loose = fixture("csv/result-pass-loose.csv");
    const all = { ignoreOrder: true, ignoreCase: true, rtol: 1e-3 };
    expect(compareCsv(expected, loose, all)).toEqual({ score: 1, reason: "3 data row(s) match in some order" });
    expect(compareCsv(expected, loose, { ...all, strict: true })).toEqual({ score: 0, reason: 'the result has extra column(s) "notes"' });
    expect(compareCsv(expected, loose, { ...all, ignoreCase: false }).reason).toMatch(/^the result lacks column\(s\) "name", "qty", "price"/);
    expect(compareCsv(expected, loose, { ...all, ignoreOrder: false }).reason).toBe('data row 1, column "name": expected "apple", got "PLUM"');
    expect(compareCsv(expected, loose, { ...all, rtol: 0 }).reason).toBe(
      '1 expected row(s) have no match in the result, e.g. data row 3: "plum, 0, 2"; unmatched result row 1: "PLUM, 0, 2.0001"',
    );
  });

  test("atol and rtol", () => {
    const e = "x\n100\n";
    expect(compareCsv(e, "x\n100.4\n", { atol: 0.5 }).score).toBe(1);
    expect(compareCsv(e, "x\n100.6\n", { atol: 0.5 }).score).toBe(0);
    expect(compareCsv(e, "x\n100.9\n", { rtol: 0.01 }).score).toBe(1);
    expect(compareCsv(e, "x\n101.1\n", { rtol: 0.01 }).score).toBe(0);
    expect(compareCsv("x\n0.3\n", "x\n0.30000000000000004\n").score).toBe(1);
    expect(compareCsv("x\n1e3\n", "x\n1000\n").score).toBe(1);
    // Not numbers: compared as text.
    expect(compareCsv("x\n1;000\n", "x\n1;000.0\n").score).toBe(0);
  });

  test("row counts", () => {
    expect(compareCsv(expected, "name,qty,price\napple,3,1.5\n")).toEqual({ score: 0, reason: "expected 3 data row(s), got 1" });
    expect(compareCsv(expected, "name,qty,price\napple,3,1.5\n", { ignoreOrder: true }).reason).toBe("expected 3 data row(s), got 1");
  });

  test("ignore_order matches duplicates one to one", () => {
    expect(compareCsv("a\n1\n1\n2\n", "a\n2\n1\n1\n", { ignoreOrder: true }).score).toBe(1);
    expect(compareCsv("a\n1\n1\n2\n", "a\n2\n2\n1\n", { ignoreOrder: true }).score).toBe(0);
  });

  test("a broken expected file throws; a broken result scores 0", () => {
    const invalid = fixture("csv/invalid.csv");
    expect(() => compareCsv(invalid, expected)).toThrow(/^the expected file is not valid CSV: /);
    expect(() => compareCsv("", expected)).toThrow("the expected file is not valid CSV: no header row");
    expect(() => compareCsv("a,A\n1,2\n", "a\n1\n", { ignoreCase: true })).toThrow('the expected file has column "a" twice');
    expect(compareCsv(expected, invalid)).toMatchObject({ score: 0, reason: expect.stringMatching(/^the result is not valid CSV: /) });
    expect(compareCsv(expected, "")).toEqual({ score: 0, reason: "the result is not valid CSV: no header row" });
    expect(compareCsv(expected, "name,qty,price,qty\n")).toEqual({ score: 0, reason: 'the result has column "qty" twice' });
  });
});

test("parseCsv trims header names, keeps cells, skips empty lines and a BOM", () => {
  expect(parseCsv('\ufeff a ,b\n\n" x ",2\n')).toEqual({ header: ["a", "b"], rows: [[" x ", "2"]] });
});
