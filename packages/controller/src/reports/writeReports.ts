import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { InvalidArgumentError } from "@pincer/shared";
import { buildReport, reportMarkdown, type Report, type TaskFinal } from "./report.js";
import { reportHtml } from "./viewerHtml.js";
import { ResultStore, type Summary } from "../runFolder/results.js";
import { readManifest } from "../runFolder/runFiles.js";
import { readManifestFields, readTrajectoryLines, runConfig, viewerAttempt, viewerTask, type ViewerAttempt, type ViewerTask } from "./viewerData.js";

/** A task of a run, as the manifest lists it. */
export interface RunTaskRef {
  id: string;
  tool: string;
}

/** A task's finished attempts as the reports read them: its final outcome, and every attempt (of every rollout), oldest first. */
export interface TaskAttempts extends TaskFinal {
  all: Array<{ rollout?: number; attempt: number; summary: Summary }>;
}

/**
 * Every task's finished attempts in a run folder (tasks without one are left out): a task's own
 * attempts, or in a run of several rollouts (`rollout-<r>/` folders) each rollout's. Also the
 * rollouts each task was planned to have: manifest.json's `rollouts`, else the most found.
 */
export async function collectTaskFinals(store: ResultStore, tasks: readonly RunTaskRef[]): Promise<{ finals: TaskAttempts[]; planned: number }> {
  const finals: TaskAttempts[] = [];
  let most = 1;
  for (const task of tasks) {
    const rollouts = await store.rolloutsOf(task.tool, task.id);
    if (rollouts.length === 0) {
      const finished = await store.finishedAttempts(task.tool, task.id);
      const last = finished.at(-1);
      if (last) finals.push({ tool: task.tool, summary: last.summary, attempts: finished.length, all: finished });
      continue;
    }
    most = Math.max(most, ...rollouts);
    const per: NonNullable<TaskFinal["rollouts"]> = [];
    const all: TaskAttempts["all"] = [];
    for (const rollout of rollouts) {
      const finished = await store.forRollout(rollout).finishedAttempts(task.tool, task.id);
      const last = finished.at(-1);
      if (!last) continue;
      per.push({ rollout, summary: last.summary, attempts: finished.length });
      all.push(...finished.map((a) => ({ ...a, rollout })));
    }
    if (per[0]) finals.push({ tool: task.tool, summary: per[0].summary, attempts: all.length, rollouts: per, all });
  }
  const manifest = await readManifestFields(store.runDir);
  return { finals, planned: manifest.rollouts ?? most };
}

/**
 * Writes report.json, report.md and report.html of a run from every task's last finished attempt
 * (with several rollouts, each rollout's; tasks without one are left out); each file atomically.
 * The viewer also shows every earlier attempt, and the run's configuration from its manifest.json.
 */
export async function writeRunReport(store: ResultStore, runId: string, tasks: readonly RunTaskRef[]): Promise<Report> {
  const { finals, planned } = await collectTaskFinals(store, tasks);
  const report = buildReport(runId, finals, planned);
  await store.writeJsonAtomic(join(store.runDir, "report.json"), report);
  await store.writeTextAtomic(join(store.runDir, "report.md"), reportMarkdown(report));
  const viewerTasks: ViewerTask[] = [];
  for (const [i, f] of finals.entries()) {
    const attempts: ViewerAttempt[] = [];
    for (const a of f.all) {
      const trajectory = await readTrajectoryLines(store.forRollout(a.rollout).attemptDir(f.tool, a.summary.id, a.attempt));
      attempts.push(viewerAttempt(f.tool, a.summary, a.attempt, trajectory, a.rollout));
    }
    viewerTasks.push(viewerTask(report.perTask[i]!, f.summary, representativeLast(attempts, f)));
  }
  const config = runConfig(
    await readManifestFields(store.runDir),
    finals.map((f) => f.summary),
  );
  await store.writeTextAtomic(join(store.runDir, "report.html"), reportHtml(report, viewerTasks, config));
  return report;
}

/** The attempts with the one the task's page opens on last: the last attempt, or with rollouts the first rollout's last one. */
function representativeLast(attempts: ViewerAttempt[], f: TaskFinal): ViewerAttempt[] {
  const first = f.rollouts?.[0];
  if (!first) return attempts;
  const i = attempts.map((a) => a.rollout).lastIndexOf(first.rollout);
  return i < 0 ? attempts : [...attempts.slice(0, i), ...attempts.slice(i + 1), attempts[i]!];
}

/**
 * Rebuilds report.json, report.md and report.html of an existing run folder (what `pincer run`
 * wrote) from its manifest and its attempts' summaries and trajectories. Returns the report.
 */
export async function rebuildRunReport(runDir: string): Promise<Report> {
  const dir = resolve(runDir);
  const manifestFile = join(dir, "manifest.json");
  if (!existsSync(manifestFile)) {
    throw new InvalidArgumentError(`${runDir} is not a run folder: it has no manifest.json (a run folder is what pincer run writes, e.g. results/run-…)`);
  }
  const manifest = await readManifest(dir);
  return writeRunReport(new ResultStore(dir), manifest.run_id, manifest.tasks);
}
