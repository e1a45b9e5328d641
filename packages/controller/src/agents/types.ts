import type { AnyAction } from "../actions/action.js";
import type { EndReason, Observation, StepCall, StepResult } from "../benchmark/types.js";

/** A tool the agent may call: `env__action` and its JSON schema. */
export interface AgentTool {
  name: string;
  description: string;
  /** JSON schema of the arguments. */
  parameters: Record<string, unknown>;
}

/** What an agent learns when a task starts. */
export interface AgentTaskContext {
  taskId: string;
  instruction: string;
  tools: readonly AgentTool[];
  maxSteps: number;
  signal: AbortSignal;
  /** The attempt's folder, where an agent keeps files of its own (an agent program's logs and MCP configuration). */
  dir?: string;
  /** The task's time limit for the agent's part, in milliseconds. */
  timeLimitMs?: number;
}

/** Which attempt an agent is made for: the rollout (1 … `rollouts`, 1 in a run of one) and the attempt of that rollout (1 first). */
export interface AgentAttempt {
  rollout: number;
  attempt: number;
}

/** How an attempt's agent part ended, for {@link Agent.finish}. */
export interface AgentFinish {
  /** Why the episode ended (null: it did not, the attempt was interrupted or failed). */
  reason: EndReason | null;
  /** Results of the calls of the last turn taken (the agent has not seen them yet). */
  lastResults: readonly StepResult[];
}

/**
 * What an agent sees before each turn: `bench.observe()`'s {@link Observation} as the runner got it
 * (the step, every environment's observations, screenshots, settle waits, accessibility text), with
 * the previous turn's results and the turn's signal.
 */
export interface AgentObservation extends Readonly<Observation> {
  /** Results of the previous turn's calls, in order (errors included: the agent should read them). */
  lastResults: readonly StepResult[];
  signal: AbortSignal;
}

/** Token use of one turn (one or more model calls). */
export interface TokenUsage {
  /** Prompt tokens, cached ones included. */
  input: number;
  output: number;
  /** Model requests answered with a usable reply in the turn. @default 1 */
  requests?: number;
  /** Tries that failed in the turn (an error status, no reply in time, an unusable reply). @default 0 */
  failedRequests?: number;
  /** Tries made after a failed one in the turn. @default 0 */
  retries?: number;
  /** What the turn cost in US dollars, when the agent has a price for its model. */
  costUsd?: number;
}

/** One turn of the agent: tool calls to run in order, or done. */
export interface AgentTurn {
  calls: StepCall[];
  /** The agent considers the task finished (no calls needed). */
  done?: boolean;
  usage?: TokenUsage;
  /** What the model said besides the calls, for the trajectory. */
  message?: string;
}

/**
 * An agent: it gets the task, then one observation per turn, and answers with tool calls or done.
 * Errors it throws end the task with `agent_error`.
 */
export interface Agent {
  /** "scripted", "openai", "anthropic", … */
  readonly name: string;
  /** The model, for providers; empty for the scripted agent. */
  readonly model: string;
  start(ctx: AgentTaskContext): Promise<void> | void;
  act(observation: AgentObservation): Promise<AgentTurn>;
  /** Whether it reads screenshots; the runner skips observing when no one needs them. */
  readonly wantsScreenshots: boolean;
  /** Actions this agent needs in every environment beside the standard ones (e.g. a computer-use tool). */
  readonly actions?: readonly AnyAction[];
  /**
   * The agent acts on its own clock (an agent program: the task's time limit running out while it
   * works is the task's `time_limit`, evaluated, not an agent failure).
   */
  readonly ownClock?: boolean;
  /** Called once when the agent's part of the attempt is over, however it ended: release what `start` began. Must not throw. */
  finish?(end: AgentFinish): Promise<void>;
}
