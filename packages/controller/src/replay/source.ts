import { createHash } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { InvalidArgumentError } from "@pincer/shared";
import { type DatasetTask, type LoadDatasetOptions, loadDataset } from "../datasets/loader.js";
import type { Registries } from "../datasets/registries.js";
import { ResultStore, type Summary } from "../runFolder/results.js";
import { readManifest } from "../runFolder/runFiles.js";
import type { RunManifest } from "../runFolder/schemas.js";
import type { RunDataset } from "../runner/runner.js";
import type { TrajectoryLine } from "../runFolder/trajectory.js";
import { type RecordedTurn, recordedTurns, type ReplayTiming, timingOf } from "./replayAgent.js";

/** manifest.json of a run (its schema is in runFolder/schemas.ts). */
export type { RunManifest } from "../runFolder/schemas.js";

/**
 * manifest.json of a finished run. A folder that is not a run, or a run that has not finished (still
 * running, or interrupted), is an error saying what to do.
 */
export async function readRunManifest(runDir: string): Promise<RunManifest> {
  const dir = resolve(runDir);
  const file = join(dir, "manifest.json");
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new InvalidArgumentError(`${runDir} is not a folder; give a run folder (e.g. results/run-…)`);
  if (!existsSync(file)) {
    throw new InvalidArgumentError(`${runDir} is not a run folder: it has no manifest.json (a run folder is what pincer run writes, e.g. results/run-…)`);
  }
  const m = await readManifest(dir);
  const runId = m.run_id;
  if (!m.finished_at) {
    throw new InvalidArgumentError(
      `run ${runId} has not finished (its manifest.json has no finished_at): it is still running, or was interrupted; ` +
        `let it finish, or finish it with pincer run DATASET --resume --run-id ${runId}, then replay it`,
    );
  }
  return m;
}

/** A task of the recorded run, ready to replay: the task as the dataset has it now and its recorded attempt. */
export interface ReplayTask {
  task: DatasetTask;
  /** The last finished attempt of the recorded run (the one its report counts). */
  attempt: number;
  /** In a run of several rollouts per task: the rollout replayed (the first with a finished attempt). */
  rollout?: number;
  summary: Summary;
  trajectory: TrajectoryLine[];
  turns: RecordedTurn[];
  timing: ReplayTiming;
  /** The task's file is not what the run had (its SHA-256 differs). */
  changed: boolean;
}

/** A finished run, loaded for a replay. */
export interface ReplaySource {
  runId: string;
  /** The run folder, absolute. */
  runDir: string;
  manifest: RunManifest;
  /** Where the tasks were loaded from now. */
  dataset: RunDataset;
  tasks: ReplayTask[];
  /** What the replay must say: changed tasks, waits that older runs did not record, tasks left out. */
  warnings: string[];
  /** The screen size the recorded attempts saw, from their screenshots; undefined without any. */
  screen?: { width: number; height: number };
}

/** Options of {@link loadReplaySource}. */
export interface ReplaySourceOptions {
  /** The registries of the formats the dataset was loaded with (see manifest.dataset.formats). */
  registries: Registries;
  /** Load the tasks from this folder instead of the one the run recorded (a dataset that moved). */
  dataset?: string;
  /** Only these tasks of the run: ids or tool/id, with * and ?. @default all */
  tasks?: readonly string[];
  importModule?: LoadDatasetOptions["importModule"];
}

/** The deepest folder that holds all of `files`. */
function commonFolder(files: readonly string[]): string | undefined {
  if (files.length === 0) return undefined;
  let parts = dirname(resolve(files[0]!)).split(sep);
  for (const f of files.slice(1)) {
    const other = dirname(resolve(f)).split(sep);
    let i = 0;
    while (i < parts.length && parts[i] === other[i]) i++;
    parts = parts.slice(0, i);
  }
  return parts.join(sep) || sep;
}

/** Where to load the run's tasks from, and a warning when the run did not record it. */
function datasetOf(manifest: RunManifest, given: string | undefined, warnings: string[]): RunDataset {
  const formats = manifest.dataset?.formats ?? [];
  if (given) return { root: resolve(given), formats };
  if (manifest.dataset) return manifest.dataset;
  const root = commonFolder(manifest.tasks.map((t) => t.file).filter((f): f is string => typeof f === "string"));
  if (!root) throw new InvalidArgumentError(`run ${manifest.run_id} records neither its dataset nor its task files: give the dataset with --dataset DIR`);
  warnings.push(`run ${manifest.run_id} does not record its dataset folder (written before Pincer recorded it): tasks are loaded from ${root}`);
  return { root, formats };
}

const glob = (p: string) =>
  new RegExp(
    `^${p
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")}$`,
  );

/** The manifest's tasks that `patterns` name; a pattern that names none is an error. */
function pickTasks(manifest: RunManifest, patterns: readonly string[]): RunManifest["tasks"] {
  if (patterns.length === 0) return manifest.tasks;
  const res = patterns.map((p) => ({ p, re: glob(p) }));
  const hit = (t: RunManifest["tasks"][number], re: RegExp) => re.test(t.id) || re.test(`${t.tool}/${t.id}`);
  const unmatched = res.filter(({ re }) => !manifest.tasks.some((t) => hit(t, re))).map(({ p }) => JSON.stringify(p));
  if (unmatched.length > 0) {
    const known = manifest.tasks.slice(0, 6).map((t) => `${t.tool}/${t.id}`);
    throw new InvalidArgumentError(
      `--task ${unmatched.join(", ")} matches no task of run ${manifest.run_id} (its tasks: ${known.join(", ")}${manifest.tasks.length > 6 ? ", …" : ""})`,
    );
  }
  return manifest.tasks.filter((t) => res.some(({ re }) => hit(t, re)));
}

