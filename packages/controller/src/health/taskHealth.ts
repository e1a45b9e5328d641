import type { TaskState } from "../runFolder/results.js";

/**
 * A task's health over repeated runs, one word:
 * - `healthy`: its solution scored 1 in every run and doing nothing scored 0;
 * - `flaky`: its solution scored 1 in some runs but not all, or its scores varied;
 * - `broken`: its solution never scored 1;
 * - `too_lenient`: doing nothing scored more than 0 (it passes by itself), its solution being sound;
 * - `unmeasured`: what ran was sound, but machines failed in some runs, so the count is short (the
 *   machine's fault, not the task's).
 * When several hold, the first of broken, flaky, too_lenient, unmeasured is the status; every one
 * is among the task's findings.
 */
export type HealthStatus = "healthy" | "flaky" | "broken" | "too_lenient" | "unmeasured";

/** What was found wrong with a task over its runs; `machine_failure` is never the task's fault. */
export type HealthFindingKind = "broken" | "flaky" | "too_lenient" | "machine_failure";

/** One thing found wrong, with a sentence that says it and who is at fault. */
export interface HealthFinding {
  kind: HealthFindingKind;
  message: string;
}

/** One run of a task: its attempt's outcome and where its summary.json is. */
export interface HealthRun {
  /** The run folder's name, e.g. `solution-2` or `no-actions`. */
  run: string;
  /** The attempt's summary.json, relative to the health folder. */
  summary: string;
  state: TaskState;
  score: number;
  /** Wall time of the attempt (setup, steps and evaluation), in ms. */
  ms: number;
  /** Time taken to bring its machines to a clean state before it, in ms (0 when the pool does not reset). */
  resetMs: number;
  /** Why it scored what it did: the evaluation's reason, the step that failed, or the error. */
  reason: string;
}

/** A distinct reason over a task's runs with its solution, and the runs (1-based) that gave it. */
export interface HealthReason {
  reason: string;
  count: number;
  runs: number[];
}

/** The health of one task over N runs of its solution and one with no actions. */
export interface TaskHealth {
  tool: string;
  id: string;
  /** `<tool>/<id>`. */
  key: string;
  status: HealthStatus;
  /** Empty when healthy. */
  findings: HealthFinding[];
  /** Runs with its solution. */
  runs: number;
  /** Of those, the runs whose machine did not fail (the ones that say something of the task). */
  verdicts: number;
  /** Runs whose solution scored 1. */
  passes: number;
  /** Runs (with its solution or with none) whose machine failed (env_error). */
  machineFailures: number;
  /** Scores of the runs with its solution, in run order; null for a run whose machine failed. */
  scores: Array<number | null>;
  /** Median wall time of the runs with its solution that reached a verdict, in ms; null when none did. */
  medianMs: number | null;
  /** The distinct reasons of its runs with its solution, most frequent first. */
  reasons: HealthReason[];
  solutionRuns: HealthRun[];
  noActions: HealthRun;
}

/** The middle value (mean of the two middle ones for an even count); null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function distinctReasons(runs: readonly HealthRun[]): HealthReason[] {
  const byReason = new Map<string, number[]>();
  for (const [i, r] of runs.entries()) byReason.set(r.reason, [...(byReason.get(r.reason) ?? []), i + 1]);
  return [...byReason].map(([reason, at]) => ({ reason, count: at.length, runs: at })).sort((a, b) => b.count - a.count || a.runs[0]! - b.runs[0]!);
}

const list = (reasons: readonly HealthReason[]) => reasons.map((r) => `${r.count}× ${r.reason}`).join("; ");

/** What the runs with its solution say: broken, flaky, or nothing. */
function solutionFindings(verdictRuns: readonly HealthRun[], hasSolution: boolean): HealthFinding[] {
  if (verdictRuns.length === 0) return [];
  const passes = verdictRuns.filter((r) => r.score === 1).length;
  const n = verdictRuns.length;
  const out: HealthFinding[] = [];
  if (passes === 0) {
    const why = hasSolution ? list(distinctReasons(verdictRuns)) : "it has no solution to run (add one: solution.json, or solution in a task module)";
    out.push({ kind: "broken", message: `its solution never scored 1 in ${n} run(s): ${why}` });
  }
  const scores = [...new Set(verdictRuns.map((r) => r.score))];
  if (passes > 0 && passes < n) {
    out.push({
      kind: "flaky",
      message: `its solution scored 1 in ${passes} of ${n} runs on clean machines: its verdict does not depend on the solution alone`,
    });
  } else if (scores.length > 1) {
    out.push({ kind: "flaky", message: `its solution's scores vary between runs on clean machines (${scores.join(", ")})` });
  }
  return out;
}

