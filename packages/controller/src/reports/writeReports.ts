import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { InvalidArgumentError } from "@pincer/shared";
import { buildReport, reportMarkdown, type Report } from "./report.js";
import { reportHtml } from "./viewerHtml.js";
import { ResultStore, type Summary } from "../runFolder/results.js";
import { readManifest } from "../runFolder/runFiles.js";
import { readManifestFields, readTrajectoryLines, runConfig, viewerAttempt, viewerTask, type ViewerAttempt, type ViewerTask } from "./viewerData.js";

/** A task of a run, as the manifest lists it. */
export interface RunTaskRef {
  id: string;
  tool: string;
}

/**
 * Writes report.json, report.md and report.html of a run from every task's last finished attempt
 * (tasks without one are left out); each file atomically. The viewer also shows every earlier
 * attempt, and the run's configuration from its manifest.json.
 */
export async function writeRunReport(store: ResultStore, runId: string, tasks: readonly RunTaskRef[]): Promise<Report> {
  const finals: Array<{ tool: string; summary: Summary; attempts: number; all: Array<{ attempt: number; summary: Summary }> }> = [];
  for (const task of tasks) {
    const finished = await store.finishedAttempts(task.tool, task.id);
    const last = finished.at(-1);
    if (last) finals.push({ tool: task.tool, summary: last.summary, attempts: finished.length, all: finished });
  }
  const report = buildReport(runId, finals);
  await store.writeJsonAtomic(join(store.runDir, "report.json"), report);
  await store.writeTextAtomic(join(store.runDir, "report.md"), reportMarkdown(report));
  const viewerTasks: ViewerTask[] = [];
  for (const [i, f] of finals.entries()) {
    const attempts: ViewerAttempt[] = [];
    for (const a of f.all) {
      const trajectory = await readTrajectoryLines(store.attemptDir(f.tool, f.summary.id, a.attempt));
      attempts.push(viewerAttempt(f.tool, a.summary, a.attempt, trajectory));
    }
    viewerTasks.push(viewerTask(report.perTask[i]!, f.summary, attempts));
  }
  const config = runConfig(
    await readManifestFields(store.runDir),
    finals.map((f) => f.summary),
  );
  await store.writeTextAtomic(join(store.runDir, "report.html"), reportHtml(report, viewerTasks, config));
  return report;
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
