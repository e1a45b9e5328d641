import { setMaxListeners } from "node:events";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { InvalidArgumentError } from "@pincer/shared";
import type { Agent, AgentAttempt } from "../agents/types.js";
import type { DatasetTask } from "../datasets/loader.js";
import type { Registries } from "../datasets/registries.js";
import { DEFAULT_SETTLE } from "../benchmark/screenObservation.js";
import { Attempt, environmentsOf } from "./attempt.js";
import { only } from "./taskBuilder.js";
import { runSettingsOf, runSettingsRecord, type RunSettings } from "./settings.js";
import type { MachinePool, MachineSlot } from "../machines/provider.js";
import { ProgressTracker, type RunProgress } from "./progress.js";
import type { Report } from "../reports/report.js";
import { isInfraState, ResultStore, type Summary } from "../runFolder/results.js";
import { finishManifest, readManifest, startManifest } from "../runFolder/runFiles.js";
import type { ManifestSettings } from "../runFolder/schemas.js";
import { writeRunReport } from "../reports/writeReports.js";
import { ownProcesses } from "./ownProcesses.js";
import type { LiveBoard } from "./liveBoard.js";

export type { RunProgress } from "./progress.js";
export { taskFields } from "./attempt.js";
export { only } from "./taskBuilder.js";
export { maxStepsFor } from "./settings.js";

/**
 * Options of {@link runTasks}: the tasks, the machines, the agent, where results go, and the run's
 * settings ({@link RunSettings}, each defaulted when not given: see DEFAULT_RUN_SETTINGS).
 */
export interface RunnerOptions extends Partial<RunSettings> {
  tasks: readonly DatasetTask[];
  /** The dataset formats (each task is built by the one that loaded it) and the JSON task format's functions. */
  registries: Registries;
  pool: MachinePool;
  /**
   * A fresh agent for each attempt; `at` says which rollout (1 … `rollouts`; 1 in a run of one) and
   * which attempt of it the agent is made for (factories that make the same agent each time ignore it).
   */
  agentFor(task: DatasetTask, at: AgentAttempt): Agent;
  /** Folder that holds run folders. @default "results" */
  outDir?: string;
  /** Name of this run's folder. @default run-<UTC timestamp> */
  runId?: string;
  /** Continue the run in `<outDir>/<runId>`: finished tasks are kept, unfinished ones redone. */
  resume?: boolean;
  /**
   * Where the tasks were loaded from, recorded in manifest.json so that `pincer replay` can load
   * them again: the dataset folder (or task file) and the `--format` modules, as absolute paths.
   */
  dataset?: RunDataset;
  /** The run this run replays (`pincer replay`), recorded in manifest.json as `replay_of`. */
  replayOf?: { runId: string; runDir: string };
  signal?: AbortSignal;
  onProgress?(p: RunProgress): void;
  /** The run's live view (`--live`): each slot's attempts are shown there, and a person may take a slot over. One slot of the board per slot of the pool. */
  live?: LiveBoard;
}

/** Where a run's tasks came from (see {@link RunnerOptions.dataset}). */
export interface RunDataset {
  /** The folder (or single task file) the dataset was loaded from. */
  root: string;
  /** Modules of extra dataset formats it was loaded with. */
  formats: string[];
}

/** The SHA-256 of a task's file, so that a later reader can tell that it changed; undefined when it cannot be read. */
export function taskFileHash(file: string): string | undefined {
  try {
    return createHash("sha256").update(readFileSync(file)).digest("hex");
  } catch {
    return undefined;
  }
}

/**
 * The wait before each turn's screenshots for agents that look at them: 300 ms without a change;
 * while nothing has changed since the screen the agent last saw, up to 1.5 s for a program slow to
 * start drawing; at most 5 s. `npm run bench -- settle` measures it against a fixed 2 s sleep.
 */
export { DEFAULT_SETTLE };

/** A new run's id: `run-<UTC time>`, e.g. run-20261126-025456. */
export function newRunId(): string {
  return `run-${new Date().toISOString().replace(/[-:]/g, "").replace(/\..+/, "").replace("T", "-")}`;
}