/** The machines that failed, said to be no fault of the task. */
function machineFindings(failedWithSolution: readonly HealthRun[], runs: number, noActions: HealthRun): HealthFinding[] {
  const out: HealthFinding[] = [];
  if (failedWithSolution.length > 0) {
    out.push({
      kind: "machine_failure",
      message:
        `its machine failed in ${failedWithSolution.length} of ${runs} run(s) with its solution (${list(distinctReasons(failedWithSolution))}): ` +
        "not the task's fault; those runs are left out of its counts; check it again once the machines are sound",
    });
  }
  if (noActions.state === "env_error") {
    out.push({
      kind: "machine_failure",
      message: `with no actions, its machine failed (${noActions.reason}): whether it passes by itself is not known; not the task's fault`,
    });
  }
  return out;
}

const SEVERITY: readonly HealthStatus[] = ["broken", "flaky", "too_lenient"];

/**
 * The health of a task from its runs with its solution (in run order) and its run with no actions.
 * A machine failure (env_error) is left out of the counts and reported as such, never as the task's
 * flakiness; setup, evaluation and step failures are the task's (or its solution's) and count.
 */
export function taskHealth(task: { tool: string; id: string; hasSolution: boolean }, solutionRuns: readonly HealthRun[], noActions: HealthRun): TaskHealth {
  const verdictRuns = solutionRuns.filter((r) => r.state !== "env_error");
  const failed = solutionRuns.filter((r) => r.state === "env_error");
  const findings = solutionFindings(verdictRuns, task.hasSolution);
  if (noActions.state !== "env_error" && noActions.score !== 0) {
    findings.push({
      kind: "too_lenient",
      message: `with no actions it scores ${noActions.score} (${noActions.state}): it passes by itself (${noActions.reason})`,
    });
  }
  findings.push(...machineFindings(failed, solutionRuns.length, noActions));
  const kinds = new Set(findings.map((f) => f.kind));
  const status = SEVERITY.find((s) => kinds.has(s as HealthFindingKind)) ?? (kinds.has("machine_failure") ? "unmeasured" : "healthy");
  return {
    tool: task.tool,
    id: task.id,
    key: `${task.tool}/${task.id}`,
    status,
    findings,
    runs: solutionRuns.length,
    verdicts: verdictRuns.length,
    passes: verdictRuns.filter((r) => r.score === 1).length,
    machineFailures: failed.length + (noActions.state === "env_error" ? 1 : 0),
    scores: solutionRuns.map((r) => (r.state === "env_error" ? null : r.score)),
    medianMs: median(verdictRuns.map((r) => r.ms)),
    reasons: distinctReasons(solutionRuns),
    solutionRuns: [...solutionRuns],
    noActions,
  };
}

/** The statuses in the order a report lists them: the most serious first. */
export const HEALTH_STATUSES: readonly HealthStatus[] = ["broken", "flaky", "too_lenient", "unmeasured", "healthy"];

/** How many tasks have each status. */
export function countStatuses(tasks: readonly TaskHealth[]): Record<HealthStatus, number> {
  const counts = Object.fromEntries(HEALTH_STATUSES.map((s) => [s, 0])) as Record<HealthStatus, number>;
  for (const t of tasks) counts[t.status]++;
  return counts;
}

/** health.json: the health of every task of a dataset over repeated runs. */
export interface HealthReport {
  /** Runs of each task's solution. */
  repeat: number;

  /** The run folders, relative to the health folder: those with the solution, in order, and the one with no actions. */
  runFolders: { solution: string[]; noActions: string };
  startedAt: string;
  finishedAt: string;
  tasks: number;
  /** Tasks of each status. */
  counts: Record<HealthStatus, number>;
  perTask: TaskHealth[];
}
