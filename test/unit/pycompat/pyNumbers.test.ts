import { describe, expect, test } from "vitest";
import { PyFloat } from "../../../packages/controller/src/datasets/pycompat/pyJson.js";
import { floatRepr, npRound, pyFloat, pyInt, roundHalfEven } from "../../../packages/controller/src/datasets/pycompat/pyNumbers.js";

// The expected strings and numbers are what CPython 3.11 prints for the same calls.

describe("Python's numbers", () => {
  test("repr(float): shortest digits, exponent form below 1e-4 and from 1e16, -0.0, nan, inf", () => {
    const cases: Array<[number, string]> = [
      [50, "50.0"],
      [0.5, "0.5"],
      [-2, "-2.0"],
      [1e-5, "1e-05"],
      [0.00015, "0.00015"],
      [0.0001, "0.0001"],
      [1e16, "1e+16"],
      [1234567890123456, "1234567890123456.0"],
      [123.456, "123.456"],
      [1.5e300, "1.5e+300"],
      [-1.5e-7, "-1.5e-07"],
      [0.1 + 0.2, "0.30000000000000004"],
      [0, "0.0"],
      [-0, "-0.0"],
      [Number.NaN, "nan"],
      [-Infinity, "-inf"],
    ];
    for (const [n, s] of cases) expect(floatRepr(n), String(n)).toBe(s);
  });

  test("float(x): whitespace, signs, underscores between digits, inf and nan; undefined where Python raises", () => {
    expect(pyFloat(" 1_000.5\n")).toBe(1000.5);
    expect(pyFloat("-Infinity")).toBe(-Infinity);
    expect(pyFloat("+nan")).toBeNaN();
    expect(pyFloat(".5e1")).toBe(5);
    expect(pyFloat(true)).toBe(1);
    expect(pyFloat(new PyFloat(5))).toBe(5);
    for (const bad of ["1__0", "_1", "1.2.3", "", "0x10", "\x1f7", null, [1]]) expect(pyFloat(bad), JSON.stringify(bad)).toBeUndefined();
  });

  test("int(x): strings of digits (underscores between them), bools, numbers truncated; undefined where Python raises", () => {
    expect(pyInt(" -1_000 ")).toBe(-1000);
    expect(pyInt("\u2003 7\x85")).toBe(7);
    expect(pyInt(false)).toBe(0);
    expect(pyInt(-2.7)).toBe(-2);
    expect(pyInt(new PyFloat(3))).toBe(3);
    for (const bad of ["1.0", "1__0", "", "1e3", "7\x1c", Infinity, Number.NaN, null]) expect(pyInt(bad), String(bad)).toBeUndefined();
  });

  test("round(x) and numpy's round(x, n) send halves to even", () => {
    expect([0.5, 1.5, 2.5, -0.5, -1.5, -2.5].map(roundHalfEven)).toEqual([0, 2, 2, -0, -2, -2]);
    expect(npRound(0.125, 2)).toBe(0.12);
    expect(npRound(0.375, 2)).toBe(0.38);
    expect(npRound(Infinity, 2)).toBe(Infinity);
  });
});
