import { isInfraState, type Summary, type TaskState } from "../runFolder/results.js";

/** Progress of a run, reported after every change. */
export interface RunProgress {
  total: number;
  done: number;
  running: number;
  passed: number;
  failed: number;
  errors: number;
  skipped: number;
  /** Estimated milliseconds left, from the mean time of finished attempts; null before the first. */
  etaMs: number | null;
  /** The task that just finished, with its state. */
  last?: { id: string; state: string; score: number; attempt: number };
}

/** Counts a run's tasks as they finish and reports a copy of the progress after each change. */
export class ProgressTracker {
  readonly #progress: RunProgress;
  readonly #durations: number[] = [];

  constructor(
    total: number,
    /** Tasks run at the same time, for the time estimate. */
    private readonly slots: number,
    private readonly onProgress: ((p: RunProgress) => void) | undefined,
  ) {
    this.#progress = { total, done: 0, running: 0, passed: 0, failed: 0, errors: 0, skipped: 0, etaMs: null };
  }

  #count(state: TaskState): void {
    if (state === "passed") this.#progress.passed++;
    else if (isInfraState(state)) this.#progress.errors++;
    else this.#progress.failed++;
  }

  /** A task finished in an earlier run (`--resume`) and is kept. */
  skipped(state: TaskState): void {
    this.#progress.done++;
    this.#progress.skipped++;
    this.#count(state);
  }

  /** A task starts on a slot. */
  started(): void {
    this.#progress.running++;
  }

  /** A task is done after `ms`, with its last attempt's summary; `queued` tasks are still waiting. */
  finished(id: string, final: Summary | undefined, ms: number, queued: number): void {
    const progress = this.#progress;
    progress.running--;
    progress.done++;
    this.#durations.push(ms);
    if (final) {
      this.#count(final.results.state);
      progress.last = { id, state: final.results.state, score: final.results.score, attempt: final.results.attempt };
    }
    const mean = this.#durations.reduce((a, b) => a + b, 0) / this.#durations.length;
    progress.etaMs = Math.round((mean * (queued + progress.running)) / this.slots);
    this.report();
  }

  /** Sends a copy of the progress to the listener. */
  report(): void {
    this.onProgress?.({ ...this.#progress });
  }
}
