import type { HistoryOptions } from "../agents/history.js";
import type { PriceTable } from "../agents/pricing.js";
import type { RunSettings } from "../runner/settings.js";
import type { Summary, TaskState } from "../runFolder/results.js";

/**
 * What a run on a queue keeps in Redis, and how the coordinator and its workers talk: one BullMQ
 * job per task (per rollout of a task, with `--rollouts N`); the task's files as a bundle; per task an attempt counter and the attempt in
 * progress; and per run a list of results the coordinator reads in order. No secret travels: the
 * agent is named (its key and endpoint are the worker's), machines and credentials are the workers'
 * own. Jobs are signed by the coordinator and results by the workers with the queue's key
 * (signing.ts), which Redis never sees.
 */

/** The BullMQ queue every run's tasks go to (`--queue-name` chooses another). */
export const DEFAULT_QUEUE_NAME = "pincer-tasks";
/**
 * The queue of the tasks that need exactly these environments, `<base>.<names sorted, joined by +>`
 * (`pincer-tasks.desktop`): a worker takes tasks from the queue of its machines' names.
 */
export function queueFor(base: string, environments: readonly string[]): string {
  return `${base}.${[...environments].sort().join("+")}`.replace(/:/g, "_");
}

/** BullMQ's key prefix (its default). */
export const BULL_PREFIX = "bull";

/** How long Redis keeps a run's bundles, results and artifacts after the last write. @default 7 days */
export const RUN_TTL_SECONDS = 7 * 24 * 3600;

/** A task's key in a run: `<tool>/<id>`. */
export const taskKeyOf = (t: { tool: string; id: string }) => `${t.tool}/${t.id}`;

/**
 * The key of a unit of a run's work, one job's: the task's key, or in a run of several rollouts per
 * task, one rollout's, `<tool>/<id>/rollout-<r>` (the rollouts of a task share its bundle).
 */
export const unitKeyOf = (t: { tool: string; id: string }, rollout?: number) => `${taskKeyOf(t)}${rollout === undefined ? "" : `/rollout-${rollout}`}`;

/** The task's key of a unit's key (see {@link unitKeyOf}): its bundle's. */
export const taskKeyOfUnit = (unitKey: string, rollout?: number) => (rollout === undefined ? unitKey : unitKey.replace(/\/rollout-\d+$/, ""));

/** A task's BullMQ job id: the run and the task, one job per task and run (BullMQ refuses `:` in ids). */
export const jobIdOf = (runId: string, taskKey: string) => `${runId}/${taskKey}`.replace(/:/g, "_");

/** The Redis keys of a run. */
export function runKeys(runId: string) {
  const base = `pincer:run:${runId}`;
  return {
    /** List of {@link ResultRecord}s as JSON, in the order they were made. */
    results: `${base}:results`,
    /** Hash: task key → the attempt in progress ({@link ActiveAttempt} as JSON). */
    active: `${base}:active`,
    /** Hash: task key → the number of the last attempt begun. */
    attempts: `${base}:attempts`,
    /** Hash: task key → its final attempt (a task in it is never run again). */
    done: `${base}:done`,
    /** The task's files. */
    bundle: (taskKey: string) => `${base}:bundle:${taskKey}`,
    /** An attempt's folder (summary, trajectory, screenshots, recordings). */
    artifacts: (taskKey: string, attempt: number) => `${base}:artifacts:${taskKey}:${attempt}`,
  };
}

/**
 * The agent a queued run names: its kind and model, its history and price table. Never its endpoint
 * or key: a worker's model agents reach the endpoint its own configuration names (`pincer worker
 * --base-url`, OPENAI_BASE_URL / ANTHROPIC_BASE_URL) with the key of its environment.
 */
export interface QueuedAgent {
  kind: string;
  /** With kind "command": the agent program and its arguments, run on the worker host (only with `allowAgentPrograms`). */
  command?: string[];
  /** With kind "command": names of variables of the worker's environment the program gets. */
  agentEnv?: string[];
  model?: string;
  maxHistory?: HistoryOptions;
  /** USD per million input and output tokens, by model (a table: a job never names a file). */
  price?: PriceTable;
  /** Deadline of each try of a model request, in milliseconds. @default 120_000 */
  modelTimeoutMs?: number;
  /** Tries after a failed model request. @default 2 */
  modelRetries?: number;
}

/**
 * What a job carries of its run: the run's settings as `pincer run` took them ({@link RunSettings},
 * whole and unchanged: a setting added there travels here), and the agent the run names.
 */
export type QueuedSettings = Omit<RunSettings, "rollouts"> & Partial<Pick<RunSettings, "rollouts">> & { agent: QueuedAgent };