async function sha256Of(file: string): Promise<string | undefined> {
  return readFile(file).then(
    (b) => createHash("sha256").update(b).digest("hex"),
    () => undefined,
  );
}

/** The first geometry of a recorded screenshot's screen. */
function screenOf(tasks: readonly ReplayTask[]): { width: number; height: number } | undefined {
  for (const t of tasks) {
    for (const line of t.trajectory) {
      const g = Object.values(line.screenshot_geometry ?? {})[0];
      if (g) return { width: g.screen.width, height: g.screen.height };
    }
  }
  return undefined;
}

/** The attempt a replay plays of a task: its last finished one, or in a run of several rollouts the last of its first rollout that finished. */
async function lastAttemptToReplay(store: ResultStore, ref: { tool: string; id: string }) {
  for (const rollout of await store.rolloutsOf(ref.tool, ref.id)) {
    const last = (await store.forRollout(rollout).finishedAttempts(ref.tool, ref.id)).at(-1);
    if (last) return { rollout, last };
  }
  return { rollout: undefined, last: (await store.finishedAttempts(ref.tool, ref.id)).at(-1) };
}

/**
 * Loads a finished run for a replay: its manifest, the tasks it ran as the dataset has them now
 * (from the folder the run recorded, or `opts.dataset`), and each task's last finished attempt with
 * its recorded turns. A dataset that is gone, or a task no longer in it, is an error saying what to
 * do; a task whose file changed since the run is replayed with a warning.
 */
export async function loadReplaySource(runDir: string, opts: ReplaySourceOptions): Promise<ReplaySource> {
  const manifest = await readRunManifest(runDir);
  const warnings: string[] = [];
  const dataset = datasetOf(manifest, opts.dataset, warnings);
  if (!existsSync(dataset.root)) {
    throw new InvalidArgumentError(
      `the dataset run ${manifest.run_id} came from, ${dataset.root}, is gone: restore it, or give the folder it lives in now with --dataset DIR`,
    );
  }
  const loaded = await loadDataset(dataset.root, opts.registries, opts.importModule ? { importModule: opts.importModule } : {});
  const store = new ResultStore(resolve(runDir));
  const tasks: ReplayTask[] = [];
  const missing: string[] = [];
  for (const ref of pickTasks(manifest, opts.tasks ?? [])) {
    const key = `${ref.tool}/${ref.id}`;
    const found = loaded.tasks.find((t) => t.tool === ref.tool && t.id === ref.id) ?? loaded.tasks.find((t) => t.id === ref.id);
    if (!found) {
      missing.push(key);
      continue;
    }
    const { rollout, last } = await lastAttemptToReplay(store, ref);
    if (!last) {
      warnings.push(`${key} has no finished attempt in run ${manifest.run_id}: left out`);
      continue;
    }
    const hash = ref.sha256 ? await sha256Of(found.file) : undefined;
    const changed = hash !== undefined && hash !== ref.sha256;
    if (changed) warnings.push(`${key} changed since the run (${found.file} is not the file it ran): the replay runs the task as it is now`);
    const trajectory = await store.forRollout(rollout).readTrajectory(ref.tool, ref.id, last.attempt);
    const turns = recordedTurns(trajectory);
    const task = { ...found, tool: ref.tool };
    tasks.push({ task, attempt: last.attempt, ...(rollout ? { rollout } : {}), summary: last.summary, trajectory, turns, timing: timingOf(turns), changed });
  }
  if (tasks.some((t) => t.rollout !== undefined)) {
    warnings.push(`run ${manifest.run_id} has several rollouts per task: the replay plays each task's first rollout that finished`);
  }
  if (missing.length > 0) {
    throw new InvalidArgumentError(
      `${missing.length} task(s) of run ${manifest.run_id} are not in the dataset at ${dataset.root} now: ${missing.join(", ")} ` +
        `(removed, renamed or no longer valid: pincer validate ${dataset.root} says which); restore them, give the dataset's folder with ` +
        "--dataset DIR, or leave them out with --task",
    );
  }
  if (tasks.length === 0) throw new InvalidArgumentError(`no task of run ${manifest.run_id} has a finished attempt to replay`);
  const older = tasks.filter((t) => t.timing === "model_ms").map((t) => `${t.task.tool}/${t.task.id}`);
  if (older.length > 0) {
    warnings.push(
      `${older.length} task(s) were recorded before Pincer kept each step's time (${older.slice(0, 3).join(", ")}${older.length > 3 ? ", …" : ""}): ` +
        "each turn waits its recorded model time instead",
    );
  }
  const screen = screenOf(tasks);
  return { runId: manifest.run_id, runDir: resolve(runDir), manifest, dataset, tasks, warnings, ...(screen ? { screen } : {}) };
}
