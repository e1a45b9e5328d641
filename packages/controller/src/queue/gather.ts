import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Job, Queue } from "bullmq";
import type { Redis } from "ioredis";
import { InvalidArgumentError, PermissionDeniedError, ResourceExhaustedError } from "@pincer/shared";
import type { DatasetTask } from "../datasets/format.js";
import { isInfraState, type ResultStore, type Summary } from "../runFolder/results.js";
import { writeSummary } from "../runFolder/runFiles.js";
import { limitsFor, unpackFiles } from "./bundle.js";
import { erroredSummary, failedSummary, lostSummary, refusedSummary } from "./lostAttempts.js";
import { jobIdOf, type runKeys, type ActiveAttempt, type ResultRecord, type TaskJob } from "./protocol.js";
import { activeAttemptSchema, attemptRefSchema, issuesOf, lostRecordSchema, workerRecordSchema } from "./records.js";
import { sha256Hex, signatureProblem } from "./signing.js";

/**
 * How the coordinator gathers results: each record read from Redis is checked at the boundary
 * (its signature, its shape, its folder's sha256 and limits) before anything of it reaches the run
 * folder; a record that fails becomes its attempt's env_error with the reason, and the run goes on.
 */

/** Where a run on a queue stands. */
export interface QueueProgress {
  total: number;
  /** Tasks with their final summary. */
  done: number;
  /** Attempts under way: task, worker, attempt number. */
  running: Array<{ task: string; worker: string; attempt: number }>;
  /** Attempts each worker finished (lost ones not included). */
  byWorker: Record<string, number>;
  /** Attempts lost with their worker (it died, or was cut off or frozen past its lock). */
  lost: number;
  /** Records refused: unsigned, malformed, or with a folder that leaves it or passes a limit. */
  refused: number;
  /** Queues with tasks left and no worker taking from them, with the environments such a worker needs. */
  unserved: Array<{ queue: string; environments: string[] }>;
  /** The record just read, if any (a refused one as the env_error it became). */
  last?: ResultRecord;
}

/** What the coordinator keeps in the run folder (queue.json): where it is in the results, and the final attempt of each finished task. */
export interface CoordinatorState {
  cursor: number;
  final: Record<string, number>;
}

/** What gathering needs of a run on a queue. */
export interface GatherContext {
  key: Uint8Array;
  /** Largest attempt folder taken, in bytes. */
  maxArtifactBytes: number;
  onProgress: ((p: QueueProgress) => void) | undefined;
  store: ResultStore;
  redis: Redis;
  queues: Map<string, Queue<TaskJob>>;
  keys: ReturnType<typeof runKeys>;
  /** The run's name in the queue. */
  runId: string;
  state: CoordinatorState;
  stateFile: string;
  /** Each unit's task by the unit's key (a task's key, or one rollout's: see unitKeyOf). */
  byKey: Map<string, DatasetTask>;
  /** In a run of several rollouts per task: each unit's rollout by its key. */
  rollouts: Map<string, number>;
  progress: QueueProgress;
}

/** A record refused at the boundary, with why. */
class Refused extends Error {}

/** Where a unit's attempts go in the run folder: its task's, or its rollout's (see ResultStore.forRollout). */
export function storeOf(ctx: Pick<GatherContext, "store" | "rollouts">, unitKey: string): ResultStore {
  return ctx.store.forRollout(ctx.rollouts.get(unitKey));
}

/** Writes the summary.json of a unit's attempt that the coordinator makes itself (lost, refused, failed), with its rollout. */
async function writeOwnSummary(ctx: GatherContext, unitKey: string, dir: string, summary: Summary): Promise<void> {
  const rollout = ctx.rollouts.get(unitKey);
  await writeSummary(dir, rollout === undefined ? summary : { ...summary, results: { ...summary.results, rollout } });
}

