import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { costUsd, parsePrice, priceOf } from "../../../packages/controller/src/agents/pricing.js";

describe("prices", () => {
  test("INPUT:OUTPUT per million tokens, or a JSON table by model with a * fallback", () => {
    const flat = parsePrice("3:15");
    expect(priceOf(flat, "anything")).toEqual({ input: 3, output: 15 });
    expect(costUsd(priceOf(flat, "m")!, { input: 1_000_000, output: 200_000 })).toBeCloseTo(6);
    const dir = mkdtempSync(join(tmpdir(), "pincer-price-"));
    try {
      const file = join(dir, "prices.json");
      writeFileSync(file, JSON.stringify({ "gpt-x": { input: 2.5, output: 10 }, "*": { input: 1, output: 1 } }));
      const table = parsePrice(file);
      expect(priceOf(table, "gpt-x")).toEqual({ input: 2.5, output: 10 });
      expect(priceOf(table, "other")).toEqual({ input: 1, output: 1 });
      expect(() => parsePrice(join(dir, "missing.json"))).toThrow(/INPUT:OUTPUT/);
      writeFileSync(file, JSON.stringify({ m: { input: "cheap" } }));
      expect(() => parsePrice(file)).toThrow(/--price/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
