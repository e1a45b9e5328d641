import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { InvalidArgumentError } from "@pincer/shared";
import { buildReport, type PerTask, type Report } from "./report.js";
import { ResultStore } from "../runFolder/results.js";
import { type RunConfig, runConfig } from "./viewerData.js";
import { readManifest } from "../runFolder/runFiles.js";
import { runComparisonHtml } from "./viewer/runCompare.js";
import { collectTaskFinals } from "./writeReports.js";

/** How a task's outcome moved from run A to run B. */
export type TaskChange = "better" | "worse" | "changed" | "same" | "only_a" | "only_b";

/** One task of a comparison: its line in each run (null where the run has no finished attempt of it). */
export interface ComparedTask {
  /** `<tool>/<id>`. */
  key: string;
  a: PerTask | null;
  b: PerTask | null;
  /** `better`: a higher score in B (or passed in B only); `worse`: the reverse; `changed`: another state, the same score. */
  change: TaskChange;
}

/** One run of a comparison: its id, folder, configuration and totals. */
export interface ComparedRun {
  runId: string;
  /** The run folder, relative to the comparison page's folder (links go to its report.html). */
  dir: string;
  config: RunConfig;
  totals: Omit<Report, "perTask" | "byTag" | "byApp" | "counterparts">;
}

/** Two runs of the same dataset side by side, task by task. */
export interface RunComparison {
  a: ComparedRun;
  b: ComparedRun;
  tasks: ComparedTask[];
  counts: Record<TaskChange, number>;
}

/** How task `a` → `b` changed (see {@link ComparedTask.change}). */
export function taskChange(a: PerTask | null, b: PerTask | null): TaskChange {
  if (!a) return "only_b";
  if (!b) return "only_a";
  const passA = a.state === "passed";
  const passB = b.state === "passed";
  if (b.score > a.score || (passB && !passA)) return "better";
  if (b.score < a.score || (passA && !passB)) return "worse";
  return a.state === b.state ? "same" : "changed";
}

/** A run folder's manifest, report and configuration; a folder that is not a run is an error saying so. */
async function loadRun(runDir: string): Promise<{ dir: string; report: Report; config: RunConfig }> {
  const dir = resolve(runDir);
  if (!existsSync(join(dir, "manifest.json"))) {
    throw new InvalidArgumentError(`${runDir} is not a run folder: it has no manifest.json (a run folder is what pincer run writes, e.g. results/run-…)`);
  }
  // Read as its schema says: a manifest that is not a run's is an error naming what is wrong.
  const manifest = await readManifest(dir);
  // A task's last attempt, or with several rollouts each rollout's, as the run's own report counts them.
  const { finals, planned } = await collectTaskFinals(new ResultStore(dir), manifest.tasks);
  const runId = manifest.run_id;
  return {
    dir,
    report: buildReport(runId, finals, planned),
    config: runConfig(
      manifest,
      finals.map((f) => f.summary),
    ),
  };
}

function comparedRun(run: { dir: string; report: Report; config: RunConfig }, pageDir: string): ComparedRun {
  const { perTask: _p, byTag: _t, byApp: _a, counterparts: _c, ...totals } = run.report;
  const dir = relative(pageDir, run.dir).split(sep).join("/") || ".";
  return { runId: run.report.runId, dir, config: run.config, totals };
}

/** Compares two run folders task by task; `pageDir` is where the page will be (the run folders' links are relative to it). */
export async function compareRuns(runDirA: string, runDirB: string, pageDir: string): Promise<RunComparison> {
  const [a, b] = [await loadRun(runDirA), await loadRun(runDirB)];
  const rowsA = new Map(a.report.perTask.map((t) => [`${t.tool}/${t.id}`, t]));
  const rowsB = new Map(b.report.perTask.map((t) => [`${t.tool}/${t.id}`, t]));
  const keys = [...new Set([...rowsA.keys(), ...rowsB.keys()])].sort();
  const tasks = keys.map((key) => {
    const [ra, rb] = [rowsA.get(key) ?? null, rowsB.get(key) ?? null];
    return { key, a: ra, b: rb, change: taskChange(ra, rb) };
  });
  const counts: Record<TaskChange, number> = { better: 0, worse: 0, changed: 0, same: 0, only_a: 0, only_b: 0 };
  for (const t of tasks) counts[t.change]++;
  return { a: comparedRun(a, pageDir), b: comparedRun(b, pageDir), tasks, counts };
}

/**
 * Writes the comparison page of two runs of the same dataset (`pincer report --compare A B`): per
 * task its score, state, steps, tokens and time in each run and how it changed, with filters
 * (better, worse, changed, all); tasks in one run only are listed as such. One self-contained page
 * like report.html. `outFile` defaults to `compare-<run A's id>.html` in run B's folder. Returns
 * the file written and the comparison.
 */
export async function writeRunComparison(runDirA: string, runDirB: string, outFile?: string): Promise<{ file: string; comparison: RunComparison }> {
  const file = resolve(outFile ?? join(runDirB, `compare-${basename(resolve(runDirA))}.html`));
  const comparison = await compareRuns(runDirA, runDirB, dirname(file));
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, runComparisonHtml(comparison));
  return { file, comparison };
}
