import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { InvalidArgumentError } from "@pincer/shared";
import { agentFactory } from "../agents/factory.js";
import type { DatasetTask } from "../datasets/format.js";
import type { Registries } from "../datasets/registries.js";
import type { MachinePool } from "../machines/provider.js";
import { healthHtml } from "./healthHtml.js";
import type { RunProgress } from "../runner/progress.js";
import { ResultStore, type Summary } from "../runFolder/results.js";
import { writeHealth } from "../runFolder/runFiles.js";
import { runTasks } from "../runner/runner.js";
import { countStatuses, type HealthReport, type HealthRun, type TaskHealth, taskHealth } from "./taskHealth.js";

export type { HealthFinding, HealthFindingKind, HealthReason, HealthReport, HealthRun, HealthStatus, TaskHealth } from "./taskHealth.js";

/**
 * One run of a health check: every task, into the run folder `<outDir>/<runId>`, with the agent
 * `agent` names (`scripted`: each task's solution; `none`: no action).
 */
export interface HealthRunSpec {
  /** The run folder's name (`solution-1` …, `no-actions`). */
  runId: string;
  /** The health folder (absolute). */
  outDir: string;
  agent: "scripted" | "none";
}

/**
 * Runs one run of a health check to its end, each attempt on a clean machine: on a pool here
 * ({@link checkHealth}), or through a queue on `pincer worker`s. Throws when interrupted.
 */
export type HealthRunExecutor = (run: HealthRunSpec) => Promise<void>;

/** Options of {@link measureHealth}. */
export interface MeasureHealthOptions {
  tasks: readonly DatasetTask[];
  /** Runs of each task's solution (a whole number ≥ 1). */
  repeat: number;
  /**
   * The health folder: it gets one run folder per run (`solution-1` … `solution-N`, `no-actions`),
   * then `health.json` and `health.html`. It must be new or empty.
   */
  outDir: string;
  /** How a run is run; the runs go one after another, in the order of {@link healthRunFolders}. */
  execute: HealthRunExecutor;
}

/** Options of {@link checkHealth}. */
export interface HealthOptions extends Omit<MeasureHealthOptions, "execute"> {
  registries: Registries;
  pool: MachinePool;
  signal?: AbortSignal;
  /** Progress of each run (`run` is its folder's name) as its tasks finish. */
  onProgress?(run: string, p: RunProgress): void;
}

/** The run folders' names: `solution-1` … (zero-padded to sort), and `no-actions`. */
export function healthRunFolders(repeat: number): { solution: string[]; noActions: string } {
  const width = String(repeat).length;
  return { solution: Array.from({ length: repeat }, (_, i) => `solution-${String(i + 1).padStart(width, "0")}`), noActions: "no-actions" };
}

async function checkOutDir(outDir: string): Promise<void> {
  if (existsSync(outDir) && (await readdir(outDir)).length > 0) {
    throw new InvalidArgumentError(`${outDir} is not empty: a health check writes its runs and health.json into a new or empty folder; choose another`);
  }
}

/** One attempt's run as the health report keeps it, with why it scored what it did. */
async function healthRun(store: ResultStore, run: string, task: DatasetTask): Promise<HealthRun> {
  const last = (await store.finishedAttempts(task.tool, task.id)).at(-1);
  if (!last) {
    // A task the runner never finished (it throws when interrupted, so this is a run cut short).
    return { run, summary: "", state: "env_error", score: 0, ms: 0, resetMs: 0, reason: "the run did not finish this task" };
  }
  return {
    run,
    summary: `${run}/${task.tool}/${task.id}/attempt-${last.attempt}/summary.json`,
    state: last.summary.results.state,
    score: last.summary.results.score,
    ms: last.summary.results.total_timing.total_ms,
    resetMs: Object.values(last.summary.results.machine_reset ?? {}).reduce((a, m) => a + m.ms, 0),
    reason: await reasonOf(store, task, last.attempt, last.summary),
  };
}

