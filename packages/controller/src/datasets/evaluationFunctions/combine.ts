import { z } from "zod";
import type { EvaluationFunction, EvaluationRegistry } from "../taskFunctions.js";
import type { Verdict } from "../../evaluators/verdict.js";
import { defineEvaluationFunction } from "../taskFunctions.js";

/**
 * `all` and `any`: several evaluation functions combined into one, written in a task as
 * `{ "func": "all", "arguments": { "evaluators": [{ "func": ..., "arguments": {...} }, ...] } }`.
 *
 * They are factories bound to a registry, where they look their parts up — when the arguments are
 * validated and again when they run — so parts may be any function of that registry, including ones
 * registered after them and nested `all`/`any`. `createEvaluationRegistry()` registers both.
 */

const partSchema = z.strictObject({
  func: z.string().min(1).describe("Name of a registered evaluation function"),
  arguments: z.record(z.string(), z.unknown()).default({}).describe("Its arguments"),
});

/** The arguments of `all` and `any`. */
export interface CombinationArgs {
  evaluators: Array<{ func: string; arguments: Record<string, unknown> }>;
  mean: boolean;
}

function argsSchema(registry: EvaluationRegistry, kind: string) {
  return z
    .strictObject({
      evaluators: z.array(partSchema).min(1).describe("The evaluation functions to combine, run in order"),
      mean: z
        .boolean()
        .default(false)
        .describe(`Score the mean of the parts instead of the ${kind === "all" ? "minimum" : "maximum"}`),
    })
    .superRefine((a, zctx) => {
      a.evaluators.forEach((part, i) => {
        const fn = registry.get(part.func);
        if (!fn) {
          zctx.addIssue({ code: "custom", path: ["evaluators", i, "func"], message: `unknown evaluation function ${JSON.stringify(part.func)}` });
          return;
        }
        const r = fn.args.safeParse(part.arguments);
        if (!r.success) {
          for (const issue of r.error.issues) zctx.addIssue({ code: "custom", path: ["evaluators", i, "arguments", ...issue.path], message: issue.message });
        }
      });
    });
}

interface PartOutcome extends Verdict {
  label: string;
}

/** Runs the parts in order. A part that throws makes the combination throw (the check is broken). */
async function runParts(registry: EvaluationRegistry, args: CombinationArgs, ctx: Parameters<EvaluationFunction["run"]>[1]): Promise<PartOutcome[]> {
  const out: PartOutcome[] = [];
  for (const [i, part] of args.evaluators.entries()) {
    ctx.signal.throwIfAborted();
    const label = `[${i}] ${part.func}`;
    const fn = registry.get(part.func);
    if (!fn) throw new Error(`evaluators${label}: unknown evaluation function`);
    const parsed = fn.args.safeParse(part.arguments);
    if (!parsed.success) throw new Error(`evaluators${label}: invalid arguments: ${z.prettifyError(parsed.error)}`);
    let o: Verdict;
    try {
      o = await fn.run(parsed.data, ctx);
    } catch (e) {
      throw new Error(`evaluators${label} failed: ${(e as Error).message}`, { cause: e });
    }
    if (typeof o?.score !== "number" || !(o.score >= 0 && o.score <= 1)) throw new Error(`evaluators${label} returned score ${o?.score}, outside [0, 1]`);
    out.push({ label, score: o.score, reason: o.reason });
  }
  return out;
}

const line = (p: PartOutcome) => `${p.label}${p.score > 0 && p.score < 1 ? ` (${p.score.toFixed(3)})` : ""}: ${p.reason}`;

/**
 * `all`: every part must pass. Score = the minimum of the parts' scores (the mean with
 * `mean: true`); the reason lists the parts that scored below 1. Every part runs, so the reason is
 * complete.
 */
export function createAll(registry: EvaluationRegistry): EvaluationFunction<ReturnType<typeof argsSchema>> {
  return defineEvaluationFunction({
    name: "all",
    description: "Combines evaluation functions: all must pass (score = the minimum, or the mean with mean: true)",
    args: argsSchema(registry, "all"),
    async run(args, ctx) {
      const parts = await runParts(registry, args, ctx);
      const scores = parts.map((p) => p.score);
      const score = args.mean ? scores.reduce((a, b) => a + b, 0) / scores.length : Math.min(...scores);
      const failed = parts.filter((p) => p.score < 1);
      if (failed.length === 0) return { score, reason: `all ${parts.length} passed: ${parts.map(line).join("; ")}` };
      return { score, reason: `${failed.length} of ${parts.length} did not pass: ${failed.map(line).join("; ")}` };
    },
  });
}

/**
 * `any`: one part passing is enough. Score = the maximum of the parts' scores (the mean with
 * `mean: true`); when none passes, the reason lists every part's reason. Every part runs.
 */
export function createAny(registry: EvaluationRegistry): EvaluationFunction<ReturnType<typeof argsSchema>> {
  return defineEvaluationFunction({
    name: "any",
    description: "Combines evaluation functions: one passing is enough (score = the maximum, or the mean with mean: true)",
    args: argsSchema(registry, "any"),
    async run(args, ctx) {
      const parts = await runParts(registry, args, ctx);
      const scores = parts.map((p) => p.score);
      const score = args.mean ? scores.reduce((a, b) => a + b, 0) / scores.length : Math.max(...scores);
      const passed = parts.filter((p) => p.score === 1);
      if (passed.length) return { score, reason: `${passed.length} of ${parts.length} passed: ${passed.map(line).join("; ")}` };
      return { score, reason: `none of ${parts.length} passed: ${parts.map(line).join("; ")}` };
    },
  });
}
