import { join, relative } from "node:path";
import type { Registries } from "../datasets/registries.js";
import type { SettleOptions } from "../env/index.js";
import type { MachinePool } from "../machines/provider.js";
import { DEFAULT_SETTLE } from "../benchmark/screenObservation.js";
import type { Report } from "../reports/report.js";
import { ResultStore } from "../runFolder/results.js";
import { writeReplayReport } from "../runFolder/runFiles.js";
import { type RunProgress, runTasks } from "../runner/runner.js";
import { compareTask, type CompareOptions, DEFAULT_SCREEN_THRESHOLD, type ReplayReport, type TaskComparison } from "./stepDifferences.js";
import { comparisonHtml } from "./comparePage.js";
import { ReplayAgent } from "./replayAgent.js";
import type { ReplaySource, ReplayTask } from "./source.js";

/** Options of {@link replayRun}. */
export interface ReplayOptions extends CompareOptions {
  /** The finished run to replay, as {@link loadReplaySource} loaded it. */
  source: ReplaySource;
  /** Fresh machines for the replay; each attempt's are reset first, as in any run. */
  pool: MachinePool;
  /** The dataset formats' registries the source was loaded with. */
  registries: Registries;
  /** Folder that holds run folders. @default "results" */
  outDir?: string;
  /** Name of the replay's run folder. @default run-<UTC timestamp> */
  runId?: string;
  /** Attempts per task; only infrastructure errors are retried. @default 1 */
  attempts?: number;
  /** Save a screenshot before each turn (the screens are compared where both runs saved them). @default true */
  screenshots?: boolean;
  /** The wait for each screen to settle before its screenshot. @default as the recorded run did */
  settle?: SettleOptions | false;
  signal?: AbortSignal;
  onProgress?(p: RunProgress): void;
}

/** The settle wait of the recorded run: as its manifest says, else as its screenshots show. */
function recordedSettle(source: ReplaySource): SettleOptions | false {
  const s = source.manifest.settle;
  if (s === false || (s && typeof s === "object")) return s as SettleOptions | false;
  // "auto", or a run that did not record it: a wait when its screenshots were waited for.
  return source.tasks.some((t) => t.trajectory.some((l) => l.settle && Object.keys(l.settle).length > 0)) ? DEFAULT_SETTLE : false;
}

const keyOf = (t: ReplayTask) => `${t.task.tool}/${t.task.id}`;

/**
 * Compares each task of `source` with its attempt in the replay run at `replayDir`, and writes
 * replay.json and compare.html there (each atomically).
 */
export async function writeReplayComparison(source: ReplaySource, replayDir: string, replayRunId: string, opts: CompareOptions = {}): Promise<ReplayReport> {
  const originals = new ResultStore(source.runDir);
  const replays = new ResultStore(replayDir);
  const perTask: TaskComparison[] = [];
  for (const t of source.tasks) {
    const { tool, id } = t.task;
    const original = { attempt: t.attempt, summary: t.summary, trajectory: t.trajectory, dir: originals.forRollout(t.rollout).attemptDir(tool, id, t.attempt) };
    const last = (await replays.finishedAttempts(tool, id)).at(-1);
    const replay = last && {
      ...last,
      trajectory: await replays.readTrajectory(tool, id, last.attempt),
      dir: replays.attemptDir(tool, id, last.attempt),
    };
    const rel = (store: ResultStore, dir: string) => relative(store.runDir, dir);
    perTask.push(
      await compareTask(
        keyOf(t),
        { ...original, relDir: rel(originals, original.dir) },
        replay && { ...replay, relDir: rel(replays, replay.dir) },
        { waits: t.timing, changed: t.changed },
        opts,
      ),
    );
  }
  const report: ReplayReport = {
    run_id: replayRunId,
    replay_of: { run_id: source.runId, run_dir: source.runDir },
    created_at: new Date().toISOString(),
    screen_threshold: opts.screenThreshold ?? DEFAULT_SCREEN_THRESHOLD,
    tasks: perTask.length,
    same_outcome: perTask.filter((c) => c.outcome === "same").length,
    diverged: perTask.filter((c) => c.diverging_steps.length > 0 || c.outcome === "different").length,
    warnings: source.warnings,
    per_task: perTask,
  };
  await writeReplayReport(replayDir, report);
  const tasks = perTask.map((c, i) => ({ comparison: c, original: source.tasks[i]!.trajectory }));
  const withReplays = await Promise.all(
    tasks.map(async ({ comparison, original }) => {
      const [tool, ...rest] = comparison.task.split("/");
      const replay = comparison.replay ? await replays.readTrajectory(tool!, rest.join("/"), comparison.replay.attempt) : [];
      return { comparison, original, replay };
    }),
  );
  await replays.writeTextAtomic(join(replayDir, "compare.html"), comparisonHtml(report, relative(replayDir, source.runDir), withReplays));
  return report;
}

/**
 * Replays a finished run: each task's recorded actions (the last finished attempt's steps, tool and
 * arguments, in order) with the recorded waits, on fresh machines from `pool`, without a model; the
 * tasks are evaluated again. Writes a new run folder (its manifest.json names the run it replays
 * in `replay_of`) with replay.json, each task's outcome and first diverging step beside the
 * original's, and compare.html, the two side by side step by step.
 */
export async function replayRun(opts: ReplayOptions): Promise<{ runDir: string; report: Report; replay: ReplayReport }> {
  const { source } = opts;
  const byKey = new Map(source.tasks.map((t) => [keyOf(t), t]));
  const maxSteps = source.manifest.max_steps;
  const { runDir, report } = await runTasks({
    tasks: source.tasks.map((t) => t.task),
    registries: opts.registries,
    pool: opts.pool,
    agentFor: (task) => new ReplayAgent(byKey.get(`${task.tool}/${task.id}`)?.turns ?? []),
    ...(opts.outDir ? { outDir: opts.outDir } : {}),
    ...(opts.runId ? { runId: opts.runId } : {}),
    attempts: opts.attempts ?? 1,
    maxSteps: typeof maxSteps === "number" ? maxSteps : "auto",
    ...(source.manifest.task_timeout_ms ? { taskTimeoutMs: source.manifest.task_timeout_ms } : {}),
    screenshots: opts.screenshots ?? true,
    settle: opts.settle ?? recordedSettle(source),
    dataset: source.dataset,
    replayOf: { runId: source.runId, runDir: source.runDir },
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
  });
  const replayRunId = runDir.split(/[\\/]/).at(-1)!;
  const replay = await writeReplayComparison(source, runDir, replayRunId, opts);
  return { runDir, report, replay };
}
