import { z } from "zod";
import { ActionReturnError } from "../actions/errors.js";

/**
 * What an evaluator says of the machine: a score in [0, 1] (1 is a pass; anything between is
 * partial credit) and the reason a researcher reads in the report ("cell B3: expected 4, got 5").
 * Every way Pincer judges a task gives one: evaluators and their `and`/`or`/`not`, graphs, the JSON
 * task format's evaluation functions and OSWorld's metrics; summary.json's `score` and `eval_reason`
 * are the task evaluator's.
 */
export interface Verdict {
  readonly score: number;
  readonly reason: string;
}

/** What an evaluator's `run` may return: a {@link Verdict}, or a boolean as shorthand for 1 or 0. */
export type VerdictLike = boolean | Verdict;

/** The schema of an evaluator's result (the `returns` of every evaluator). */
export const VERDICT = z.object({
  score: z.number().min(0).max(1).describe("1 is a pass; between 0 and 1, partial credit"),
  reason: z.string().describe("why, in words"),
});

/** A passing verdict. */
export function pass(reason = "passed"): Verdict {
  return { score: 1, reason };
}

/** A failing verdict (partial credit with a `score` above 0). */
export function fail(reason: string, score = 0): Verdict {
  return { score, reason };
}

/** Whether `v` is a pass (a score of 1). */
export function passes(v: Verdict): boolean {
  return v.score >= 1;
}

/**
 * The verdict of an evaluator's result: a boolean becomes 1 ("passed") or 0 ("failed"); a verdict
 * must have a finite score in [0, 1] and a string reason. `who` names the evaluator in the error.
 */
export function toVerdict(value: unknown, who: string): Verdict {
  if (typeof value === "boolean") return value ? pass() : fail("failed");
  const v = value as Partial<Verdict> | null;
  if (v && typeof v === "object" && typeof v.score === "number" && Number.isFinite(v.score) && v.score >= 0 && v.score <= 1) {
    return { score: v.score, reason: typeof v.reason === "string" ? v.reason : v.score >= 1 ? "passed" : `score ${v.score}` };
  }
  throw new ActionReturnError(`${who} returned ${JSON.stringify(value)}: an evaluator returns true, false or { score: 0..1, reason }`);
}
