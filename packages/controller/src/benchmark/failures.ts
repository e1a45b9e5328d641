import { UnauthenticatedError, UnavailableError } from "@pincer/shared";
import type { ErrorInfo } from "../actions/errors.js";
import type { EndReason } from "./types.js";

/**
 * The errors that mean the machine failed rather than the task, the agent or a check: it is
 * unreachable or went away (UnavailableError), or it refused the credentials (UnauthenticatedError).
 *
 * A TimeoutError is not among them: a deadline also passes when an action is merely slow, and the
 * client cannot tell that from a channel that is down, so a deadline stays the action's own error.
 */
export const ENVIRONMENT_FAILURES = [UnavailableError, UnauthenticatedError] as const;

/** Where a failure happened: in the agent's turn (the loop around the agent), or in an evaluator. */
export type FailureStage = "agent" | "evaluation";

/** The end reasons {@link classifyFailure} gives. */
export type FailureReason = Extract<EndReason, "env_error" | "agent_error" | "evaluator_error">;

const STAGE_REASON: Record<FailureStage, FailureReason> = { agent: "agent_error", evaluation: "evaluator_error" };

function isErrorInfo(value: unknown): value is ErrorInfo {
  return typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string";
}

/**
 * Whether `err` means the machine failed (see {@link ENVIRONMENT_FAILURES}): it, or an error it was
 * caused by (`cause`: code that adds context to a machine's failure keeps it there). Takes a thrown
 * error (checked with `instanceof`) or an {@link ErrorInfo}, the form an evaluator's error is
 * recorded in, which keeps only the class name (so a subclass recorded that way is not recognised).
 */
export function isEnvironmentFailure(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    if (ENVIRONMENT_FAILURES.some((type) => e instanceof type)) return true;
  }
  return isErrorInfo(err) && ENVIRONMENT_FAILURES.some((type) => type.name === err.type);
}

/**
 * The end reason of a failure at `stage`: `env_error` when the machine failed, else the stage's
 * own reason (`agent_error`, `evaluator_error`). Used by the benchmark and the runner alike.
 */
export function classifyFailure(err: unknown, stage: FailureStage): FailureReason {
  return isEnvironmentFailure(err) ? "env_error" : STAGE_REASON[stage];
}
