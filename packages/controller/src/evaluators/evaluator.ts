import { z } from "zod";
import { Action, mergeParams, pickParams, sameEnv, type ActionDefinition, type AnyAction, type CallContext } from "../actions/action.js";
import { ActionDefinitionError, throwIfAborted } from "../actions/errors.js";
import { composeName, fitName } from "../actions/names.js";
import { type Verdict, VERDICT, type VerdictLike, toVerdict } from "./verdict.js";

/**
 * An action whose result is a {@link Verdict}: how far some condition holds on the machine, as a
 * score in [0, 1] with its reason. An action that returns a boolean can be used as one too (true
 * is 1, false is 0), including compositions (`bind`, `pipe`, `then`).
 */
export type Evaluator<P extends z.ZodObject = z.ZodObject> = Action<P, Verdict>;

/** Any evaluator, whatever its parameters: one defined with {@link evaluator}, or an action returning a boolean. */
// biome-ignore lint/suspicious/noExplicitAny: an evaluator of any parameters
export type AnyEvaluator = Action<any, Verdict> | Action<any, boolean>;

/** The definition {@link evaluator} takes: an action definition whose result is a verdict or a boolean. */
export type EvaluatorDefinition<P extends z.ZodObject> = Omit<ActionDefinition<P, VerdictLike>, "returns"> & {
  /** If given, it must be `z.boolean()` (the result is then a yes or no); checked when the evaluator is defined. */
  returns?: z.ZodType;
};

/**
 * Defines an evaluator. `run` returns a verdict (`{ score, reason }`) or a boolean (1 or 0); either
 * becomes a Verdict, checked after every run. An evaluator that throws reports an evaluation error,
 * which a graph and a benchmark keep apart from a score of 0.
 */
// biome-ignore lint/complexity/noBannedTypes: {} is zod's own type for an empty object shape
export function evaluator<P extends z.ZodObject = z.ZodObject<{}>>(def: EvaluatorDefinition<P>): Evaluator<P> {
  if (def.returns !== undefined && !(def.returns instanceof z.ZodBoolean)) {
    throw new ActionDefinitionError(`evaluator ${def.name}: returns must be left out (or z.boolean()): an evaluator returns a verdict or a boolean`);
  }
  const run = def.run;
  return new Action<P, Verdict>({
    ...def,
    params: def.params ?? (z.object({}) as unknown as P),
    returns: VERDICT,
    run: async (params, ctx) => toVerdict(await run(params, ctx), `evaluator ${def.name}`),
  });
}

/** Whether `a` can be used as an evaluator: it returns a verdict (defined with {@link evaluator}) or a boolean. */
export function isEvaluator(a: AnyAction): a is AnyEvaluator {
  return a.returns === VERDICT || a.returns instanceof z.ZodBoolean;
}

/** Runs an evaluator with parsed parameters; its verdict (a boolean result becomes 1 or 0). */
export async function judge(e: AnyEvaluator, params: Record<string, unknown>, ctx: CallContext): Promise<Verdict> {
  return toVerdict(await (e as AnyAction).runParsed(params, ctx), e.name);
}

function checkEvaluators(op: string, parts: AnyAction[]): void {
  if (parts.length === 0) throw new ActionDefinitionError(`${op}() needs at least one evaluator`);
  for (const p of parts) {
    if (!isEvaluator(p)) throw new ActionDefinitionError(`${op}(): ${p.name} returns neither a verdict nor a boolean; define it with evaluator()`);
  }
}

/** The reasons of the parts that did not pass, or of all when they all did. */
function reasonsOf(parts: ReadonlyArray<{ name: string; verdict: Verdict }>, op: "and" | "or"): string {
  const short = parts.filter((p) => p.verdict.score < 1);
  if (op === "and" && short.length === 0) return `all of ${parts.map((p) => p.name).join(", ")} passed`;
  if (op === "or" && short.length < parts.length) {
    const best = parts.find((p) => p.verdict.score >= 1)!;
    return `${best.name}: ${best.verdict.reason}`;
  }
  return short.map((p) => `${p.name}: ${p.verdict.reason}`).join("; ");
}

function combine(op: "and" | "or", parts: AnyEvaluator[]): Evaluator {
  checkEvaluators(op, parts);
  const name = composeName(
    parts.map((p) => p.name),
    op,
  );
  // and: the weakest part's score, stopping at a 0; or: the strongest part's, stopping at a 1.
  const stopAt = op === "or" ? 1 : 0;
  return new Action({
    name,
    description: `${op === "and" ? "All" : "Any"} of: ${parts.map((p) => `${p.name} (${p.description})`).join("; ")}`,
    params: mergeParams(name, parts),
    returns: VERDICT,
    ...sameEnv(name, parts),
    local: parts.every((p) => p.local),
    async run(params, ctx) {
      const seen: Array<{ name: string; verdict: Verdict }> = [];
      for (const part of parts) {
        throwIfAborted(ctx.signal, name);
        const verdict = await judge(part, pickParams(part, params), ctx);
        seen.push({ name: part.name, verdict });
        if (verdict.score === stopAt) break;
      }
      const scores = seen.map((p) => p.verdict.score);
      return { score: op === "and" ? Math.min(...scores) : Math.max(...scores), reason: reasonsOf(seen, op) };
    },
  });
}

/**
 * Every evaluator: the lowest score of them (checked in order, stopping at the first 0), so a pass
 * needs every part to pass. The parts share the env handle and signal; their parameters are merged.
 * Named `a_and_b`.
 */
export function and(...evaluators: AnyEvaluator[]): Evaluator {
  return combine("and", evaluators);
}

/** Any evaluator: the highest score of them (checked in order, stopping at the first 1). Named `a_or_b`. */
export function or(...evaluators: AnyEvaluator[]): Evaluator {
  return combine("or", evaluators);
}

/** The opposite of `e`: 1 − its score, with the same parameters, env handle and signal. Named `not_e`. */
export function not<P extends z.ZodObject>(e: Action<P, Verdict> | Action<P, boolean> | AnyEvaluator): Evaluator<P> {
  checkEvaluators("not", [e as AnyAction]);
  const inner = e as AnyEvaluator;
  return new Action<P, Verdict>({
    name: fitName(`not_${inner.name}`),
    description: `The opposite of: ${inner.description}`,
    params: inner.params as P,
    returns: VERDICT,
    ...(inner.env !== undefined ? { env: inner.env } : {}),
    local: inner.local,
    run: async (params, ctx) => {
      const v = await judge(inner, params as Record<string, unknown>, ctx);
      return { score: 1 - v.score, reason: `not (${v.reason})` };
    },
  });
}
