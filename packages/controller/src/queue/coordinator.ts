import { existsSync, readFileSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { Queue } from "bullmq";
import { InvalidArgumentError, pause } from "@pincer/shared";
import type { DatasetTask } from "../datasets/format.js";
import type { Registries } from "../datasets/registries.js";
import type { Report } from "../reports/report.js";
import { ResultStore } from "../runFolder/results.js";
import { finishManifest, startManifest } from "../runFolder/runFiles.js";
import { runSettingsOf, runSettingsRecord } from "../runner/settings.js";
import type { ManifestSettings } from "../runFolder/schemas.js";
import { checkResumedRollouts, newRunId, openRunDir, taskFileHash, type WorkUnit, workUnits } from "../runner/runner.js";
import { writeRunReport } from "../reports/writeReports.js";
import { MAX_ARTIFACT_BYTES, MAX_BUNDLE_BYTES, packFiles } from "./bundle.js";
import { activeAttemptOf, type CoordinatorState, finalizeFailedJobs, type GatherContext, type QueueProgress, readResults } from "./gather.js";
import { DEFAULT_QUEUE_NAME, jobIdOf, queueFor, RUN_TTL_SECONDS, runKeys, taskKeyOf, type QueuedSettings, type TaskJob, unitKeyOf } from "./protocol.js";
import { issuesOf, queuedSettingsSchema } from "./records.js";
import { reopenInfraErrors } from "./resume.js";
import { openRedis, redacted, type redisConnection } from "./redis.js";
import { checkQueueKey, sha256Hex, sign } from "./signing.js";

export type { QueueProgress } from "./gather.js";

/** Options of {@link runOnQueue}. */
export interface QueueRunOptions {
  /** The queue's Redis (see redisConnection). */
  url: string;
  /** The queue's key (see readQueueKey): every job is signed with it, and only results signed with it are taken. */
  key: Uint8Array;
  /** @default "pincer-tasks" */
  queueName?: string;
  tasks: readonly DatasetTask[];
  /** The formats that read the tasks (each task's files are found through its format). */
  registries: Registries;
  /** The dataset's root folder: a task's files travel with their paths relative to it. */
  datasetRoot: string;
  /** Modules of extra dataset formats the tasks were loaded with, recorded in manifest.json for `pincer replay`. @default [] */
  datasetFormats?: readonly string[];
  settings: QueuedSettings;
  /** Folder that holds run folders. @default "results" */
  outDir?: string;
  runId?: string;
  /**
   * The run's name in the queue (its Redis keys and job ids), when it must differ from `runId`:
   * names that repeat between runs (a health check's `solution-1`) get one unique to this run. @default runId
   */
  queueId?: string;
  /**
   * Continue the run `runId` (its coordinator stopped, or it ended): what the workers finished
   * meanwhile is gathered, tasks that ended in infrastructure errors run again, tasks with a
   * verdict are kept.
   */
  resume?: boolean;
  /** Largest bundle of one task's files, in bytes. @default 64 MiB */
  maxBundleBytes?: number;
  /** Largest attempt folder taken from a worker, in bytes (a larger one is refused as it unpacks: that attempt's env_error). @default 256 MiB */
  maxArtifactBytes?: number;
  /** How often the results are read. @default 250 */
  pollMs?: number;
  onProgress?: (p: QueueProgress) => void;
  signal?: AbortSignal;
}

/** The files of a task, relative to the dataset's root, through its format. */
function taskFiles(task: DatasetTask, registries: Registries, root: string): string[] {
  const format = registries.formats.get(task.kind);
  const files = format?.files?.(task);
  if (files) return files.map((f) => relative(root, f));
  return [relative(root, task.dir)];
}

/**
 * Runs tasks through a queue (BullMQ on Redis): one job per task, keyed by run and task (putting a
 * run twice adds nothing), run by `pincer worker`s on any host; every attempt's result and folder
 * comes back through Redis into the run folder here, as a local run writes it, with the reports.
 * Nothing is lost and nothing counted twice: an attempt whose worker stopped is recorded as an
 * env_error and the task runs again elsewhere; a worker that lost its task cannot have its late
 * attempt counted; `resume` continues a run (its coordinator stopped, or tasks ended in infrastructure
 * errors: they run again) without redoing a task that has a verdict.
 * Jobs are signed with `key`; a result is taken only when signed with it and whole (see gather.ts):
 * any other becomes that attempt's env_error, and the run goes on.
 */
export async function runOnQueue(opts: QueueRunOptions): Promise<{ runDir: string; report: Report }> {
  checkQueueKey(opts.key);
  // What a job may carry, before anything is made: no endpoint, key, file or command.
  const settings = queuedSettingsSchema.safeParse(opts.settings);
  if (!settings.success) {
    throw new InvalidArgumentError(
      `a queue run's settings carry names and numbers only (${issuesOf(settings.error)}): the model's endpoint and key are each worker's own ` +
        "(pincer worker --base-url, or OPENAI_BASE_URL / ANTHROPIC_BASE_URL, and the key in its environment); a price is a table",
    );
  }
  // The queue first: a Redis that cannot be reached leaves no run folder behind.
  const redis = await openRedis(opts.url);
  const { rollouts: perTask } = runSettingsOf(opts.settings);
  const opened = async () => {
    const dir = await openRunDir({ ...(opts.outDir ? { outDir: opts.outDir } : {}), runId: opts.runId ?? newRunId(), resume: opts.resume ?? false });
    if (opts.resume) await checkResumedRollouts(dir.runDir, perTask);
    return dir;
  };
  const { runId, runDir } = await opened().catch((err: unknown) => {
    redis.disconnect();
    throw err;
  });
  const store = new ResultStore(runDir);
  const queueId = opts.queueId ?? runId;
  const keys = runKeys(queueId);
  const queueName = opts.queueName ?? DEFAULT_QUEUE_NAME;
  const queues = new Map<string, Queue<TaskJob>>();
  for (const t of opts.tasks) {
    const name = queueFor(queueName, t.environments);
    if (!queues.has(name)) queues.set(name, new Queue<TaskJob>(name, { connection: redis }));
  }
  const stateFile = join(runDir, "queue.json");
  const state: CoordinatorState = existsSync(stateFile) ? JSON.parse(await readFile(stateFile, "utf8")) : { cursor: 0, final: {} };
  // One job per task, or with several rollouts per task one per rollout (each its own unit, under its own key).
  const units = workUnits(opts.tasks, perTask);
  const byKey = new Map(units.map((u) => [unitKeyOf(u.task, u.rollout), u.task]));
  const rollouts = new Map(units.flatMap((u) => (u.rollout === undefined ? [] : [[unitKeyOf(u.task, u.rollout), u.rollout] as const])));
  const manifest = await startManifest(runDir, queueManifest(opts, { runId, queueId, queueName }), opts.resume ?? false);
  try {
    const progress: QueueProgress = {
      total: units.length,
      done: Object.keys(state.final).length,
      running: [],
      byWorker: {},
      lost: 0,
      refused: 0,
      unserved: [],
    };
    const ctx: GatherContext = {
      key: opts.key,
      maxArtifactBytes: opts.maxArtifactBytes ?? MAX_ARTIFACT_BYTES,
      onProgress: opts.onProgress,
      store,
      redis,
      queues,
      keys,
      runId: queueId,
      state,
      stateFile,
      byKey,
      rollouts,
      progress,
    };
    // A resumed run runs again the tasks that ended in infrastructure errors, as a local resume does.
    if (opts.resume) await reopenInfraErrors(ctx, queueName);
    progress.done = Object.keys(state.final).length;
    await enqueue(opts, units, queues, redis, queueId, state);
    await gatherUntilDone(opts, ctx);
    const report = await writeRunReport(store, runId, opts.tasks);
    await finishManifest(runDir, manifest);
    await Promise.all(opts.tasks.map((t) => redis.del(keys.bundle(taskKeyOf(t)))));
    return { runDir, report };
  } finally {
    await Promise.all([...queues.values()].map((q) => q.close()));
    redis.disconnect();
  }
}

/** Reads results until every unit (task, or rollout of one) has its final attempt; every 2 s, finds failed jobs and reports progress. */
async function gatherUntilDone(opts: QueueRunOptions, ctx: GatherContext): Promise<void> {
  const { state, redis, keys, progress } = ctx;
  let lastFailureCheck = 0;
  const total = ctx.byKey.size;
  while (Object.keys(state.final).length < total) {
    opts.signal?.throwIfAborted();
    await readResults(ctx);
    if (Date.now() - lastFailureCheck > 2_000) {
      lastFailureCheck = Date.now();
      await finalizeFailedJobs(ctx);
      progress.unserved = await unservedQueues(opts, ctx);
      progress.running = Object.entries(await redis.hgetall(keys.active)).flatMap(([task, v]) => {
        const a = activeAttemptOf(v);
        return a ? [{ task, worker: a.worker, attempt: a.attempt }] : [];
      });
      opts.onProgress?.({ ...progress, done: Object.keys(state.final).length });
    }
    if (Object.keys(state.final).length < total) await pause(opts.pollMs ?? 250, opts.signal);
  }
}

/** manifest.json's settings of a queue run (startManifest adds its times, and keeps when a resumed run began). */
function queueManifest(opts: QueueRunOptions, run: { runId: string; queueId: string; queueName: string }): ManifestSettings {
  const { runId, queueId, queueName } = run;
  return {
    run_id: runId,
    queue: { url: redacted(opts.url), name: queueName, ...(queueId !== runId ? { run: queueId } : {}) },
    ...runSettingsRecord(runSettingsOf(opts.settings)),
    agent: opts.settings.agent,
    dataset: { root: resolve(opts.datasetRoot), formats: (opts.datasetFormats ?? []).map((f) => resolve(f)) },
    tasks: opts.tasks.map((t) => {
      const sha256 = taskFileHash(t.file);
      return { id: t.id, tool: t.tool, file: t.file, ...(sha256 ? { sha256 } : {}) };
    }),
  };
}

/**
 * Sends each unfinished unit's task files (once per task: its rollouts share them) and adds its job
 * to its environments' queue (a job that exists already is left as it is).
 */
async function enqueue(
  opts: QueueRunOptions,
  units: readonly WorkUnit[],
  queues: Map<string, Queue<TaskJob>>,
  redis: ReturnType<typeof redisConnection>,
  runId: string,
  state: CoordinatorState,
): Promise<void> {
  const keys = runKeys(runId);
  const root = statSync(opts.datasetRoot).isDirectory() ? opts.datasetRoot : dirname(opts.datasetRoot);
  const moduleType = moduleTypeAt(root);
  const jobs = new Map<string, Parameters<Queue<TaskJob>["addBulk"]>[0]>();
  const bundles = new Map<string, string>();
  // A job names the rollout it runs, not how many the run has: a worker runs one (and workers without rollouts take it).
  const { rollouts: _all, ...settings } = opts.settings;
  for (const { task, rollout } of units) {
    const unitKey = unitKeyOf(task, rollout);
    if (state.final[unitKey] !== undefined) continue;
    const taskKey = taskKeyOf(task);
    if (!bundles.has(taskKey)) {
      const bundle = await packFiles(root, {
        files: await expandDirs(root, taskFiles(task, opts.registries, root)),
        maxBytes: opts.maxBundleBytes ?? MAX_BUNDLE_BYTES,
        what: `the files of task ${taskKey}`,
        limitFlag: "runOnQueue's maxBundleBytes",
      });
      await redis.set(keys.bundle(taskKey), bundle, "EX", RUN_TTL_SECONDS);
      bundles.set(taskKey, sha256Hex(bundle));
    }
    const environments = [...task.environments];
    const data: TaskJob = sign(opts.key, "job", {
      runId,
      taskKey: unitKey,
      ...(rollout === undefined ? {} : { rollout }),
      taskId: task.id,
      environments,
      format: task.kind,
      bundle: keys.bundle(taskKey),
      bundleSha256: bundles.get(taskKey)!,
      moduleType,
      settings,
      issuedAt: Date.now(),
    });
    const queue = queueFor(opts.queueName ?? DEFAULT_QUEUE_NAME, environments);
    if (!jobs.has(queue)) jobs.set(queue, []);
    jobs.get(queue)!.push({
      name: unitKey,
      data,
      opts: {
        jobId: jobIdOf(runId, unitKey),
        attempts: opts.settings.attempts,
        backoff: { type: "exponential", delay: 1_000 },
        removeOnComplete: { age: RUN_TTL_SECONDS },
        removeOnFail: { age: RUN_TTL_SECONDS },
      },
    });
  }
  for (const [name, list] of jobs) await queues.get(name)!.addBulk(list);
}

/**
 * How Node reads the dataset's `.js`/`.ts` files: the "type" of the nearest package.json above it
 * (`commonjs` without one), which the worker gives the unpacked files so they load the same way.
 */
function moduleTypeAt(root: string): "module" | "commonjs" {
  for (let dir = resolve(root); ; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      try {
        return (JSON.parse(readFileSync(file, "utf8")) as { type?: string }).type === "module" ? "module" : "commonjs";
      } catch {
        return "commonjs";
      }
    }
    if (dirname(dir) === dir) return "commonjs";
  }
}