/** Resets the slot's machines (see MachineSlot.reset); a failure is returned, not thrown. */
async function resetSlot(
  slot: MachineSlot,
  names: readonly string[],
  signal: AbortSignal,
): Promise<{ ok: true; machines?: Awaited<ReturnType<NonNullable<MachineSlot["reset"]>>> } | { ok: false; error: string }> {
  if (!slot.reset) return { ok: true };
  try {
    return { ok: true, machines: await slot.reset(names, signal) };
  } catch (err) {
    signal.throwIfAborted();
    return { ok: false, error: `resetting the machines: ${(err as Error).message}` };
  }
}

/**
 * The run's folder, checked against `resume` and `runId` without touching anything: a run to
 * resume must be named and exist, a new run must not overwrite one. Throws InvalidArgumentError
 * naming the runs there are. Call it before starting machines.
 */
export function runDirOf(opts: Pick<RunnerOptions, "outDir" | "runId" | "resume">): { runId: string; runDir: string } {
  const outDir = resolve(opts.outDir ?? "results");
  const runs = () => {
    const names = existsSync(outDir)
      ? readdirSync(outDir)
          .filter((n) => existsSync(join(outDir, n, "manifest.json")))
          .sort()
      : [];
    return names.length ? `the runs in ${outDir}: ${names.slice(-5).join(", ")}${names.length > 5 ? ", …" : ""}` : `${outDir} holds no run`;
  };
  if (opts.resume && !opts.runId) throw new InvalidArgumentError(`resume: name the run to continue with --run-id (runId); ${runs()}`);
  const runId = opts.runId ?? newRunId();
  const runDir = join(outDir, runId);
  if (opts.resume && !existsSync(runDir)) throw new InvalidArgumentError(`resume: ${runDir} does not exist; ${runs()}`);
  if (!opts.resume && existsSync(join(runDir, "manifest.json"))) {
    throw new InvalidArgumentError(`${runDir} already holds a run; pass --resume to continue it or choose another --run-id`);
  }
  return { runId, runDir };
}

/** The run's folder, checked as {@link runDirOf} checks it, and created. */
export async function openRunDir(opts: Pick<RunnerOptions, "outDir" | "runId" | "resume">): Promise<{ runId: string; runDir: string }> {
  const dir = runDirOf(opts);
  await mkdir(dir.runDir, { recursive: true });
  return dir;
}

/** Task ids are unique, and every task's environments exist in every slot. */
function checkTasks(tasks: readonly DatasetTask[], pool: MachinePool): void {
  const ids = new Set<string>();
  for (const t of tasks) {
    if (ids.has(t.id)) throw new InvalidArgumentError(`two tasks have the id ${t.id}`);
    ids.add(t.id);
  }
  for (const t of tasks) {
    for (const name of environmentsOf(t)) {
      if (!pool.slots[0]?.envs[name]) {
        throw new InvalidArgumentError(`task ${t.id} needs an environment named ${name}; give it with --env ${name}=host:port`);
      }
    }
  }
}

/** A resumed run keeps its rollouts: its folders are laid out by them. Throws InvalidArgumentError naming the run's. */
export async function checkResumedRollouts(runDir: string, rollouts: number): Promise<void> {
  if (!existsSync(join(runDir, "manifest.json"))) return;
  const before = (await readManifest(runDir)).rollouts ?? 1;
  if (before !== rollouts) {
    throw new InvalidArgumentError(`resume: ${runDir} was run with --rollouts ${before}, not ${rollouts}; resume it with --rollouts ${before}`);
  }
}

/** manifest.json's settings of a local run (see buildManifest for its times and the resume rule). */
function manifestOf(opts: RunnerOptions, runId: string, attempts: number): ManifestSettings {
  return {
    run_id: runId,
    // Where the machines come from and how they are reset (file names only, no secrets).
    provider: opts.pool.provider,
    slots: opts.pool.slots.map((s) => ({ ...s.addresses })),
    ...runSettingsRecord({ ...runSettingsOf(opts), attempts }),
    ...(opts.dataset ? { dataset: opts.dataset } : {}),
    ...(opts.replayOf ? { replay_of: { run_id: opts.replayOf.runId, run_dir: opts.replayOf.runDir } } : {}),
    tasks: opts.tasks.map((t) => {
      const sha256 = taskFileHash(t.file);
      return { id: t.id, tool: t.tool, file: t.file, ...(sha256 ? { sha256 } : {}) };
    }),
  };
}

