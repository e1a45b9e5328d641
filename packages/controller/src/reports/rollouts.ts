import { isInfraState } from "../runFolder/results.js";

/**
 * The statistics of a task's rollouts (`pincer run --rollouts N`): pass@k by the unbiased estimator
 * of Chen et al. 2021 ("Evaluating Large Language Models Trained on Code"), best-of-N and the spread
 * of the scores. A rollout whose attempts all ended in an infrastructure error has no verdict: it is
 * listed, and left out of n.
 */

/**
 * pass@k from n rollouts of which c passed: the chance that at least one of k rollouts drawn
 * without replacement from the n passed, 1 − C(n−c, k) / C(n, k), computed as the product
 * 1 − ∏_{i=n−c+1}^{n} (1 − k/i), which stays exact where the binomials overflow. Throws unless
 * 0 ≤ c ≤ n and 1 ≤ k ≤ n.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!(Number.isInteger(n) && Number.isInteger(c) && Number.isInteger(k)) || c < 0 || c > n || k < 1 || k > n) {
    throw new RangeError(`pass@k needs whole numbers 0 ≤ c ≤ n and 1 ≤ k ≤ n; got n=${n}, c=${c}, k=${k}`);
  }
  if (n - c < k) return 1;
  let fail = 1;
  for (let i = n - c + 1; i <= n; i++) fail *= 1 - k / i;
  return 1 - fail;
}

/** One rollout of a task as the report lists it: its last attempt's outcome. */
export interface RolloutResult {
  rollout: number;
  state: string;
  score: number;
  /** Attempts the rollout used (more than one after infrastructure errors, with `--attempts`). */
  attempts: number;
  endReason: string | null;
  steps: number;
  /** The infrastructure error that ended it, when it had no verdict; null otherwise. */
  error: string | null;
}

/** A task's rollouts and their statistics (report.json's `perTask[].rollouts`). */
export interface RolloutStats {
  /** Rollouts the run asked for (`--rollouts`). */
  planned: number;
  /** Rollouts with a verdict (passed or failed): the n of pass@k. */
  n: number;
  /** Rollouts that passed: the c of pass@k. */
  c: number;
  /** Rollouts that ended in an infrastructure error after all their attempts (left out of n). */
  errors: number;
  /** Each finished rollout, in order. */
  results: RolloutResult[];
  /** pass@k for k = 1 … planned, by k; null for a k greater than n. pass@1 is the mean of the rollouts' success. */
  passAt: Record<string, number | null>;
  /** The highest score of the rollouts with a verdict; null when none has one. */
  bestOfN: number | null;
  /** The spread of those scores; null when none has one. */
  min: number | null;
  max: number | null;
  mean: number | null;
  /** Population standard deviation of the scores (divided by n). */
  std: number | null;
}

/** The statistics of a task's finished rollouts, `planned` of them asked for. */
export function rolloutStats(results: readonly RolloutResult[], planned: number): RolloutStats {
  const counted = results.filter((r) => !isInfraState(r.state));
  const scores = counted.map((r) => r.score);
  const n = counted.length;
  const c = counted.filter((r) => r.state === "passed").length;
  const passAt: Record<string, number | null> = {};
  for (let k = 1; k <= planned; k++) passAt[String(k)] = k <= n ? passAtK(n, c, k) : null;
  const mean = n ? scores.reduce((a, b) => a + b, 0) / n : null;
  const std = mean === null ? null : Math.sqrt(scores.reduce((a, s) => a + (s - mean) ** 2, 0) / n);
  const max = n ? Math.max(...scores) : null;
  return {
    planned,
    n,
    c,
    errors: results.length - n,
    results: [...results],
    passAt,
    bestOfN: max,
    min: n ? Math.min(...scores) : null,
    max,
    mean,
    std,
  };
}

/** The run's figures over its tasks' rollouts (report.json's `rollouts`): the mean of each pass@k over the tasks that have it. */
export interface RunRolloutStats {
  /** Rollouts per task (`--rollouts`). */
  planned: number;
  /** Mean pass@k over the tasks with at least k rollouts that have a verdict, by k; null when no task has. */
  meanPassAt: Record<string, number | null>;
  /** How many tasks each mean is over, by k. */
  tasksAt: Record<string, number>;
  /** Mean best-of-N score over the tasks with a verdict; null when none has. */
  meanBestOfN: number | null;
  /** Rollouts that ended in an infrastructure error, in all tasks. */
  errors: number;
}

const meanOf = (xs: readonly number[]): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** The run-level means of the tasks' rollout statistics. */
export function runRolloutStats(tasks: readonly RolloutStats[], planned: number): RunRolloutStats {
  const meanPassAt: Record<string, number | null> = {};
  const tasksAt: Record<string, number> = {};
  for (let k = 1; k <= planned; k++) {
    const values = tasks.map((t) => t.passAt[String(k)]).filter((v): v is number => typeof v === "number");
    meanPassAt[String(k)] = meanOf(values);
    tasksAt[String(k)] = values.length;
  }
  const best = tasks.map((t) => t.bestOfN).filter((v): v is number => v !== null);
  return { planned, meanPassAt, tasksAt, meanBestOfN: meanOf(best), errors: tasks.reduce((a, t) => a + t.errors, 0) };
}
