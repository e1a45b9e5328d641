import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { InvalidArgumentError } from "@pincer/shared";
import { buildReport, reportMarkdown, type Report } from "./report.js";
import { reportHtml, type ViewerTask } from "./reportHtml.js";
import { ResultStore, type Summary } from "./results.js";
import type { TrajectoryLine } from "./trajectory.js";

/** A task of a run, as the manifest lists it. */
export interface RunTaskRef {
  id: string;
  tool: string;
}

/** The lines of an attempt's trajectory.jsonl; a line that does not parse (a run killed mid-write) is left out. */
async function readTrajectory(dir: string): Promise<TrajectoryLine[]> {
  const file = join(dir, "trajectory.jsonl");
  if (!existsSync(file)) return [];
  const out: TrajectoryLine[] = [];
  for (const line of (await readFile(file, "utf8")).split("\n")) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as TrajectoryLine);
    } catch {
      // A partial last line.
    }
  }
  return out;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/** What the viewer shows of a task: its report row, the task's fields and its last attempt's trajectory. */
function viewerTask(row: Report["perTask"][number], summary: Summary, attempt: number, trajectory: TrajectoryLine[]): ViewerTask {
  const r = summary.results;
  return {
    ...row,
    key: `${row.tool}/${row.id}`,
    dir: `${row.tool}/${row.id}/attempt-${attempt}`,
    attempt,
    instruction: typeof summary.instruction === "string" ? summary.instruction : "",
    tags: strings(summary.tags),
    apps: strings(summary.related_apps),
    environments: Object.keys(r.environments ?? {}),
    agent: r.agent,
    model: r.model,
    agentState: r.agent_state,
    endReason: r.end_reason,
    evalReason: r.eval_reason,
    maxSteps: r.max_steps,
    inputTokens: r.input_tokens,
    outputTokens: r.output_tokens,
    timing: r.total_timing,
    recordings: r.recordings ?? {},
    trajectory,
  };
}

/**
 * Writes report.json, report.md and report.html of a run from every task's last finished attempt
 * (tasks without one are left out); each file atomically.
 */
export async function writeRunReport(store: ResultStore, runId: string, tasks: readonly RunTaskRef[]): Promise<Report> {
  const finals: Array<{ tool: string; summary: Summary; attempts: number; attempt: number }> = [];
  for (const task of tasks) {
    const finished = await store.finishedAttempts(task.tool, task.id);
    const last = finished.at(-1);
    if (last) finals.push({ tool: task.tool, summary: last.summary, attempts: finished.length, attempt: last.attempt });
  }
  const report = buildReport(runId, finals);
  await store.writeJsonAtomic(join(store.runDir, "report.json"), report);
  await store.writeTextAtomic(join(store.runDir, "report.md"), reportMarkdown(report));
  const viewerTasks: ViewerTask[] = [];
  for (const [i, f] of finals.entries()) {
    const trajectory = await readTrajectory(store.attemptDir(f.tool, f.summary.id, f.attempt));
    viewerTasks.push(viewerTask(report.perTask[i]!, f.summary, f.attempt, trajectory));
  }
  await store.writeTextAtomic(join(store.runDir, "report.html"), reportHtml(report, viewerTasks));
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
  let manifest: { run_id?: unknown; tasks?: unknown };
  try {
    manifest = JSON.parse(await readFile(manifestFile, "utf8"));
  } catch (err) {
    throw new InvalidArgumentError(`${manifestFile} is not valid JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(manifest.tasks)) throw new InvalidArgumentError(`${manifestFile} lists no tasks: is it a run's manifest?`);
  const runId = typeof manifest.run_id === "string" ? manifest.run_id : basename(dir);
  return writeRunReport(new ResultStore(dir), runId, manifest.tasks.filter(isTaskRef));
}

function isTaskRef(v: unknown): v is RunTaskRef {
  return !!v && typeof (v as RunTaskRef).id === "string" && typeof (v as RunTaskRef).tool === "string";
}