/**
 * A unit of a run's work: one rollout of a task. `rollout` is undefined in a run of one rollout per
 * task (its attempts are the task's own, `<tool>/<id>/attempt-<n>/`), else 1 … N
 * (`<tool>/<id>/rollout-<r>/attempt-<n>/`).
 */
export interface WorkUnit {
  task: DatasetTask;
  rollout?: number;
}

/** Every rollout of every task, each task's rollouts one after another (so that slots take a task's rollouts at once); the tasks with one. */
export function workUnits(tasks: readonly DatasetTask[], rollouts: number): WorkUnit[] {
  if (rollouts <= 1) return tasks.map((task) => ({ task }));
  return tasks.flatMap((task) => Array.from({ length: rollouts }, (_, i) => ({ task, rollout: i + 1 })));
}

/**
 * The units still to run: all but those an earlier run ended with a verdict. A rollout whose last
 * attempt ended in an infrastructure error runs again (see {@link lastAttemptOf}); `kept` hears of
 * each one kept.
 */
export async function pendingUnits(units: readonly WorkUnit[], store: ResultStore, kept?: (state: Summary["results"]["state"]) => void): Promise<WorkUnit[]> {
  const queue: WorkUnit[] = [];
  for (const unit of units) {
    const last = (await store.forRollout(unit.rollout).finishedAttempts(unit.task.tool, unit.task.id)).at(-1)?.summary;
    if (last && !isInfraState(last.results.state)) kept?.(last.results.state);
    else queue.push(unit);
  }
  return queue;
}

/**
 * The last attempt number a task may use in this run, after `previous` attempts an earlier run of
 * it finished: an interrupted task finishes its `attempts`; one whose attempts were all used up by
 * infrastructure errors (the cause since fixed, as the run's exit message asks) gets `attempts` more.
 */
function lastAttemptOf(previous: number, attempts: number): number {
  return previous < attempts ? attempts : previous + attempts;
}

/** What every task of a run shares. */
interface RunContext {
  opts: RunnerOptions;
  /** The run's settings, defaults filled in. */
  settings: RunSettings;
  store: ResultStore;
  signal: AbortSignal;
}

/** What one attempt needs besides its task and slot: the run's settings, the dataset formats and the agent. */
export type AttemptSettings = Omit<RunSettings, "rollouts"> & Partial<Pick<RunSettings, "rollouts">> & Pick<RunnerOptions, "registries" | "agentFor">;

/** Where a live view shows an attempt: the board and the slot's place on it. */
export interface LiveSlot {
  board: LiveBoard;
  slot: number;
}

/**
 * Runs attempt `n` of `task` (of its rollout `rollout`, in a run of several) on `slot` (its machines
 * reset first) and writes the attempt's folder under `store` with its summary.json, which it
 * returns; `live` shows it on a live view's slot. An interruption (the signal) throws and leaves
 * the attempt without a summary.
 */
export async function runOneAttempt(
  settings: AttemptSettings,
  runStore: ResultStore,
  slot: MachineSlot,
  task: DatasetTask,
  n: number,
  signal: AbortSignal,
  rollout?: number,
  live?: LiveSlot,
): Promise<Summary> {
  const store = runStore.forRollout(rollout);
  // A clean machine for every attempt; a failed reset is the machine's failure (env_error, retried).
  const reset = await resetSlot(slot, environmentsOf(task), signal);
  const { registries, agentFor, ...run } = settings;
  // Only the machines the task names: no tools, screenshots or version checks for the others.
  const own = ownProcesses(only(slot.envs, environmentsOf(task)));
  const shown = { id: task.id, instruction: task.instruction, attempt: n, ...(rollout !== undefined ? { rollout } : {}) };
  const onBoard = live?.board.attempt(live.slot, { task: shown, envs: own.envs });
  const attempt = new Attempt({
    task,
    attempt: n,
    ...(rollout !== undefined ? { rollout } : {}),
    envs: own.envs,
    addresses: only(slot.addresses, environmentsOf(task)),
    ...(reset.ok ? { reset: reset.machines } : { resetError: reset.error }),
    registries,
    agent: agentFor(task, { rollout: rollout ?? 1, attempt: n }),
    settings: runSettingsOf(run),
    store,
    signal,
    ...(onBoard ? { live: onBoard } : {}),
  });
  // An interrupted attempt (no summary) leaves the live view too; one that finished has left it already.
  const summary = await attempt.run().catch((err: unknown) => {
    onBoard?.ended({ state: "interrupted", score: 0 });
    throw err;
  });
  // What the attempt started is stopped, so the next task on the slot starts clean; nothing else.
  await own.stop();
  return summary;
}

