import { describe, expect, test } from "vitest";
import { z } from "zod";
import {
  action,
  ActionArgumentsError,
  ActionDefinitionError,
  ActionReturnError,
  CancelledError,
  createMemoryEnv,
  FailedPreconditionError,
  type Env,
} from "@pincer/controller";

/** An action that records which env handle and signal reached it, and returns what it was given. */
function probe<S extends z.ZodRawShape>(name: string, shape: S, seen: Array<{ name: string; env: Env; signal: AbortSignal; params: unknown }>) {
  return action({
    name,
    description: `probe ${name}`,
    params: z.object(shape),
    run: (params, { env, signal }) => {
      seen.push({ name, env, signal, params });
      return params;
    },
  });
}

const add = action({
  name: "add",
  description: "Add two numbers.",
  params: z.object({ a: z.number().describe("first"), b: z.number().default(1).describe("second") }),
  returns: z.number(),
  run: ({ a, b }) => a + b,
});

describe("arguments are validated before run", () => {
  test("invalid arguments come back from safeCall as a readable error result; run never starts", async () => {
    let ran = false;
    const a = action({
      name: "a",
      description: "d",
      params: z.object({ x: z.number().int().min(0), label: z.string() }),
      run: () => {
        ran = true;
      },
    });
    const r = await a.safeCall({ x: -1.5 });
    expect(ran).toBe(false);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.stage).toBe("arguments");
    expect(r.error).toBeInstanceOf(ActionArgumentsError);
    const err = r.error as ActionArgumentsError;
    expect(err.issues.map((i) => i.path.join("."))).toEqual(["x", "label"]);
    expect(err.issues[0]!.message).toMatch(/expected int/);
    expect(err.message).toMatch(/^a: invalid arguments\n/);
    expect(err.message).toMatch(/at label/);
  });

  test("call throws ActionArgumentsError for invalid arguments", async () => {
    await expect(add.call({ a: "1" } as never)).rejects.toBeInstanceOf(ActionArgumentsError);
  });

  test("defaults are applied and the result is checked against returns", async () => {
    expect(await add.call({ a: 2 })).toBe(3);
    const liar = action({ name: "liar", description: "d", returns: z.number(), run: () => "seven" as unknown as number });
    await expect(liar.call({})).rejects.toBeInstanceOf(ActionReturnError);
    const r = await liar.safeCall({});
    expect(r.ok === false && r.stage).toBe("run");
  });

  test("an error thrown by run is a result of safeCall, with stage run", async () => {
    const boom = action({ name: "boom", description: "d", run: () => Promise.reject(new Error("disk full")) });
    const r = await boom.safeCall(undefined);
    expect(r).toMatchObject({ ok: false, stage: "run", error: { message: "disk full" } });
  });

  test("a fired signal throws CancelledError instead of becoming a result", async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(add.safeCall({ a: 1 }, { signal: ac.signal })).rejects.toBeInstanceOf(CancelledError);
  });

  test("a local action gets no machine: its env calls fail with FailedPreconditionError", async () => {
    const local = action({ name: "peek", description: "d", local: true, run: (_p, { env }) => env.mouse.position() });
    await expect(local.call({}, { env: createMemoryEnv() })).rejects.toBeInstanceOf(FailedPreconditionError);
  });
});

describe("pipe: a's result becomes b's single required input", () => {
  const double = action({
    name: "double",
    description: "Double n.",
    params: z.object({ n: z.number(), note: z.string().optional() }),
    returns: z.number(),
    run: ({ n }) => n * 2,
  });

  test("runs both, with the same env and signal, and returns b's result", async () => {
    const seen: Parameters<typeof probe>[2] = [];
    const show = probe("show", { value: z.number() }, seen);
    const env = createMemoryEnv();
    const signal = new AbortController().signal;
    const piped = add.pipe(double).pipe(show);
    expect(piped.name).toBe("add_to_double_to_show");
    expect(await piped.call({ a: 4, b: 5 }, { env, signal })).toEqual({ value: 18 });
    expect(seen[0]!.env).toBe(env);
    expect(seen[0]!.signal).toBe(signal);
    expect(Object.keys(piped.inputSchema().properties as object)).toEqual(["a", "b"]);
  });

  test("a type mismatch is an error when composed, not when run", () => {
    const shout = action({ name: "shout", description: "d", params: z.object({ text: z.string() }), run: () => {} });
    expect(() => add.pipe(shout)).toThrow(ActionDefinitionError);
    expect(() => add.pipe(shout)).toThrow(/number is not string/);
  });

  test("object results are checked field by field", () => {
    const where = action({ name: "where", description: "d", returns: z.object({ x: z.number(), y: z.number().optional() }), run: () => ({ x: 1 }) });
    const needsXY = action({ name: "needs", description: "d", params: z.object({ p: z.object({ x: z.number(), y: z.number() }) }), run: () => {} });
    const needsX = action({ name: "needs_x", description: "d", params: z.object({ p: z.object({ x: z.number() }) }), run: () => {} });
    expect(() => where.pipe(needsXY)).toThrow(/needs\.p\.y: required, but not always present/);
    expect(where.pipe(needsX).name).toBe("where_to_needs_x");
  });

  test("b needs exactly one required parameter, and a needs a returns schema", () => {
    const two = action({ name: "two", description: "d", params: z.object({ a: z.number(), b: z.number() }), run: () => {} });
    expect(() => add.pipe(two)).toThrow(/exactly one required parameter/);
    const untyped = action({ name: "untyped", description: "d", run: () => 1 });
    expect(() => untyped.pipe(double)).toThrow(/no returns schema/);
  });
});