/** Files and folders relative to `root`, folders replaced by the files under them. */
async function expandDirs(root: string, paths: readonly string[]): Promise<string[]> {
  const { readdir, stat } = await import("node:fs/promises");
  const out: string[] = [];
  const walk = async (rel: string) => {
    const abs = join(root, rel);
    if (!(await stat(abs)).isDirectory()) {
      out.push(rel);
      return;
    }
    for (const e of await readdir(abs, { withFileTypes: true })) {
      if (e.name !== "node_modules" && e.name !== ".git") await walk(join(rel, e.name));
    }
  };
  for (const p of paths) await walk(p);
  return out.sort();
}

/** The queues with tasks left that no worker takes from. */
async function unservedQueues(opts: QueueRunOptions, ctx: GatherContext): Promise<QueueProgress["unserved"]> {
  const out: QueueProgress["unserved"] = [];
  const unfinished = [...ctx.byKey].filter(([key]) => ctx.state.final[key] === undefined).map(([, task]) => task);
  for (const [name, queue] of ctx.queues) {
    const left = unfinished.filter((t) => queueFor(opts.queueName ?? DEFAULT_QUEUE_NAME, t.environments) === name);
    if (left.length > 0 && (await queue.getWorkersCount()) === 0) out.push({ queue: name, environments: [...left[0]!.environments].sort() });
  }
  return out;
}
