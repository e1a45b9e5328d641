import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { costUsd, parsePrice, priceOf } from "../../../packages/controller/src/agents/pricing.js";
import { isRetryable, retryAfterMs, withRetry } from "../../../packages/controller/src/agents/retry.js";

const httpError = (status: number, headers: Record<string, string> = {}) =>
  Object.assign(new Error(`status ${status}`), { status, headers: new Headers(headers) });

describe("withRetry", () => {
  test("429, 5xx, 408 and lost connections are retried; 400 and 401 are not", () => {
    for (const s of [408, 409, 429, 500, 502, 503, 529]) expect(isRetryable(httpError(s))).toBe(true);
    for (const s of [400, 401, 403, 404, 422]) expect(isRetryable(httpError(s))).toBe(false);
    expect(isRetryable(Object.assign(new Error("socket hang up"), { name: "APIConnectionError" }))).toBe(true);
    expect(isRetryable(new TypeError("bug"))).toBe(false);
  });

  test("Retry-After in ms, seconds or a date", () => {
    expect(retryAfterMs(httpError(429, { "retry-after-ms": "250" }))).toBe(250);
    expect(retryAfterMs(httpError(429, { "retry-after": "2" }))).toBe(2000);
    const at = retryAfterMs(httpError(429, { "retry-after": new Date(Date.now() + 3_000).toUTCString() }))!;
    expect(at).toBeGreaterThan(1_000);
    expect(at).toBeLessThanOrEqual(3_000);
    expect(retryAfterMs(httpError(500))).toBeUndefined();
  });

  test("backs off and succeeds; honours the server's wait; gives up after `retries`", async () => {
    const waits: number[] = [];
    let calls = 0;
    const value = await withRetry(
      async () => {
        calls++;
        if (calls === 1) throw httpError(429, { "retry-after-ms": "30" });
        if (calls === 2) throw httpError(503);
        return "ok";
      },
      { baseDelayMs: 5, onRetry: (i) => waits.push(i.delayMs) },
    );
    expect(value).toBe("ok");
    expect(calls).toBe(3);
    expect(waits[0]).toBe(30);
    expect(waits[1]).toBeLessThanOrEqual(10);

    let n = 0;
    await expect(
      withRetry(
        async () => {
          n++;
          throw httpError(500);
        },
        { retries: 2, baseDelayMs: 1 },
      ),
    ).rejects.toThrow("status 500");
    expect(n).toBe(3);
    let m = 0;
    await expect(
      withRetry(
        async () => {
          m++;
          throw httpError(400);
        },
        { baseDelayMs: 1 },
      ),
    ).rejects.toThrow("status 400");
    expect(m).toBe(1);
  });
});

describe("prices", () => {
  test("INPUT:OUTPUT per million tokens, or a JSON table by model with a * fallback", () => {
    const flat = parsePrice("3:15");
    expect(priceOf(flat, "anything")).toEqual({ input: 3, output: 15 });
    expect(costUsd(priceOf(flat, "m")!, { input: 1_000_000, output: 200_000 })).toBeCloseTo(6);
    const dir = mkdtempSync(join(tmpdir(), "pincer-price-"));
    const file = join(dir, "prices.json");
    writeFileSync(file, JSON.stringify({ "gpt-x": { input: 2.5, output: 10 }, "*": { input: 1, output: 1 } }));
    const table = parsePrice(file);
    expect(priceOf(table, "gpt-x")).toEqual({ input: 2.5, output: 10 });
    expect(priceOf(table, "other")).toEqual({ input: 1, output: 1 });
    expect(() => parsePrice(join(dir, "missing.json"))).toThrow(/INPUT:OUTPUT/);
    writeFileSync(file, JSON.stringify({ m: { input: "cheap" } }));
    expect(() => parsePrice(file)).toThrow(/--price/);
  });
});
