import { z } from "zod";
import { Action, mergeParams, pickParams, sameEnv, type ActionDefinition, type AnyAction } from "../actions/action.js";
import { ActionDefinitionError, throwIfAborted } from "../actions/errors.js";
import { composeName, fitName } from "../actions/names.js";

/**
 * An action whose result is a boolean: whether some condition holds on the machine. Any action that
 * returns a boolean can be used as one, including compositions (`bind`, `pipe`, `then`).
 */
export type Evaluator<P extends z.ZodObject = z.ZodObject> = Action<P, boolean>;

/** Any evaluator, whatever its parameters. */
// biome-ignore lint/suspicious/noExplicitAny: an evaluator of any parameters
export type AnyEvaluator = Action<any, boolean>;

/** The definition {@link evaluator} takes: an action definition whose result is a boolean. */
export type EvaluatorDefinition<P extends z.ZodObject> = Omit<ActionDefinition<P, boolean>, "returns"> & {
  /** If given, it must be `z.boolean()`; checked when the evaluator is defined. */
  returns?: z.ZodType;
};

/**
 * Defines an evaluator. Its result is checked to be a boolean after every run; an evaluator that
 * throws reports an evaluation error, which a graph and a benchmark keep apart from `false`.
 */
// biome-ignore lint/complexity/noBannedTypes: {} is zod's own type for an empty object shape
export function evaluator<P extends z.ZodObject = z.ZodObject<{}>>(def: EvaluatorDefinition<P>): Evaluator<P> {
  if (def.returns !== undefined && !(def.returns instanceof z.ZodBoolean)) {
    throw new ActionDefinitionError(`evaluator ${def.name}: returns must be z.boolean(), an evaluator answers yes or no`);
  }
  return new Action<P, boolean>({ ...def, params: def.params ?? (z.object({}) as unknown as P), returns: z.boolean() });
}

/** Whether `a` declares a boolean result (and so can be used as an evaluator). */
export function isEvaluator(a: AnyAction): a is AnyEvaluator {
  return a.returns instanceof z.ZodBoolean;
}

function checkEvaluators(op: string, parts: AnyAction[]): void {
  if (parts.length === 0) throw new ActionDefinitionError(`${op}() needs at least one evaluator`);
  for (const p of parts) {
    if (!isEvaluator(p)) throw new ActionDefinitionError(`${op}(): ${p.name} does not declare returns: z.boolean(); define it with evaluator()`);
  }
}

function combine(op: "and" | "or", parts: AnyEvaluator[]): AnyEvaluator {
  checkEvaluators(op, parts);
  const name = composeName(
    parts.map((p) => p.name),
    op,
  );
  const stopOn = op === "or";
  return new Action({
    name,
    description: `${op === "and" ? "All" : "Any"} of: ${parts.map((p) => `${p.name} (${p.description})`).join("; ")}`,
    params: mergeParams(name, parts),
    returns: z.boolean(),
    ...sameEnv(name, parts),
    local: parts.every((p) => p.local),
    async run(params, ctx) {
      // Short-circuits like && and ||: later parts are not checked once the answer is known.
      for (const part of parts) {
        throwIfAborted(ctx.signal, name);
        if ((await part.runParsed(pickParams(part, params), ctx)) === stopOn) return stopOn;
      }
      return !stopOn;
    },
  });
}

/**
 * True when every evaluator is true (checked in order, stopping at the first false). The parts share
 * the env handle and signal; their parameters are merged. Named `a_and_b`.
 */
export function and(...evaluators: AnyEvaluator[]): AnyEvaluator {
  return combine("and", evaluators);
}

/** True when any evaluator is true (checked in order, stopping at the first true). Named `a_or_b`. */
export function or(...evaluators: AnyEvaluator[]): AnyEvaluator {
  return combine("or", evaluators);
}

/** The negation of `e`, with the same parameters, env handle and signal. Named `not_e`. */
export function not<P extends z.ZodObject>(e: Evaluator<P>): Evaluator<P> {
  checkEvaluators("not", [e]);
  return new Action<P, boolean>({
    name: fitName(`not_${e.name}`),
    description: `The opposite of: ${e.description}`,
    params: e.params,
    returns: z.boolean(),
    ...(e.env !== undefined ? { env: e.env } : {}),
    local: e.local,
    run: async (params, ctx) => !(await e.runParsed(params, ctx)),
  });
}
