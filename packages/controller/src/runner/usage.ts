import type { TokenUsage } from "../agents/types.js";
import type { TurnUsageRecord } from "../runFolder/trajectory.js";

export type { TurnUsageRecord } from "../runFolder/trajectory.js";

/**
 * What an attempt used: tokens, model requests and cost over the agent's turns, and wall time
 * split into setup, model and environment (actions and evaluation).
 */
export class AttemptUsage {
  input = 0;
  output = 0;
  requests = 0;
  failedRequests = 0;
  retries = 0;
  #costUsd = 0;
  #priced = false;
  readonly timing = { setup_ms: 0, model_ms: 0, env_ms: 0 };

  /** Adds the model time of a turn and its usage (when the agent reported one). */
  addTurn(usage: TokenUsage | undefined, modelMs: number): void {
    this.timing.model_ms += modelMs;
    if (!usage) return;
    this.input += usage.input;
    this.output += usage.output;
    this.requests += usage.requests ?? 1;
    this.failedRequests += usage.failedRequests ?? 0;
    this.retries += usage.retries ?? 0;
    if (usage.costUsd !== undefined) {
      this.#costUsd += usage.costUsd;
      this.#priced = true;
    }
  }

  /** Adds time spent on the machines (an action and its evaluation, or an evaluation alone). */
  addEnvTime(ms: number): void {
    this.timing.env_ms += ms;
  }

  /** US dollars, when the agent has a price for its model (--price); null otherwise. */
  costUsd(): number | null {
    return this.#priced ? this.#costUsd : null;
  }

  /** The timing fields of summary.json, in whole milliseconds. */
  totalTiming(totalMs: number): { total_ms: number; setup_ms: number; model_ms: number; env_ms: number } {
    return {
      total_ms: totalMs,
      setup_ms: Math.round(this.timing.setup_ms),
      model_ms: Math.round(this.timing.model_ms),
      env_ms: Math.round(this.timing.env_ms),
    };
  }
}

/** Tokens of a turn, as charged to the episode's token budget. */
export function turnTokens(usage: TokenUsage | undefined): number {
  return (usage?.input ?? 0) + (usage?.output ?? 0);
}

/** Per model call accounting of one turn, for its assistant message; undefined without usage. */
export function turnUsageRecord(usage: TokenUsage | undefined): TurnUsageRecord | undefined {
  if (!usage) return undefined;
  return {
    input_tokens: usage.input,
    output_tokens: usage.output,
    requests: usage.requests ?? 1,
    ...(usage.failedRequests ? { failed_requests: usage.failedRequests } : {}),
    ...(usage.retries ? { retries: usage.retries } : {}),
    ...(usage.costUsd !== undefined ? { cost_usd: usage.costUsd } : {}),
  };
}
