import type { AnyAction, EpisodeHandle } from "../actions/action.js";
import type { ErrorInfo } from "../actions/errors.js";
import type { EpisodeEvent } from "../evaluators/metrics.js";
import type { Task } from "../tasks/task.js";
import type { EndReason, EpisodeState } from "./types.js";

/** The mutable state of one run of one task; internal to the Benchmark. */
export class Episode {
  readonly events: EpisodeEvent[] = [];
  readonly submissions: string[] = [];
  steps = 0;
  tokens = 0;
  completeRequested = false;
  /** An evaluation round after a step was cut at its limit: later steps skip theirs (the end is still judged). */
  stepRoundsCut = false;
  /** A task evaluated only at the end has had that evaluation. */
  evaluatedAtEnd = false;
  /** Set once the episode ended; steps are refused afterwards. */
  end: { reason: EndReason; error?: ErrorInfo } | undefined;
  /** Set by `close()`: teardown ran. */
  closed = false;
  #clockStart: number | undefined;

  constructor(
    readonly task: Task,
    /** Environment name → action name → action, with the task's extra actions. */
    readonly actionSpace: ReadonlyMap<string, ReadonlyMap<string, AnyAction>>,
  ) {}

  /** Starts the time limit; called when setup has finished. */
  startClock(): void {
    this.#clockStart = performance.now();
  }

  /** Milliseconds since setup ended (0 before). */
  elapsedMs(): number {
    return this.#clockStart === undefined ? 0 : performance.now() - this.#clockStart;
  }

  finish(reason: EndReason, error?: ErrorInfo): void {
    this.end ??= error ? { reason, error } : { reason };
  }

  /** What actions and evaluators see of the episode; `round`: the evaluation round the handle is for, and whether it judges the end. */
  handle(round?: { ending: boolean }): EpisodeHandle {
    const episode = this;
    return {
      taskId: this.task.id,
      get step() {
        return episode.steps;
      },
      get submissions() {
        return [...episode.submissions];
      },
      submit(content: string) {
        episode.submissions.push(content);
      },
      complete() {
        episode.completeRequested = true;
      },
      ending() {
        return round?.ending ?? false;
      },
    };
  }

  state(): EpisodeState {
    return {
      taskId: this.task.id,
      step: this.steps,
      tokens: this.tokens,
      elapsedMs: this.elapsedMs(),
      timeLimitMs: this.task.timeLimitMs,
      ended: this.end !== undefined,
      reason: this.end?.reason ?? null,
      ...(this.end?.error ? { error: this.end.error } : {}),
      submissions: [...this.submissions],
    };
  }
}
