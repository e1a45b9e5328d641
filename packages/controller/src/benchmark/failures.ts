import { isEnvironmentFailure } from "../env/machineFailures.js";
import type { EndReason } from "./types.js";

export { ENVIRONMENT_FAILURES, isEnvironmentFailure, watchEnv, type WatchedEnv } from "../env/machineFailures.js";

/** Where a failure happened: in the agent's turn (the loop around the agent), or in an evaluator. */
export type FailureStage = "agent" | "evaluation";

/** The end reasons {@link classifyFailure} gives. */
export type FailureReason = Extract<EndReason, "env_error" | "agent_error" | "evaluator_error">;

const STAGE_REASON: Record<FailureStage, FailureReason> = { agent: "agent_error", evaluation: "evaluator_error" };

/**
 * The end reason of a failure at `stage`: `env_error` when the machine failed, else the stage's
 * own reason (`agent_error`, `evaluator_error`). Used by the benchmark and the runner alike.
 */
export function classifyFailure(err: unknown, stage: FailureStage): FailureReason {
  return isEnvironmentFailure(err) ? "env_error" : STAGE_REASON[stage];
}