/** Why an attempt scored what it did, in a few words that repeat between runs with the same cause. */
async function reasonOf(store: ResultStore, task: DatasetTask, attempt: number, summary: Summary): Promise<string> {
  const r = summary.results;
  const none = "no reason recorded";
  if (r.state === "env_error") return `machine failed: ${r.error ?? none}`;
  if (r.state === "setup_error") return `setup failed: ${r.error ?? none}`;
  if (r.state === "eval_error") return `evaluation failed to run: ${r.eval_error ?? r.error ?? none}`;
  if (r.state === "agent_error") return `agent failed: ${r.error ?? none}`;
  if (r.state === "failed") {
    const step = (await store.readTrajectory(task.tool, task.id, attempt)).find((l) => l.ok === false);
    if (step) return `step ${step.step} (${step.tool}) failed: ${step.error?.message ?? "no message"}`;
  }
  return r.eval_reason ?? r.error ?? "no reason given";
}

/**
 * Measures the health of tasks on a pool here: each one's solution runs `repeat` times and doing
 * nothing runs once, each attempt on a clean machine from the pool (any provider). Says per task
 * how often its solution scored 1, its scores, the distinct reasons its runs gave, its time per
 * run, and whether it is healthy, flaky, broken or too lenient; a machine's failure is reported
 * apart and never counted against the task. Keeps every run folder in `outDir` and writes
 * `health.json` and the page `health.html` there, each atomically.
 */
export async function checkHealth(opts: HealthOptions): Promise<HealthReport> {
  return measureHealth({ tasks: opts.tasks, repeat: opts.repeat, outDir: opts.outDir, execute: poolHealthExecutor(opts) });
}

/** Runs a health check's runs on a pool here, as {@link checkHealth} does (give it to {@link measureHealth}). */
export function poolHealthExecutor(opts: Omit<HealthOptions, "repeat" | "outDir">): HealthRunExecutor {
  return async ({ runId, outDir, agent }) => {
    await runTasks({
      tasks: opts.tasks,
      registries: opts.registries,
      pool: opts.pool,
      outDir,
      runId,
      screenshots: false,
      maxSteps: "auto",
      agentFor: agentFactory({ kind: agent }),
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.onProgress ? { onProgress: (p: RunProgress) => opts.onProgress!(runId, p) } : {}),
    });
  };
}

/**
 * The health of tasks from runs that `execute` makes (see {@link checkHealth}): checks the repeat
 * and the folder, makes the runs one after another, then reads each task's attempts in the run
 * folders and writes `health.json` and `health.html`. Where the runs ran makes no difference.
 */
export async function measureHealth(opts: MeasureHealthOptions): Promise<HealthReport> {
  if (!Number.isInteger(opts.repeat) || opts.repeat < 1) {
    throw new InvalidArgumentError(`repeat must be a whole number ≥ 1 (how many times each task's solution runs), not ${opts.repeat}`);
  }
  const outDir = resolve(opts.outDir);
  await checkOutDir(outDir);
  const startedAt = new Date().toISOString();
  const folders = healthRunFolders(opts.repeat);
  for (const run of folders.solution) await opts.execute({ runId: run, outDir, agent: "scripted" });
  await opts.execute({ runId: folders.noActions, outDir, agent: "none" });

  const perTask: TaskHealth[] = [];
  for (const task of opts.tasks) {
    const withSolution: HealthRun[] = [];
    for (const run of folders.solution) withSolution.push(await healthRun(new ResultStore(join(outDir, run)), run, task));
    const idle = await healthRun(new ResultStore(join(outDir, folders.noActions)), folders.noActions, task);
    perTask.push(taskHealth({ tool: task.tool, id: task.id, hasSolution: task.solution !== undefined }, withSolution, idle));
  }
  const report: HealthReport = {
    repeat: opts.repeat,
    runFolders: folders,
    startedAt,
    finishedAt: new Date().toISOString(),
    tasks: perTask.length,
    counts: countStatuses(perTask),
    perTask,
  };
  const store = new ResultStore(outDir);
  await writeHealth(outDir, report);
  await store.writeTextAtomic(join(outDir, "health.html"), healthHtml(report));
  return report;
}