/** Reads the results written since the last read, writes them into the run folder, and moves the cursor. */
export async function readResults(ctx: GatherContext): Promise<void> {
  const { redis, keys, state } = ctx;
  const len = await redis.llen(keys.results);
  if (len <= state.cursor) return;
  for (const raw of await redis.lrange(keys.results, state.cursor, len - 1)) {
    const rec = await takeRecord(ctx, raw);
    if (rec && rec.kind !== "lost") ctx.progress.running = ctx.progress.running.filter((r) => r.task !== rec.task);
    ctx.onProgress?.({ ...ctx.progress, done: Object.keys(state.final).length, ...(rec ? { last: rec } : {}) });
  }
  state.cursor = len;
  await ctx.store.writeJsonAtomic(ctx.stateFile, state);
}

/** One raw record: checked, then written; a refused one becomes its attempt's env_error when it names one. Returns what was recorded. */
async function takeRecord(ctx: GatherContext, raw: string): Promise<ResultRecord | undefined> {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    ctx.progress.refused++;
    return undefined;
  }
  try {
    const rec = checkedRecord(ctx, data);
    if (rec) await writeRecord(ctx, rec);
    return rec;
  } catch (err) {
    if (!(err instanceof Refused || err instanceof InvalidArgumentError || err instanceof ResourceExhaustedError || err instanceof PermissionDeniedError))
      throw err;
    ctx.progress.refused++;
    const ref = attemptRefSchema.safeParse(data);
    const task = ref.success ? ctx.byKey.get(ref.data.task) : undefined;
    if (!ref.success || !task) return undefined;
    const worker = (ref.data.worker ?? "?").slice(0, 200);
    const { attempt } = ref.data;
    const dir = storeOf(ctx, ref.data.task).attemptDir(task.tool, task.id, attempt);
    if (!existsSync(join(dir, "summary.json"))) await writeOwnSummary(ctx, ref.data.task, dir, refusedSummary(task, { attempt, worker, reason: err.message }));
    const expected = ctx.keys.artifacts(ref.data.task, attempt);
    await ctx.redis.del(expected);
    // A refused record counts as final unless it says otherwise: the task is not waited for forever.
    const final = ref.data.final ?? true;
    if (final && ctx.state.final[ref.data.task] === undefined) ctx.state.final[ref.data.task] = attempt;
    return {
      kind: "error",
      run: ctx.runId,
      task: ref.data.task,
      attempt,
      worker,
      started: Date.now(),
      error: `result refused: ${err.message}`,
      final,
      sig: "",
    };
  }
}

/** The record if it holds (signed by the queue's key for this run, well-formed); undefined for one of another run's tasks. Throws Refused. */
function checkedRecord(ctx: GatherContext, data: unknown): ResultRecord | undefined {
  if ((data as { kind?: unknown } | null)?.kind === "lost") {
    const lost = lostRecordSchema.safeParse(data);
    if (!lost.success) throw new Refused(`a lost attempt's record is malformed (${issuesOf(lost.error)})`);
    return ctx.byKey.has(lost.data.task) ? lost.data : undefined;
  }
  const bad = signatureProblem(ctx.key, "result", data);
  if (bad) throw new Refused(bad);
  const parsed = workerRecordSchema.safeParse(data);
  if (!parsed.success) {
    const issues = issuesOf(parsed.error);
    throw new Refused(/summary/.test(issues) ? `its summary is incomplete (${issues})` : `the record is malformed (${issues})`);
  }
  const rec = parsed.data;
  if (rec.run !== ctx.runId) throw new Refused(`the record is of run ${rec.run.slice(0, 200)}, not this one`);
  const task = ctx.byKey.get(rec.task);
  if (!task) return undefined;
  if (rec.kind === "attempt") {
    if (rec.artifacts !== ctx.keys.artifacts(rec.task, rec.attempt)) throw new Refused("its folder is not where the run's attempt folders go");
    if (rec.summary.id !== task.id || rec.summary.results.attempt !== rec.attempt || rec.summary.results.state !== rec.state) {
      throw new Refused(`its summary is of another task or attempt (${rec.summary.id.slice(0, 200)}, attempt ${rec.summary.results.attempt})`);
    }
    if (rec.summary.results.rollout !== ctx.rollouts.get(rec.task)) throw new Refused(`its summary is of another rollout (${rec.summary.results.rollout})`);
  }
  return rec as ResultRecord;
}

