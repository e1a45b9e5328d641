import { PincerError } from "@pincer/shared";
import type { ErrorInfo } from "../actions/errors.js";
import type { EvaluationState } from "../evaluators/metrics.js";
import type { Screenshot } from "../env/index.js";

/**
 * Why an episode can end.
 *
 * Terminated (the episode reached an end state):
 * - `success`: the evaluator's sink passed;
 * - `agent_complete`: the agent called `complete` or `submit` (evaluated first: success wins).
 *
 * Truncated (cut off before an end state):
 * - `step_limit`: the task's `maxSteps` steps were taken;
 * - `time_limit`: `timeLimitMs` passed since setup ended (a running action is aborted);
 * - `token_budget`: the agent reported more tokens than `tokenBudget`;
 * - `setup_error`: a setup action failed; no step can be taken;
 * - `env_error`: a machine became unreachable or refused the credentials (UnavailableError,
 *   UnauthenticatedError) during setup, an action or an evaluation;
 * - `evaluator_error`: an evaluator threw (a bug or a broken check, reported apart from `false`);
 * - `agent_error`: the agent failed (reported by the caller with `Benchmark.end`).
 *
 * Other action errors (invalid arguments, an unknown tool, a missing file, a command that failed)
 * do not end the episode: they are returned to the agent and count as a step.
 */
export const END_REASONS = [
  "success",
  "agent_complete",
  "step_limit",
  "time_limit",
  "token_budget",
  "setup_error",
  "env_error",
  "evaluator_error",
  "agent_error",
] as const;

/** Why an episode ended: one of {@link END_REASONS}. */
export type EndReason = (typeof END_REASONS)[number];

/** Whether `reason` means the episode reached an end state (else it was truncated). */
export function isTerminal(reason: EndReason): boolean {
  return reason === "success" || reason === "agent_complete";
}

/** One tool call of the agent: by environment and action names, or by tool name (`env__action`). */
export type StepCall = ({ env: string; action: string } | { tool: string }) & {
  /** The tool's arguments, as the model sent them; validated before anything runs. @default {} */
  args?: unknown;
  /** Tokens the agent spent to produce this call, for cost efficiency and the token budget. @default 0 */
  tokens?: number;
};

/** Options every benchmark call takes. */
export interface BenchmarkCallOptions {
  /** Cancels the call; the running action or evaluator receives it. A cancelled call throws CancelledError. */
  signal?: AbortSignal;
}

/** Options of `Benchmark.step`. */
export interface StepOptions extends BenchmarkCallOptions {
  /**
   * Called once the action has finished (or failed), before the step's evaluation round starts:
   * a runner starts the next observation here, so the screenshots and the evaluators' calls share
   * one round trip. Not called when the step did not run (time limit already passed).
   */
  onActed?: () => void;
}

interface StepBase {
  /**
   * Steps taken in this episode, this one included; not incremented when the time limit had
   * already passed before the step, since nothing ran.
   */
  step: number;
  /** `env__action`, or the unknown tool name as given. */
  tool: string;
  env: string;
  action: string;
  /** Evaluator state after the step. */
  evaluation: EvaluationState;
  /** The episode reached an end state (success, agent_complete). */
  terminated: boolean;
  /** The episode was cut off (a limit or an error). */
  truncated: boolean;
  /** Why the episode ended; null while it goes on. */
  reason: EndReason | null;
  /** Wall time of the step (action and evaluation), in milliseconds. */
  durationMs: number;
}

/** What `step` returns: the action's result or its error, the evaluator state, and whether and why the episode ended. */
export type StepResult = StepBase & ({ ok: true; result: unknown } | { ok: false; error: ErrorInfo });

/** What `start` returns. `ok` is false when setup failed (the episode then ended with `setup_error`). */
export interface StartResult {
  taskId: string;
  /** The instruction for the agent. */
  description: string;
  /** Tool names of the episode's action space (`env__action`). */
  tools: string[];
  ok: boolean;
  reason: EndReason | null;
  error?: ErrorInfo;
}

/** How long an observation waited for a screen to stop changing before its screenshot. */
export interface SettleRecord {
  /** False when the screen was still changing at the maximum wait. */
  settled: boolean;
  waited_ms: number;
  /** Changes seen while waiting (one for a change drawn before the wait began). */
  changes: number;
}

/**
 * What `bench.observe()` returns, and what an agent gets (`AgentObservation` is this with the
 * previous turn's results): every environment's observations by name, and their screens grouped by
 * what they hold (from each environment's screen observation, `screen`).
 */
export interface Observation {
  /** Steps taken so far. */
  step: number;
  /** Environment name → observation name → value (a screenshot carries its size, source region and scale). */
  environments: Record<string, Record<string, unknown>>;
  /** Environment → its newest screenshot (with its size, source region and scale), for those that have one. */
  screenshots: Record<string, Screenshot>;
  /** Environment → the wait before its screenshot, when the observation waits. */
  settle: Record<string, SettleRecord>;
  /**
   * Environment → its accessibility tree as text (OSWorld's linearised form; numbered lines whose
   * boxes are drawn on the screenshot in set-of-marks mode), when the observation reads it.
   */
  accessibility?: Record<string, string>;
}

/** The state of the current episode. */
export interface EpisodeState {
  taskId: string;
  step: number;
  tokens: number;
  /** Milliseconds since setup ended. */
  elapsedMs: number;
  /** The task's time limit, in milliseconds since setup ended: actions and the agent's model time count. */
  timeLimitMs: number;
  ended: boolean;
  reason: EndReason | null;
  error?: ErrorInfo;
  submissions: readonly string[];
}

/** One or more teardown actions failed; all of them ran. */
export class TeardownError extends PincerError {
  constructor(
    readonly taskId: string,
    readonly errors: ErrorInfo[],
  ) {
    super(`task ${taskId}: ${errors.length} teardown action(s) failed: ${errors.map((e) => `${e.type}: ${e.message}`).join("; ")}`);
  }
}
