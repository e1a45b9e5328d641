import { describe, expect, test } from "vitest";
import { parseSettle } from "../../../packages/controller/src/cli/settleOption.js";

describe("--settle", () => {
  test("auto, off, and QUIET[:INITIAL[:MAX]] in milliseconds", () => {
    expect(parseSettle("auto")).toBe("auto");
    expect(parseSettle("off")).toBe(false);
    expect(parseSettle("200")).toEqual({ quietMs: 200, initialQuietMs: 200, maxMs: 5000, sinceLastWait: true });
    expect(parseSettle("300:1500")).toEqual({ quietMs: 300, initialQuietMs: 1500, maxMs: 5000, sinceLastWait: true });
    expect(parseSettle("300:8000")).toEqual({ quietMs: 300, initialQuietMs: 8000, maxMs: 8000, sinceLastWait: true });
    expect(parseSettle("100:500:2000")).toEqual({ quietMs: 100, initialQuietMs: 500, maxMs: 2000, sinceLastWait: true });
  });

  test("anything else says what to write", () => {
    for (const bad of ["", "on", "0", "300:0", "-5", "1.5", "300:1500:1000", "a:b"]) {
      expect(() => parseSettle(bad), bad).toThrow(/--settle/);
    }
  });
});