/** The data of a task's job, signed by the coordinator (the signature in `sig` covers every other field). */
export interface TaskJob {
  runId: string;
  /** The unit's key: the task's, or one rollout's ({@link unitKeyOf}). */
  taskKey: string;
  /** The rollout this job runs, in a run of several rollouts per task; absent otherwise. */
  rollout?: number;
  taskId: string;
  /** The environments the task needs (its queue is theirs: {@link queueFor}). */
  environments: string[];
  /** The format that reads the task (the worker must have it). */
  format: string;
  /** Where the bundle of its files lies in Redis (the run's key for the task, shared by its rollouts: a worker reads no other). */
  bundle: string;
  /** sha256 of the bundle, hex: the worker unpacks only the bundle the coordinator signed. */
  bundleSha256: string;
  /** How its `.js`/`.ts` files load (the dataset's package.json "type"). */
  moduleType: "module" | "commonjs";
  settings: QueuedSettings;
  /** Date.now() when the coordinator signed it: a job older than a run's keys ({@link RUN_TTL_SECONDS}) is refused. */
  issuedAt: number;
  /** HMAC-SHA256 of the rest with the queue's key, hex. */
  sig: string;
}

/** The attempt a worker has begun and not finished. */
export interface ActiveAttempt {
  attempt: number;
  worker: string;
  /** Date.now() when it began. */
  started: number;
}

/**
 * What the coordinator reads of a task's progress. A worker's records name their run and are signed
 * with the queue's key (`sig`); a lost attempt's record is Redis's own (its script writes it) and
 * can only ever record an env_error.
 */
export type ResultRecord =
  /** An attempt a worker finished (its lock still held): its summary, and its folder in `artifacts` with its sha256. */
  | {
      kind: "attempt";
      run: string;
      task: string;
      attempt: number;
      worker: string;
      state: TaskState;
      final: boolean;
      artifacts: string;
      artifactsSha256: string;
      summary: Summary;
      sig: string;
    }
  /** An attempt whose worker stopped before finishing it (its lock lapsed; another worker began the task again). */
  | { kind: "lost"; task: string; entry: ActiveAttempt }
  /** An attempt the worker could not run (the task's files gone, the task not loading, its folder too large to send). */
  | { kind: "error"; run: string; task: string; attempt: number; worker: string; started: number; error: string; final: boolean; sig: string };

/** {@link BEGIN_ATTEMPT}'s answer when the caller does not hold the job's lock. */
export const LOCK_LOST = -1;
/** {@link BEGIN_ATTEMPT}'s answer when the task has its final attempt already. */
export const ALREADY_FINAL = -2;

/**
 * Begins an attempt, fenced by the job's lock: the attempt in progress of a worker that lost the
 * task is recorded as lost, and a new number is drawn. Returns the attempt's number,
 * {@link LOCK_LOST}, or {@link ALREADY_FINAL} (a job handed out again after its result was in: it
 * is not run twice).
 * KEYS: lock, attempts, active, results, done. ARGV: token, task key, worker, now, the run keys' time to live in seconds.
 */
export const BEGIN_ATTEMPT = `
if redis.call("GET", KEYS[1]) ~= ARGV[1] then return -1 end
if redis.call("HEXISTS", KEYS[5], ARGV[2]) == 1 then return -2 end
local prev = redis.call("HGET", KEYS[3], ARGV[2])
if prev then redis.call("RPUSH", KEYS[4], '{"kind":"lost","task":' .. cjson.encode(ARGV[2]) .. ',"entry":' .. prev .. '}') end
local n = redis.call("HINCRBY", KEYS[2], ARGV[2], 1)
redis.call("HSET", KEYS[3], ARGV[2], cjson.encode({attempt = n, worker = ARGV[3], started = tonumber(ARGV[4])}))
for i = 2, 4 do redis.call("EXPIRE", KEYS[i], ARGV[5]) end
return n
`;

/**
 * Finishes an attempt, fenced by the job's lock: its record joins the results and it is no longer
 * in progress; a final one marks the task done. Returns 1, or 0 when the caller lost the lock (its
 * result is refused). Runs once per attempt: an attempt no longer in progress was finished already
 * (the client sends a command again when a dropped connection lost its reply), and answers 1
 * without a second record.
 * KEYS: lock, active, results, done. ARGV: token, task key, record JSON, attempt number, "1" if final, the time to live.
 */
export const FINISH_ATTEMPT = `
if redis.call("GET", KEYS[1]) ~= ARGV[1] then return 0 end
local cur = redis.call("HGET", KEYS[2], ARGV[2])
if not cur or cjson.decode(cur).attempt ~= tonumber(ARGV[4]) then return 1 end
redis.call("HDEL", KEYS[2], ARGV[2])
if ARGV[5] == "1" then redis.call("HSET", KEYS[4], ARGV[2], ARGV[4]) end
redis.call("RPUSH", KEYS[3], ARGV[3])
for i = 3, 4 do redis.call("EXPIRE", KEYS[i], ARGV[6]) end
return 1
`;
