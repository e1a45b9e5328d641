import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { hostname, tmpdir } from "node:os";
import { join, sep } from "node:path";
import { type Job, UnrecoverableError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { InvalidArgumentError } from "@pincer/shared";
import { agentFactory, PROGRAM_AGENT } from "../agents/factory.js";
import { Registry } from "../datasets/taskFunctions.js";
import { type LoadDatasetOptions, loadDataset } from "../datasets/loader.js";
import { importTaskModule } from "../datasets/moduleImport.js";
import { MODULE_SUFFIXES } from "../datasets/taskFiles.js";
import type { Registries } from "../datasets/registries.js";
import { removeDeadDirs } from "../machines/hostProcess.js";
import type { MachinePool, MachineSlot } from "../machines/provider.js";
import { isInfraState, ResultStore, type Summary } from "../runFolder/results.js";
import { runOneAttempt } from "../runner/runner.js";
import { limitsFor, MAX_ARTIFACT_BYTES, MAX_BUNDLE_BYTES, packFiles, unpackFiles } from "./bundle.js";
import {
  ALREADY_FINAL,
  BEGIN_ATTEMPT,
  BULL_PREFIX,
  DEFAULT_QUEUE_NAME,
  FINISH_ATTEMPT,
  jobIdOf,
  LOCK_LOST,
  queueFor,
  RUN_TTL_SECONDS,
  runKeys,
  taskKeyOfUnit,
  type ResultRecord,
  type TaskJob,
} from "./protocol.js";
import { issuesOf, taskJobSchema } from "./records.js";
import { openRedis, redisConnection } from "./redis.js";
import type { LiveBoard } from "../runner/liveBoard.js";
import { advertiseLive } from "./liveWorkers.js";
import { checkQueueKey, sha256Hex, sign, signatureProblem } from "./signing.js";

/** Options of {@link startWorker}. */
export interface QueueWorkerOptions {
  /** `redis://[:password@]host:port[/db]`, `rediss://…` (TLS) or `unix:/path/to/redis.sock`. */
  url: string;
  /** The machines this worker runs tasks on: one task per slot at a time. */
  pool: MachinePool;
  /** The dataset formats (built-in, OSWorld's, your own) that read the tasks this worker may get. */
  registries: Registries;
  /** The queue's key (see readQueueKey): jobs not signed with it are refused, and this worker's results are signed with it. */
  key: Uint8Array;
  /**
   * Run task modules (`*.task.ts`, `.mts`, `.js`, `.mjs`) that jobs carry. Loading one runs its code
   * in this process, on this host, outside any machine's sandbox: allow it only where whoever holds
   * the queue's key may run code. Without it, such a job is that attempt's env_error. @default false
   */
  allowTaskModules?: boolean;
  /**
   * Run the agent programs jobs name (`pincer run --agent command -- PROGRAM`): each is a program
   * started on this host, outside any machine's sandbox, with the variables of this process's
   * environment the run names. Without it, such a job is that attempt's env_error. @default false
   */
  allowAgentPrograms?: boolean;
  /**
   * Imports a task module file (with `allowTaskModules`). @default the `pincer` CLI's loader: TypeScript
   * compiled on the fly (tsx, a dependency of this package), `@pincer/controller` and zod resolved to
   * this worker's own copies — the same under plain node (`npx pincer worker`) as under tsx
   */
  importModule?: LoadDatasetOptions["importModule"];
  /** The model API endpoint of every model agent this worker runs; else OPENAI_BASE_URL / ANTHROPIC_BASE_URL, else the provider's. Never a job's. */
  baseUrl?: string;
  /** How this worker is named in progress and results. @default <hostname>:<pid> */
  name?: string;
  /** The queue's name; the worker takes the tasks that need exactly its machines' environments (see queueFor). @default "pincer-tasks" */
  queueName?: string;
  /**
   * How long a task's lock lasts without renewal (it is renewed every half of it): a worker that is
   * stopped or cut off this long loses its task to another. @default 30_000
   */
  lockMs?: number;
  /** Largest attempt folder sent back, in bytes. @default 256 MiB */
  maxArtifactBytes?: number;
  /** Largest bundle of a task's files taken, in bytes (packed, and unpacked). @default 64 MiB */
  maxBundleBytes?: number;
  log?: (line: string) => void;
  /**
   * This worker's live page (`pincer worker --live`): its board (one slot per slot of the pool),
   * and the address the coordinator reaches the page at, advertised in Redis signed with the queue's
   * key (the page's token is derived from that key: see liveToken).
   */
  live?: { board: LiveBoard; url: string };
}

/** A running worker. */
export interface QueueWorker {
  readonly name: string;
  /** The queue it takes tasks from. */
  readonly queue: string;
  /** Jobs refused so far: unsigned, signed with another key, or for another run or task than their signature's. */
  readonly refused: number;
  /** Stops taking tasks and waits for those it runs (`force`: hands them back at once; another worker takes them after their locks lapse). */
  close(force?: boolean): Promise<void>;
}

/**
 * The node_modules folder this worker's Pincer is installed in (the one that holds zod and
 * `@pincer/controller`): a task module unpacked on the worker imports its packages from there.
 */
function installedPackages(): string {
  const zod = createRequire(import.meta.url).resolve("zod");
  const at = zod.lastIndexOf(`${sep}node_modules${sep}`);
  return zod.slice(0, at + `${sep}node_modules`.length);
}

/** The pool's free slots: a task takes one and gives it back. */
function slotQueue(pool: MachinePool) {
  const free = [...pool.slots];
  const waiting: Array<(s: MachineSlot) => void> = [];
  return {
    take: () => new Promise<MachineSlot>((resolve) => (free.length > 0 ? resolve(free.shift()!) : waiting.push(resolve))),
    give: (s: MachineSlot) => {
      const next = waiting.shift();
      if (next) next(s);
      else free.push(s);
    },
  };
}

/** An attempt's work folder in the temporary folder: `pincer-worker-<worker pid>-…`, removed when the attempt ends. */
const WORK_PREFIX = "pincer-worker-";

/**
 * Takes tasks of any run from the queue and runs each like `pincer run` does, on this worker's
 * machines, with the agent the run names (a model agent's key comes from this process's
 * environment, its endpoint from `baseUrl` or the environment). A job runs only when the queue's
 * key signed it; its settings are checked, a task module in it runs only with `allowTaskModules`,
 * and its files are unpacked within the limits. Every attempt is fenced by the task's lock: a worker
 * that lost its task (stopped, cut off) cannot have its attempt counted; and an attempt that ended
 * in an infrastructure error is handed back to the queue, to be retried with backoff, here or
 * elsewhere, while attempts are left.
 */
export async function startWorker(opts: QueueWorkerOptions): Promise<QueueWorker> {
  checkQueueKey(opts.key);
  const name = opts.name ?? `${hostname()}:${process.pid}`;
  // Work folders of workers on this host that died mid-task (SIGKILL, a crash) and could not remove them.
  await removeDeadDirs(WORK_PREFIX);
  const environments = Object.keys(opts.pool.slots[0]?.envs ?? {});
  if (environments.length === 0) throw new InvalidArgumentError("a worker needs machines: its pool has no slot");
  const queueName = queueFor(opts.queueName ?? DEFAULT_QUEUE_NAME, environments);
  const log = opts.log ?? (() => undefined);
  const redis = await openRedis(opts.url);
  redis.defineCommand("pincerBegin", { numberOfKeys: 5, lua: BEGIN_ATTEMPT });
  redis.defineCommand("pincerFinish", { numberOfKeys: 4, lua: FINISH_ATTEMPT });
  const slots = slotQueue(opts.pool);
  const agents = new Map<string, ReturnType<typeof agentFactory>>();
  const lockMs = opts.lockMs ?? 30_000;
  const abort = new AbortController();
  let refused = 0;
  const ctx = { redis, name, queueName, environments, registries: opts.registries, slots, agents, abort, log, opts };
  const processor = async (job: Job<TaskJob>, token?: string) => {
    // Before anything is done with it: a job the queue's key did not sign is never run.
    const why = jobProblem(opts.key, job);
    if (why) {
      refused++;
      log(`worker ${name}: refused job ${String(job.id).slice(0, 200)}: ${why} (${refused} refused so far)`);
      throw new UnrecoverableError(`refused: ${why}`);
    }
    return runJob({ ...ctx, job, token: token ?? "" });
  };
  // BullMQ leaves a connection it is given open: it is closed here, after the worker.
  const connection = redisConnection(opts.url);
  const worker = new Worker<TaskJob>(queueName, processor, {
    connection,
    concurrency: opts.pool.slots.length,
    name,
    lockDuration: lockMs,
    // A dead worker's task is taken back at the first stalled check after its lock lapses: checks a
    // tenth of the lock apart bring it back within about 1.1 × the lock (a lock apart: up to twice
    // it). One check runs per interval across workers (BullMQ keeps the others out), a cheap script.
    stalledInterval: Math.max(500, Math.round(lockMs / 10)),
    // A worker that dies (or is frozen) loses its task; one whose machines keep killing it fails after three.
    maxStalledCount: 3,
  });
  worker.on("error", (err) => log(`worker: ${err.message}`));
  await worker.waitUntilReady();
  log(`worker ${name}: taking tasks from ${queueName} with ${opts.pool.slots.length} slot(s)`);
  const advertised = opts.live ? advertiseLive(redis, opts.key, opts.queueName ?? DEFAULT_QUEUE_NAME, name, opts.live.url) : undefined;
  return {
    name,
    queue: queueName,
    get refused() {
      return refused;
    },
    async close(force = false) {
      if (force) abort.abort(new Error("the worker was stopped"));
      await advertised?.stop();
      await worker.close(force);
      connection.disconnect();
      redis.disconnect();
    },
  };
}

interface JobContext {
  job: Job<TaskJob>;
  token: string;
  redis: Redis;
  name: string;
  queueName: string;
  environments: string[];
  registries: Registries;
  slots: ReturnType<typeof slotQueue>;
  agents: Map<string, ReturnType<typeof agentFactory>>;
  abort: AbortController;
  log: (line: string) => void;
  opts: QueueWorkerOptions;
}

/**
 * Why a job cannot be trusted, or undefined: its signature (over every field but itself) must be
 * the queue key's, its BullMQ id its run's and task's (a signed job added under another id is a
 * replay), and it must be younger than a run's keys.
 */
function jobProblem(key: Uint8Array, job: Job<TaskJob>): string | undefined {
  const bad = signatureProblem(key, "job", job.data);
  if (bad) return bad;
  const { runId, taskKey, issuedAt } = job.data as Partial<TaskJob>;
  if (typeof runId !== "string" || typeof taskKey !== "string" || job.id !== jobIdOf(runId, taskKey))
    return "the job's id is not that of the run and task it was signed for";
  if (typeof issuedAt !== "number" || Date.now() - issuedAt > RUN_TTL_SECONDS * 1000) return "the job is older than a run's keys live";
  return undefined;
}

/** Files whose loading runs their code: task modules, and their CommonJS forms, which no format claims but Node would run. */
const CODE_SUFFIXES = [...MODULE_SUFFIXES, ".task.cts", ".task.cjs"];

type FencedRedis = Redis & {
  pincerBegin(
    lock: string,
    attempts: string,
    active: string,
    results: string,
    done: string,
    token: string,
    task: string,
    worker: string,
    now: number,
    ttlSeconds: number,
  ): Promise<number>;
  pincerFinish(
    lock: string,
    active: string,
    results: string,
    done: string,
    token: string,
    task: string,
    record: string,
    attempt: number,
    final: "1" | "0",
    ttlSeconds: number,
  ): Promise<number>;
};

/** An error that says the worker no longer holds its task: nothing of the attempt is recorded. */
class LockLost extends Error {}

/** One attempt of a task's job, fenced by the job's lock: begun, run on a free slot, its result and folder sent back. */
async function runJob(c: JobContext): Promise<{ attempt: number; state: string }> {
  const { job, redis, name } = c;
  const data = job.data;
  const keys = runKeys(data.runId);
  const lock = `${BULL_PREFIX}:${c.queueName}:${job.id}:lock`;
  const r = redis as FencedRedis;
  if (!c.registries.formats.get(data.format)) {
    throw new UnrecoverableError(
      `${data.taskKey} is a task of the ${data.format} format, which worker ${name} does not read: start it with --format <its module>`,
    );
  }
  const slot = await c.slots.take();
  const work = await mkdtemp(join(tmpdir(), `${WORK_PREFIX}${process.pid}-`));
  const started = Date.now();
  const finish = async (unsigned: DistributiveOmit<ResultRecord, "sig" | "run">, attempt: number, final: boolean) => {
    const record = sign(c.opts.key, "result", { ...unsigned, run: data.runId });
    const ok = await r.pincerFinish(
      lock,
      keys.active,
      keys.results,
      keys.done,
      c.token,
      data.taskKey,
      JSON.stringify(record),
      attempt,
      final ? "1" : "0",
      RUN_TTL_SECONDS,
    );
    if (ok !== 1)
      throw new LockLost(`worker ${name} lost ${data.taskKey} during attempt ${attempt} (its lock lapsed: it was stopped or cut off); its result is refused`);
  };
  try {
    const n = await r.pincerBegin(lock, keys.attempts, keys.active, keys.results, keys.done, c.token, data.taskKey, name, started, RUN_TTL_SECONDS);
    if (n === LOCK_LOST) throw new LockLost(`worker ${name} lost ${data.taskKey} before it began (its lock lapsed)`);
    if (n === ALREADY_FINAL) return { attempt: 0, state: "already final" };
    const lastChance = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    try {
      const { summary, artifacts, artifactsSha256 } = await attempt(c, work, slot, n);
      const state = summary.results.state;
      const final = !isInfraState(state) || lastChance;
      await finish({ kind: "attempt", task: data.taskKey, attempt: n, worker: name, state, final, artifacts, artifactsSha256, summary }, n, final);
      // An infrastructure error with attempts left: back to the queue, retried with backoff.
      if (!final) throw new Error(`attempt ${n} of ${data.taskKey} ended in ${state}: ${summary.results.error ?? "no reason recorded"}`);
      return { attempt: n, state };
    } catch (err) {
      if (err instanceof LockLost || c.abort.signal.aborted || (err as Error).message.startsWith(`attempt ${n} of`)) throw err;
      // The attempt could not run here: an env_error in the results, retried while attempts are left.
      const final = err instanceof UnrecoverableError || lastChance;
      const error = (err as Error).message.slice(0, 10_000);
      await finish({ kind: "error", task: data.taskKey, attempt: n, worker: name, started, error, final }, n, final);
      throw err;
    }
  } finally {
    c.slots.give(slot);
    await rm(work, { recursive: true, force: true });
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The job's data checked as this worker accepts it; throws UnrecoverableError saying what is refused. */
function checkedJob(c: JobContext): TaskJob {
  const parsed = taskJobSchema.safeParse(c.job.data);
  if (!parsed.success) {
    throw new UnrecoverableError(
      `worker ${c.name} refuses the job of ${c.job.data.taskKey}: ${issuesOf(parsed.error)}. A job names no endpoint, key, file or command: ` +
        "the model's endpoint and key are the worker's own: pincer worker --base-url (or OPENAI_BASE_URL / ANTHROPIC_BASE_URL) " +
        "and the provider's key in its environment",
    );
  }
  const data = parsed.data as TaskJob;
  if ([...data.environments].sort().join("+") !== [...c.environments].sort().join("+")) {
    throw new UnrecoverableError(`${data.taskKey} needs ${data.environments.join(", ")}; worker ${c.name} has ${c.environments.join(", ")}`);
  }
  if (data.rollout !== undefined && !data.taskKey.endsWith(`/rollout-${data.rollout}`))
    throw new UnrecoverableError(`the job of ${data.taskKey} names rollout ${data.rollout}, not its own`);
  if (data.bundle !== runKeys(data.runId).bundle(taskKeyOfUnit(data.taskKey, data.rollout)))
    throw new UnrecoverableError(`the job of ${data.taskKey} names another key than its run's for its files`);
  return data;
}

/** Runs attempt `n` of the job's task in `work`; returns its summary and where its folder now lies in Redis, with its sha256. */
async function attempt(c: JobContext, work: string, slot: MachineSlot, n: number): Promise<{ summary: Summary; artifacts: string; artifactsSha256: string }> {
  const data = checkedJob(c);
  const maxBundle = c.opts.maxBundleBytes ?? MAX_BUNDLE_BYTES;
  const limits = limitsFor(maxBundle, `the files of ${data.taskKey}`);
  // The size first: a blob past the limit is not even fetched.
  const size = await c.redis.strlen(data.bundle);
  if (size > limits.maxBlobBytes)
    throw new UnrecoverableError(`the files of ${data.taskKey} are a blob of ${size} bytes, more than worker ${c.name} takes (${maxBundle})`);
  const bundle = await c.redis.getBuffer(data.bundle);
  if (!bundle) throw new UnrecoverableError(`the files of ${data.taskKey} are no longer in Redis (${data.bundle}); run the run again with --resume`);
  if (sha256Hex(bundle) !== data.bundleSha256) {
    throw new UnrecoverableError(`the files of ${data.taskKey} in Redis are not those the coordinator signed (their sha256 differs): refused`);
  }
  const files = await unpackFiles(bundle, join(work, "dataset"), limits).catch((err: Error) => {
    throw new UnrecoverableError(err.message);
  });
  const modules = files.filter((f) => CODE_SUFFIXES.some((s) => f.endsWith(s)));
  let registries = c.registries;
  if (c.opts.allowTaskModules) {
    // Task modules import zod and @pincer/controller: the worker's own copies, found through this link.
    await symlink(installedPackages(), join(work, "node_modules"), "dir");
    await writeFile(join(work, "package.json"), JSON.stringify({ private: true, type: data.moduleType }));
  } else {
    if (modules.length > 0 || data.format === "module") {
      throw new UnrecoverableError(
        `${data.taskKey} is a task module${modules[0] ? ` (${modules[0]})` : ""}: loading it runs its code in the worker process, which is code execution ` +
          `on the worker host outside any machine's sandbox; worker ${c.name} runs task modules only when started with --allow-task-modules`,
      );
    }
    registries = {
      ...c.registries,
      formats: new Registry(
        "dataset format",
        c.registries.formats.list().filter((f) => f.name !== "module"),
      ),
    };
  }
  // The loader `pincer run` and `validate` use: TypeScript modules load under plain node too.
  const dataset = await loadDataset(join(work, "dataset"), registries, { importModule: c.opts.importModule ?? importTaskModule });
  const task = dataset.tasks.find((t) => t.id === data.taskId);
  if (!task) {
    const why = dataset.problems.map((p) => p.message).join("; ") || "it is not among the tasks found";
    throw new UnrecoverableError(`${data.taskKey} does not load on worker ${c.name}: ${why}`);
  }
  // The run's settings as the job carries them (checked above), unchanged; the agent is named apart.
  const { agent, ...run } = data.settings;
  // The endpoint is this worker's (its option, else the provider's environment variable), never the job's.
  const choice = { ...agent, ...(c.opts.baseUrl ? { baseUrl: c.opts.baseUrl } : {}) };
  if (choice.kind === PROGRAM_AGENT && !c.opts.allowAgentPrograms) {
    throw new UnrecoverableError(
      `${data.taskKey}: its run's agent is a program (${(choice.command ?? []).join(" ")}), which runs on the worker host outside any machine's sandbox; ` +
        `worker ${c.name} runs agent programs only when started with --allow-agent-programs`,
    );
  }
  const agentKey = JSON.stringify(choice);
  if (!c.agents.has(agentKey)) {
    try {
      c.agents.set(agentKey, agentFactory(choice));
    } catch (err) {
      // A missing key or program is this worker's to fix: trying the job again here cannot help.
      throw new UnrecoverableError(`${data.taskKey}: worker ${c.name} cannot make the run's agent: ${(err as Error).message}`);
    }
  }
  c.log(`${c.name}: ${data.taskKey} attempt ${n}`);
  const store = new ResultStore(join(work, "run"));
  const agentFor = c.agents.get(agentKey)!;
  const live = c.opts.live ? { board: c.opts.live.board, slot: slot.index } : undefined;
  const summary = await runOneAttempt({ ...run, registries, agentFor }, store, slot, task, n, c.abort.signal, data.rollout, live);
  const blob = await packFiles(store.forRollout(data.rollout).attemptDir(task.tool, task.id, n), {
    // summary.json travels in the record: the coordinator writes it last, when the folder is whole.
    exclude: ["summary.json"],
    maxBytes: c.opts.maxArtifactBytes ?? MAX_ARTIFACT_BYTES,
    what: `the folder of attempt ${n} of ${data.taskKey}`,
    limitFlag: "the worker's --max-artifact-mib",
  });
  const artifacts = runKeys(data.runId).artifacts(data.taskKey, n);
  await c.redis.set(artifacts, blob, "EX", RUN_TTL_SECONDS);
  return { summary, artifacts, artifactsSha256: sha256Hex(blob) };
}
