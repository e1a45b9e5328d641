import { describe, expect, test } from "vitest";
import { z } from "zod";
import { action, ActionDefinitionError, ActionReturnError, and, createMemoryEnv, evaluator, not, or, type Env, type Verdict } from "@pincer/controller";

/** An evaluator that answers `value` (a boolean or a verdict) and records the env handle and signal it received. */
function answer(name: string, value: boolean | Verdict, log: Array<{ name: string; env: Env; signal: AbortSignal }>) {
  return evaluator({
    name,
    description: `always ${JSON.stringify(value)}`,
    run: (_p, { env, signal }) => {
      log.push({ name, env, signal });
      return value;
    },
  });
}

describe("evaluator()", () => {
  test("its result is a verdict: a boolean is 1 or 0, a score outside [0, 1] or another value is refused at run time", async () => {
    expect(await evaluator({ name: "yes", description: "d", run: () => true }).call({})).toEqual({ score: 1, reason: "passed" });
    expect(await evaluator({ name: "no", description: "d", run: () => false }).call({})).toEqual({ score: 0, reason: "failed" });
    const half = evaluator({ name: "half", description: "d", run: () => ({ score: 0.5, reason: "2 of 4 rows match" }) });
    expect(await half.call({})).toEqual({ score: 0.5, reason: "2 of 4 rows match" });
    for (const bad of ["yes", { score: 1.5, reason: "r" }, { score: Number.NaN, reason: "r" }, null]) {
      const sneaky = evaluator({ name: "sneaky", description: "d", run: () => bad as unknown as boolean });
      await expect(sneaky.call({})).rejects.toBeInstanceOf(ActionReturnError);
    }
    expect(() => evaluator({ name: "e", description: "d", returns: z.number(), run: () => true })).toThrow(/returns must be left out/);
  });

  test("an evaluator that throws is an error, not false", async () => {
    const broken = evaluator({ name: "broken", description: "d", run: () => Promise.reject(new Error("no such file")) });
    const r = await broken.safeCall({});
    expect(r).toMatchObject({ ok: false, stage: "run", error: { message: "no such file" } });
  });

  test("parameters are validated like any action's", async () => {
    const atLeast = evaluator({ name: "at_least", description: "d", params: z.object({ n: z.number() }), run: ({ n }) => n >= 3 });
    expect(await atLeast.call({ n: 4 })).toMatchObject({ score: 1 });
    expect((await atLeast.safeCall({ n: "4" })).ok).toBe(false);
  });
});

describe("and / or / not", () => {
  test("readable names, and the same env handle and signal reach every part", async () => {
    const log: Array<{ name: string; env: Env; signal: AbortSignal }> = [];
    const env = createMemoryEnv();
    const signal = new AbortController().signal;
    const t = answer("file_saved", true, log);
    const f = answer("window_open", false, log);
    const combined = or(and(t, not(f)), f);
    expect(combined.name).toBe("file_saved_and_not_window_open_or_window_open");
    expect(await combined.call({}, { env, signal })).toMatchObject({ score: 1 });
    expect(log.map((l) => l.name)).toEqual(["file_saved", "window_open"]);
    expect(log.every((l) => l.env === env && l.signal === signal)).toBe(true);
  });

  test("truth tables, with short-circuit like && and || (at a score of 0 or 1)", async () => {
    const log: Array<{ name: string; env: Env; signal: AbortSignal }> = [];
    const T = answer("t", true, log);
    const F = answer("f", false, log);
    const cases: Array<[ReturnType<typeof and>, boolean, string[]]> = [
      [and(T, T), true, ["t", "t"]],
      [and(F, T), false, ["f"]],
      [and(T, F), false, ["t", "f"]],
      [or(F, F), false, ["f", "f"]],
      [or(T, F), true, ["t"]],
      [or(F, T), true, ["f", "t"]],
      [not(T), false, ["t"]],
      [not(F), true, ["f"]],
    ];
    for (const [e, expected, calls] of cases) {
      log.length = 0;
      expect((await e.call({})).score).toBe(expected ? 1 : 0);
      expect(log.map((l) => l.name)).toEqual(calls);
    }
  });

  test("partial credit: and is the lowest score, or the highest, not its complement; each keeps the reasons", async () => {
    const log: Array<{ name: string; env: Env; signal: AbortSignal }> = [];
    const most = answer("most_rows", { score: 0.75, reason: "3 of 4 rows" }, log);
    const half = answer("half_cells", { score: 0.5, reason: "2 of 4 cells" }, log);
    const T = answer("t", true, log);
    expect(await and(most, half, T).call({})).toEqual({ score: 0.5, reason: "most_rows: 3 of 4 rows; half_cells: 2 of 4 cells" });
    expect(await or(half, most).call({})).toEqual({ score: 0.75, reason: "half_cells: 2 of 4 cells; most_rows: 3 of 4 rows" });
    expect(await or(half, T, most).call({})).toEqual({ score: 1, reason: "t: passed" });
    expect(await not(most).call({})).toEqual({ score: 0.25, reason: "not (3 of 4 rows)" });
    expect(await and(T, T).call({})).toEqual({ score: 1, reason: "all of t, t passed" });
  });

  test("an action that returns a boolean is an evaluator too", async () => {
    const saved = action({ name: "saved", description: "d", returns: z.boolean(), run: () => true });
    const log: Array<{ name: string; env: Env; signal: AbortSignal }> = [];
    expect(await and(saved, answer("half", { score: 0.5, reason: "half" }, log)).call({})).toEqual({ score: 0.5, reason: "half: half" });
    expect(await not(saved).call({})).toEqual({ score: 0, reason: "not (passed)" });
  });

  test("parameters of the parts are merged", async () => {
    const over = evaluator({ name: "over", description: "d", params: z.object({ min: z.number(), value: z.number() }), run: (p) => p.value > p.min });
    const under = evaluator({ name: "under", description: "d", params: z.object({ max: z.number(), value: z.number() }), run: (p) => p.value < p.max });
    const between = and(over, under);
    expect(Object.keys(between.params.shape)).toEqual(["min", "value", "max"]);
    expect((await between.call({ min: 1, max: 5, value: 3 })).score).toBe(1);
    expect((await between.call({ min: 1, max: 5, value: 7 })).score).toBe(0);
  });

  test("only evaluators can be combined", () => {
    const notBoolean = action({ name: "count", description: "d", returns: z.number(), run: () => 1 });
    expect(() => and(notBoolean as never)).toThrow(ActionDefinitionError);
    expect(() => or()).toThrow(/at least one evaluator/);
  });

  test("a long composition gets a name that still fits 64 characters", () => {
    const log: Array<{ name: string; env: Env; signal: AbortSignal }> = [];
    const parts = Array.from({ length: 8 }, (_, i) => answer(`condition_number_${i}`, true, log));
    const all = and(...parts);
    expect(all.name.length).toBeLessThanOrEqual(64);
    expect(all.name).toMatch(/^condition_number_0_and_condition_number_1_and_[a-z0-9_]+$/);
  });
});