/**
 * Runs the attempts of one task (one rollout of it) on a slot, after those an earlier run finished,
 * until one ends without an infrastructure error or none are left; writes each one's summary.json.
 */
async function runTaskAttempts(ctx: RunContext, slot: MachineSlot, { task, rollout }: WorkUnit, live?: LiveSlot): Promise<Summary | undefined> {
  const { store, signal } = ctx;
  let final: Summary | undefined;
  const previous = (await store.forRollout(rollout).finishedAttempts(task.tool, task.id)).at(-1)?.attempt ?? 0;
  const last = lastAttemptOf(previous, ctx.settings.attempts);
  const settings = { ...ctx.settings, registries: ctx.opts.registries, agentFor: ctx.opts.agentFor };
  for (let n = previous + 1; n <= last; n++) {
    final = await runOneAttempt(settings, store, slot, task, n, signal, rollout, live);
    if (!isInfraState(final.results.state)) break;
    // A machine that just failed often needs a moment (a link coming back, a daemon restarting).
    if (n < last) await backoff(n - previous, signal);
  }
  return final;
}

/** Waits before retry `n + 1`: 1 s, 2 s, 4 s … at most 15 s; ends early when the run is interrupted. */
export function backoff(n: number, signal: AbortSignal, baseMs = 1_000): Promise<void> {
  const ms = Math.min(15_000, baseMs * 2 ** (n - 1));
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** One slot's worker: takes units (tasks, or rollouts of tasks) from the queue until it is empty. */
async function runSlot(ctx: RunContext, slot: MachineSlot, queue: WorkUnit[], progress: ProgressTracker, live?: LiveSlot): Promise<void> {
  for (let unit = queue.shift(); unit; unit = queue.shift()) {
    ctx.signal.throwIfAborted();
    progress.started();
    const t0 = Date.now();
    const final = await runTaskAttempts(ctx, slot, unit, live);
    const name = unit.rollout === undefined ? unit.task.id : `${unit.task.id} rollout ${unit.rollout}`;
    progress.finished(name, final, Date.now() - t0, queue.length);
  }
}

/**
 * Runs tasks over the pool's slots (one task per slot at a time; with `rollouts` N > 1, N rollouts
 * of each, each its own unit of work), retrying infrastructure errors up to `attempts` (per
 * rollout), writing one result folder per run, and a report at the end.
 */
export async function runTasks(opts: RunnerOptions): Promise<{ runDir: string; report: Report }> {
  const { runId, runDir } = await openRunDir(opts);
  const store = new ResultStore(runDir);
  const settings = runSettingsOf(opts);
  const { attempts } = settings;
  const signal = opts.signal ?? new AbortController().signal;
  // Every call of every attempt under way listens to it: many at once is its use, not a leak.
  setMaxListeners(0, signal);
  checkTasks(opts.tasks, opts.pool);
  if (opts.resume) await checkResumedRollouts(runDir, settings.rollouts);
  const manifest = await startManifest(runDir, manifestOf(opts, runId, attempts), opts.resume ?? false);

  const units = workUnits(opts.tasks, settings.rollouts);
  const progress = new ProgressTracker(units.length, opts.pool.slots.length, opts.onProgress);
  const queue = await pendingUnits(units, store, (state) => progress.skipped(state));
  progress.report();
  const ctx: RunContext = { opts, settings, store, signal };
  const { live } = opts;
  await Promise.all(opts.pool.slots.map((slot, i) => runSlot(ctx, slot, queue, progress, live ? { board: live, slot: i } : undefined)));

  const report = await writeRunReport(store, runId, opts.tasks);
  await finishManifest(runDir, manifest);
  return { runDir, report };
}
