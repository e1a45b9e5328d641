import { describe, expect, test } from "vitest";
import { scipyCosine } from "../../../packages/controller/src/datasets/osworld/metrics/apps/audios.js";
import { fastdtw } from "../../../packages/controller/src/datasets/pycompat/fastdtw.js";

// Expected values from fastdtw 0.3.4's pure-Python fastdtw.py and scipy 1.10.1 (Debian 12).

const series = (xs: number[]) => xs.map((x) => Float64Array.of(x));
const absDiff = (a: Float64Array, b: Float64Array) => Math.abs(a[0]! - b[0]!);

describe("fastdtw (pure-Python implementation)", () => {
  test("its docstring's example", () => {
    const r = fastdtw(series([1, 2, 3, 4, 5]), series([2, 3, 4]), absDiff);
    expect(r).toEqual({
      distance: 2,
      path: [
        [0, 0],
        [1, 0],
        [2, 1],
        [3, 2],
        [4, 2],
      ],
    });
  });

  test("several levels of halving and widening", () => {
    const x = [6.37, 2.698, 0.41, 0.165, 8.133, 9.128, 6.066, 7.295, 5.436, 9.351, 8.159, 0.027, 8.574, 0.336, 7.297, 1.757, 8.632];
    const y = [5.415, 2.997, 4.227, 0.283, 1.243, 6.706, 6.472, 6.154, 3.837, 9.972, 9.808];
    const r = fastdtw(series(x), series(y), absDiff);
    expect(r.distance).toBe(34.538);
    expect(r.path).toEqual([
      [0, 0],
      [1, 1],
      [1, 2],
      [2, 3],
      [3, 4],
      [4, 5],
      [5, 5],
      [6, 5],
      [7, 5],
      [8, 5],
      [9, 5],
      [10, 5],
      [11, 6],
      [12, 6],
      [13, 7],
      [14, 7],
      [15, 8],
      [16, 9],
      [16, 10],
    ]);
  });

  test("ties go to the first of (i-1, j), (i, j-1), (i-1, j-1), as Python's min keeps", () => {
    const r = fastdtw(series([0, 0, 0, 0]), series([0, 0, 0]), absDiff);
    expect(r).toEqual({
      distance: 0,
      path: [
        [0, 0],
        [0, 1],
        [0, 2],
        [1, 2],
        [2, 2],
        [3, 2],
      ],
    });
  });
});

test("scipy 1.10's cosine distance", () => {
  const u = Float64Array.from({ length: 20 }, (_, i) => 0.1 * i - 0.7);
  const v = Float64Array.from({ length: 20 }, (_, i) => Math.sin(i));
  expect(scipyCosine(u, v)).toBe(1.18739600477373);
  expect(scipyCosine(u, u)).toBe(0);
});
