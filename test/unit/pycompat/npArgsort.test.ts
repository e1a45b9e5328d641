import { describe, expect, test } from "vitest";
import { npArgsort } from "../../../packages/controller/src/datasets/pycompat/npArgsort.js";
import { pattern } from "./pattern.js";

// The expected orders are what numpy 1.24.4's np.argsort (kind "quicksort", int64) gives for the
// same arrays. Among equal values its order is the algorithm's, which is what is tested here.

describe("numpy's argsort", () => {
  test("under 17 elements: insertion sort, so equal values keep their order", () => {
    expect(npArgsort([3, 1, 2, 1, 3, 0])).toEqual([5, 1, 3, 2, 0, 4]);
    expect(npArgsort([])).toEqual([]);
    expect(npArgsort([7])).toEqual([0]);
  });

  test("quicksort with a median-of-3 pivot orders equal values its own way", () => {
    expect(npArgsort([...pattern(17, 1, 3)])).toEqual([16, 1, 3, 6, 11, 2, 5, 13, 15, 12, 14, 0, 9, 7, 4, 10, 8]);
    expect(npArgsort([...pattern(40, 2, 4)])).toEqual([
      13, 27, 28, 22, 29, 20, 38, 18, 30, 14, 12, 26, 10, 34, 6, 4, 36, 2, 11, 25, 9, 15, 31, 32, 35, 37, 0, 19, 21, 16, 8, 5, 3, 24, 23, 17, 33, 7, 1, 39,
    ]);
    expect(npArgsort([...pattern(100, 3, 5)])).toEqual([
      34, 42, 83, 47, 39, 68, 33, 32, 31, 26, 24, 78, 20, 16, 89, 81, 9, 65, 61, 1, 97, 3, 5, 8, 59, 85, 30, 53, 67, 54, 44, 88, 17, 35, 98, 79, 46, 73, 64, 51,
      52, 72, 62, 74, 50, 55, 99, 40, 2, 7, 94, 82, 21, 87, 18, 25, 29, 36, 37, 23, 86, 75, 90, 91, 92, 93, 95, 71, 84, 70, 0, 66, 4, 6, 13, 14, 19, 38, 43, 28,
      49, 56, 60, 63, 96, 10, 11, 12, 58, 57, 80, 76, 22, 27, 69, 77, 41, 45, 48, 15,
    ]);
  });

  test("an already sorted array with runs of equal values is not left as it was", () => {
    const v = [...Array(10).fill(0), ...Array(8).fill(1), ...Array(12).fill(2)];
    expect(npArgsort(v)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 17, 16, 15, 14, 12, 11, 10, 13, 28, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 29]);
    expect(npArgsort(Array.from({ length: 64 }, (_, i) => 64 - i))).toEqual(Array.from({ length: 64 }, (_, i) => 63 - i));
  });
});
