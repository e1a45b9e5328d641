import { sleep } from "@pincer/shared";
import type { Agent, AgentObservation, AgentTaskContext, AgentTurn } from "../agents/types.js";
import type { StepCall } from "../benchmark/types.js";
import type { TrajectoryLine } from "../runFolder/trajectory.js";

/** One turn of a recorded attempt: its calls in order, when it acted, and how it ended. */
export interface RecordedTurn {
  turn: number;
  calls: StepCall[];
  /** When the turn's first action began (or the agent said done, or failed), in ms since the agent's part began; absent in older runs. */
  atMs?: number;
  /** When the turn's last action and its evaluation ended (its `at_ms` + `duration_ms`); absent in older runs and for turns without steps. */
  endMs?: number;
  /** The model's time for the turn, in ms (0 when none was recorded). */
  modelMs: number;
  /** The agent said it was done. */
  done?: boolean;
  /** The agent failed at this turn, with this message. */
  agentError?: string;
}

/**
 * How a replay keeps the recorded waits: `recorded`, every turn acts as long after the previous
 * turn's last step ended (its action and evaluation) as it did in the recorded attempt (from its
 * lines' `at_ms` and `duration_ms`), the first turn after its model time; `model_ms`, for runs
 * written before Pincer recorded `at_ms`, every turn waits its recorded model time before acting.
 */
export type ReplayTiming = "recorded" | "model_ms";

/** The turns of a recorded trajectory, in order (the final screen is not a turn). */
export function recordedTurns(lines: readonly TrajectoryLine[]): RecordedTurn[] {
  const turns: RecordedTurn[] = [];
  for (const line of lines) {
    // The screens at the end, and a person's actions (not the agent's: a replay plays the agent only).
    if (line.final || line.human) continue;
    let turn = turns.at(-1);
    if (!turn || turn.turn !== line.turn) {
      turn = { turn: line.turn, calls: [], modelMs: line.model_ms ?? 0, ...(line.at_ms !== undefined ? { atMs: line.at_ms } : {}) };
      turns.push(turn);
    }
    if (typeof line.step === "number" && line.tool) {
      turn.calls.push({ tool: line.tool, args: line.args ?? {} });
      if (line.at_ms !== undefined && line.duration_ms !== undefined) turn.endMs = line.at_ms + line.duration_ms;
    }
    if (line.done) turn.done = true;
    if (line.agent_error) turn.agentError = line.agent_error;
  }
  return turns;
}

/** `recorded` when every turn has its `at_ms`, else `model_ms`. */
export function timingOf(turns: readonly RecordedTurn[]): ReplayTiming {
  return turns.every((t) => t.atMs !== undefined) ? "recorded" : "model_ms";
}

/**
 * An agent that plays a recorded attempt's turns again, each with its recorded calls, at the
 * recorded times (see {@link ReplayTiming}), without a model: a turn that ended in the agent's
 * error fails again, and after the last turn it says done. It never looks at the screen.
 */
export class ReplayAgent implements Agent {
  readonly name = "replay";
  readonly model = "";
  readonly wantsScreenshots = false;
  #next = 0;
  /** `performance.now()` when the previous turn's calls were handed over. */
  #handedAt = 0;

  constructor(
    private readonly turns: readonly RecordedTurn[],
    private readonly timing: ReplayTiming = timingOf(turns),
  ) {}

  start(_ctx: AgentTaskContext): void {
    this.#next = 0;
  }

  async act(observation: AgentObservation): Promise<AgentTurn> {
    const turn = this.turns[this.#next];
    if (!turn) return { calls: [], done: true };
    const previous = this.turns[this.#next - 1];
    this.#next += 1;
    await sleep(this.#waitMs(turn, previous, observation), observation.signal);
    this.#handedAt = performance.now();
    if (turn.agentError) throw new Error(`the recorded attempt's agent failed at this turn: ${turn.agentError}`);
    if (turn.done || turn.calls.length === 0) return { calls: [], done: true };
    return { calls: turn.calls.map((c) => ({ ...c })) };
  }

  /**
   * How long to wait before this turn acts: its model time (the first turn, and older runs), or until
   * it is as long after the previous turn's steps ended as it was in the recorded attempt.
   */
  #waitMs(turn: RecordedTurn, previous: RecordedTurn | undefined, observation: AgentObservation): number {
    if (this.timing === "model_ms" || turn.atMs === undefined || previous?.endMs === undefined) return turn.modelMs;
    const recordedGap = turn.atMs - previous.endMs;
    // The previous turn's steps ran back to back from when they were handed over.
    const ended = this.#handedAt + observation.lastResults.reduce((sum, r) => sum + r.durationMs, 0);
    return Math.max(0, ended + recordedGap - performance.now());
  }
}
