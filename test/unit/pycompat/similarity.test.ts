import { describe, expect, test } from "vitest";
import { fuzzRatio, sequenceRatio } from "../../../packages/controller/src/datasets/pycompat/similarity.js";

// The expected values are what rapidfuzz 3.14.6 (fuzz.ratio) and CPython 3.11.7
// (difflib.SequenceMatcher(None, a, b).ratio()) give for the same inputs.

describe("rapidfuzz's fuzz.ratio", () => {
  test("strings, by code point", () => {
    expect(fuzzRatio("kitten", "sitting")).toBeCloseTo(61.53846153846154, 10);
    expect(fuzzRatio("", "abc")).toBe(0);
    expect(fuzzRatio("", "")).toBe(100);
    expect(fuzzRatio("\u{1F600}a", "a\u{1F600}")).toBeCloseTo(50, 10);
    expect(fuzzRatio("the quick brown fox", "the quack brown fax!")).toBeCloseTo(87.17948717948718, 10);
    expect(fuzzRatio(`${"a".repeat(70)}b`, `b${"a".repeat(70)}`)).toBeCloseTo(98.59154929577466, 10);
  });

  test("lists, element by element", () => {
    expect(fuzzRatio(["ab", "c", "d"], ["ab", "d", "c", "e"])).toBeCloseTo(57.14285714285714, 10);
  });
});

describe("difflib.SequenceMatcher.ratio", () => {
  test("characters and lines; the autojunk heuristic past 200 elements", () => {
    expect(sequenceRatio(Array.from("private Thread currentThread;"), Array.from("private volatile Thread currentThread;"))).toBeCloseTo(
      0.8656716417910447,
      12,
    );
    expect(sequenceRatio(["one", "two", "three"], ["one", "three", "four"])).toBeCloseTo(0.6666666666666666, 12);
    expect(sequenceRatio([], [])).toBe(1);
    // 250 "x" in b are "popular" (more than 1% + 1 of b), so only the "y" matches.
    expect(sequenceRatio(Array.from(`${"x".repeat(250)}y`), Array.from(`y${"x".repeat(250)}`))).toBeCloseTo(0.00398406374501992, 12);
  });
});
