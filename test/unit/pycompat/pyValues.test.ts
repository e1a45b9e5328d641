import { describe, expect, test } from "vitest";
import { PyFloat } from "../../../packages/controller/src/datasets/pycompat/pyJson.js";
import { pyContains, pyEqual, pyRepr, pySorted, pyStr, pyTruthy } from "../../../packages/controller/src/datasets/pycompat/pyValues.js";

// The expected values are what CPython 3.11.7 gives for the same values. A whole float such as 5.0 or
// -0.0 is a PyFloat here (a plain whole number is an int: -0 is Python's 0).

// [value, repr(value), str(value)]
const VALUES: Array<[unknown, string, string]> = [
  [null, "None", "None"],
  [true, "True", "True"],
  [5, "5", "5"],
  [new PyFloat(5), "5.0", "5.0"],
  [1e16, "1e+16", "1e+16"],
  [0.1, "0.1", "0.1"],
  [new PyFloat(-0), "-0.0", "-0.0"],
  [0, "0", "0"],
  ["it's", `"it's"`, "it's"],
  ['say "hi"', `'say "hi"'`, 'say "hi"'],
  ["both ' and \"", `'both \\' and "'`, "both ' and \""],
  ["tab\tnl\n\\", "'tab\\tnl\\n\\\\'", "tab\tnl\n\\"],
  [[1, "a", [null]], "[1, 'a', [None]]", "[1, 'a', [None]]"],
  [{ k: 1.5, é: false }, "{'k': 1.5, 'é': False}", "{'k': 1.5, 'é': False}"],
];

describe("Python's values", () => {
  test("repr() and str()", () => {
    for (const [value, repr, str] of VALUES) {
      expect(pyRepr(value), repr).toBe(repr);
      expect(pyStr(value), repr).toBe(str);
    }
  });

  test("==: True == 1 == 1.0, containers compared deeply, str never equals a number", () => {
    expect(pyEqual(true, 1)).toBe(true);
    expect(pyEqual(1, new PyFloat(1))).toBe(true);
    expect(pyEqual([1, true], [new PyFloat(1), 1])).toBe(true);
    expect(pyEqual({ a: 1 }, { a: true })).toBe(true);
    expect(pyEqual("1", 1)).toBe(false);
    expect(pyEqual(null, 0)).toBe(false);
    expect(pyEqual([1], [1, 2])).toBe(false);
  });

  test("bool(): None, 0, 0.0, '', [] and {} are false", () => {
    expect([null, 0, new PyFloat(0), "", [], {}, "0", [0], { a: null }, -1].map(pyTruthy)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      true,
      true,
      true,
      true,
    ]);
  });

  test("sorted(): code point order, bools among numbers, lists item by item, a dict's keys", () => {
    expect(pySorted(["b", "B", "a", "é", "Z", "\u{1F600}", "\uffff"])).toEqual(["B", "Z", "a", "b", "é", "\uffff", "\u{1F600}"]);
    expect(pySorted([3, true, 2.5, false, -1])).toEqual([-1, false, true, 2.5, 3]);
    expect(pySorted([[1, 2], [1], [0, 9]])).toEqual([[0, 9], [1], [1, 2]]);
    expect(pySorted({ b: 1, a: 2 })).toEqual(["a", "b"]);
    expect(() => pySorted(["a", 1])).toThrow(/'<' not supported between instances of/);
  });

  test("in: raises TypeError where Python does", () => {
    expect(pyContains("abc", "b")).toBe(true);
    expect(pyContains([1, [2]], [new PyFloat(2)])).toBe(true);
    expect(pyContains({ a: 1 }, "a")).toBe(true);
    expect(() => pyContains("abc", 1)).toThrow("'in <string>' requires string as left operand, not int");
    expect(() => pyContains({ a: 1 }, [1])).toThrow("unhashable type: 'list'");
    expect(() => pyContains(5, 1)).toThrow("argument of type 'int' is not iterable");
  });
});