describe("then: sequence", () => {
  test("runs in order with the merged parameters, shares env and signal, returns the last result", async () => {
    const seen: Parameters<typeof probe>[2] = [];
    const first = probe("first", { x: z.number(), shared: z.string() }, seen);
    const second = probe("second", { y: z.number(), shared: z.string() }, seen);
    const both = first.then(second);
    const env = createMemoryEnv();
    const signal = new AbortController().signal;
    expect(await both.call({ x: 1, y: 2, shared: "s" }, { env, signal })).toEqual({ y: 2, shared: "s" });
    expect(seen.map((s) => [s.name, s.params])).toEqual([
      ["first", { x: 1, shared: "s" }],
      ["second", { y: 2, shared: "s" }],
    ]);
    expect(seen.every((s) => s.env === env && s.signal === signal)).toBe(true);
    expect(both.name).toBe("first_then_second");
  });

  test("a parameter shared with different schemas is refused when composed", () => {
    const a = action({ name: "a", description: "d", params: z.object({ v: z.number() }), run: () => {} });
    const b = action({ name: "b", description: "d", params: z.object({ v: z.string() }), run: () => {} });
    expect(() => a.then(b)).toThrow(/parameter v has different schemas/);
  });

  test("parts bound to different environments cannot be composed", () => {
    const a = action({ name: "a", description: "d", env: "vm1", run: () => {} });
    const b = action({ name: "b", description: "d", env: "vm2", run: () => {} });
    expect(() => a.then(b)).toThrow(/different environments \(vm1, vm2\)/);
  });

  test("cancellation between parts stops the sequence", async () => {
    const ac = new AbortController();
    const ran: string[] = [];
    const a = action({
      name: "a",
      description: "d",
      run: () => {
        ran.push("a");
        ac.abort();
      },
    });
    const b = action({ name: "b", description: "d", run: () => void ran.push("b") });
    await expect(a.then(b).call({}, { signal: ac.signal })).rejects.toBeInstanceOf(CancelledError);
    expect(ran).toEqual(["a"]);
  });
});

describe("bind: preset arguments", () => {
  test("presets reach run, leave the parameters, and env and signal still pass through", async () => {
    const seen: Parameters<typeof probe>[2] = [];
    const move = probe("move", { x: z.number(), y: z.number() }, seen);
    const toLeftEdge = move.bind({ x: 0 });
    expect(Object.keys(toLeftEdge.params.shape)).toEqual(["y"]);
    const env = createMemoryEnv();
    const signal = new AbortController().signal;
    await toLeftEdge.call({ y: 7 }, { env, signal });
    expect(seen[0]).toMatchObject({ params: { x: 0, y: 7 } });
    expect(seen[0]!.env).toBe(env);
    expect(seen[0]!.signal).toBe(signal);
  });

  test("presets are validated when bound", () => {
    expect(() => add.bind({ a: "one" } as never)).toThrow(ActionDefinitionError);
    expect(() => add.bind({ c: 1 } as never)).toThrow(/no parameter named c/);
  });

  test("a bound action can be renamed, and its result schema is kept for pipe", async () => {
    const inc = add.bind({ b: 1 }, { name: "increment", description: "Add one." });
    expect(inc.name).toBe("increment");
    const negate = action({ name: "negate", description: "d", params: z.object({ n: z.number() }), returns: z.number(), run: ({ n }) => -n });
    expect(await inc.pipe(negate).call({ a: 4 })).toBe(-5);
  });
});