/** One result into the run folder: an attempt's folder and summary, or a lost attempt's summary. Idempotent. */
async function writeRecord(ctx: GatherContext, rec: ResultRecord): Promise<void> {
  const task = ctx.byKey.get(rec.task);
  if (!task) return;
  if (rec.kind === "lost") {
    ctx.progress.lost++;
    const dir = storeOf(ctx, rec.task).attemptDir(task.tool, task.id, rec.entry.attempt);
    if (!existsSync(join(dir, "summary.json"))) await writeOwnSummary(ctx, rec.task, dir, lostSummary(task, rec.entry));
    return;
  }
  ctx.progress.byWorker[rec.worker] = (ctx.progress.byWorker[rec.worker] ?? 0) + 1;
  const dir = storeOf(ctx, rec.task).attemptDir(task.tool, task.id, rec.attempt);
  if (rec.kind === "error") {
    if (!existsSync(join(dir, "summary.json"))) await writeOwnSummary(ctx, rec.task, dir, erroredSummary(task, rec));
  } else if (!existsSync(join(dir, "summary.json"))) {
    const limits = limitsFor(ctx.maxArtifactBytes, `the folder of attempt ${rec.attempt} of ${rec.task}`);
    // The size first: a blob past the limit is not even fetched.
    const size = await ctx.redis.strlen(rec.artifacts);
    if (size > limits.maxBlobBytes) throw new Refused(`its folder is a blob of ${size} bytes, more than ${limits.maxBlobBytes}`);
    const blob = await ctx.redis.getBuffer(rec.artifacts);
    if (blob) {
      if (sha256Hex(blob) !== rec.artifactsSha256) throw new Refused("its folder in Redis is not the one its worker signed (sha256 differs)");
      await unpackFiles(blob, dir, limits);
    }
    await writeSummary(dir, rec.summary);
  }
  if (rec.kind === "attempt") await ctx.redis.del(rec.artifacts);
  // The first final record counts (the fencing in Redis allows one; this keeps a run folder right if not).
  if (rec.final && ctx.state.final[rec.task] === undefined) ctx.state.final[rec.task] = rec.attempt;
}

/** The attempt in progress as Redis holds it, or undefined when it is malformed. */
export function activeAttemptOf(json: string): ActiveAttempt | undefined {
  try {
    const parsed = activeAttemptSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Tasks whose job failed for good without a final attempt (every attempt lost, a worker that could
 * not read it or refused it): their last attempt becomes final, or one is written with the job's failure.
 */
export async function finalizeFailedJobs(ctx: GatherContext): Promise<void> {
  const failed = new Map<string, Job<TaskJob>>();
  for (const queue of ctx.queues.values()) {
    for (const j of await queue.getJobs(["failed"], 0, -1)) if (j?.id?.startsWith(`${ctx.runId}/`)) failed.set(j.id, j);
  }
  for (const [taskKey, task] of ctx.byKey) {
    if (ctx.state.final[taskKey] !== undefined) continue;
    const job = failed.get(jobIdOf(ctx.runId, taskKey));
    if (!job) continue;
    // The results written before the job failed come first.
    await readResults(ctx);
    if (ctx.state.final[taskKey] !== undefined) continue;
    const active = await ctx.redis.hget(ctx.keys.active, taskKey);
    const entry = active ? activeAttemptOf(active) : undefined;
    if (entry) await writeRecord(ctx, { kind: "lost", task: taskKey, entry });
    if (active) await ctx.redis.hdel(ctx.keys.active, taskKey);
    const done = await storeOf(ctx, taskKey).finishedAttempts(task.tool, task.id);
    const last = done.at(-1);
    if (last && isInfraState(last.summary.results.state)) {
      ctx.state.final[taskKey] = last.attempt;
    } else {
      const n = (last?.attempt ?? 0) + 1;
      const summary: Summary = failedSummary(task, n, (job.failedReason ?? "the job failed").slice(0, 2_000));
      await writeOwnSummary(ctx, taskKey, storeOf(ctx, taskKey).attemptDir(task.tool, task.id, n), summary);
      ctx.state.final[taskKey] = n;
    }
    await ctx.store.writeJsonAtomic(ctx.stateFile, ctx.state);
  }
}
