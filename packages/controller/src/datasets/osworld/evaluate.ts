import type { Verdict } from "../../evaluators/verdict.js";
import type { OsworldTaskJson } from "./taskSchema.js";
import { OSWORLD_CONFIG_TYPES } from "./allConfigTypes.js";
import type { OsworldContext } from "./context.js";
import { OSWORLD_GETTERS } from "./allGetters.js";
import { runMetric } from "./metric.js";
import { OSWORLD_METRICS } from "./metrics/index.js";
import { fail, pass } from "../../evaluators/verdict.js";

type Evaluator = OsworldTaskJson["evaluator"];
type Step = { type: string; parameters: Record<string, unknown> };
type GetterSpec = { type: string; [k: string]: unknown } | Record<string, never> | null | undefined;

const list = <T>(v: T | T[] | null | undefined): T[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);

/** Runs config steps (setup or postconfig) in order; the first failure throws, naming the step. */
export async function runSteps(steps: readonly Step[], ctx: OsworldContext, what: string): Promise<void> {
  for (const [i, step] of steps.entries()) {
    const type = OSWORLD_CONFIG_TYPES.get(step.type);
    if (!type) throw new Error(`${what}[${i}]: config type ${step.type} is not implemented`);
    try {
      await type.run(type.parameters.parse(step.parameters), ctx);
    } catch (err) {
      throw new Error(`${what}[${i}] (${step.type}): ${(err as Error).message}`, { cause: err });
    }
  }
}

/** What a getter returns, or `undefined` for an empty slot (`{}` or null). */
async function fetchState(spec: GetterSpec, ctx: OsworldContext): Promise<unknown> {
  if (!spec || !("type" in spec)) return undefined;
  const getter = OSWORLD_GETTERS.get(spec.type as string);
  if (!getter) throw new Error(`getter ${String(spec.type)} is not implemented`);
  const { type: _type, ...config } = spec;
  return getter.get(getter.config.parse(config), ctx);
}

/** One metric on the idx-th result/expected/options. */
async function judge(e: Evaluator, idx: number, ctx: OsworldContext): Promise<{ score: number; reason: string }> {
  const funcs = list(e.func);
  const name = funcs[idx]!;
  const metric = OSWORLD_METRICS.get(name);
  if (!metric) throw new Error(`metric ${name} is not implemented`);
  const pick = <T>(v: T | T[] | null | undefined): T | undefined =>
    Array.isArray(e.func) ? (Array.isArray(v) ? v[idx] : undefined) : Array.isArray(v) ? undefined : (v ?? undefined);
  const result = await fetchState(pick(e.result as GetterSpec | GetterSpec[]), ctx);
  const expected = await fetchState(pick(e.expected as GetterSpec | GetterSpec[]), ctx);
  const r = await runMetric(metric, result === undefined ? null : result, expected, pick(e.options), ctx);
  return { score: r.score, reason: funcs.length > 1 ? `${name}: ${r.reason}` : r.reason };
}

/**
 * OSWorld's `DesktopEnv.evaluate`: postconfig, then `infeasible` (1 only when the agent declared the
 * task infeasible), else 0 when it did, else each metric on its getters' values, combined with
 * `conj`: "and" stops at the first 0 and averages, "or" stops at the first 1 and takes the maximum.
 */
export async function evaluateOsworld(e: Evaluator, ctx: OsworldContext, declaredInfeasible: boolean): Promise<Verdict> {
  await runSteps(e.postconfig, ctx, "postconfig");
  const funcs = list(e.func);
  if (funcs.length === 1 && funcs[0] === "infeasible") {
    return declaredInfeasible
      ? pass("the agent declared the task infeasible, as it is")
      : fail("the task is infeasible, and the agent did not say so (its last action was not fail)");
  }
  if (declaredInfeasible) return fail("the agent declared the task infeasible, but it is feasible");
  if (!Array.isArray(e.func)) return judge(e, 0, ctx);
  const conj = e.conj ?? "and";
  const results: Array<{ score: number; reason: string }> = [];
  for (let i = 0; i < funcs.length; i++) {
    const r = await judge(e, i, ctx);
    if (conj === "and" && r.score === 0) return fail(r.reason);
    if (conj === "or" && r.score === 1) return pass(r.reason);
    results.push(r);
  }
  const score = conj === "and" ? results.reduce((a, r) => a + r.score, 0) / results.length : Math.max(...results.map((r) => r.score));
  return { score, reason: results.map((r) => r.reason).join("; ") };
}
