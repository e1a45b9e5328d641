import { z } from "zod";
import { PROGRAM_AGENT, PROVIDER_AGENTS, SCRIPTED_AGENTS } from "../agents/factory.js";
import { ENV_VAR_NAME } from "../agents/program.js";
import { TASK_STATES } from "../runFolder/results.js";
import { runSettingsSchema } from "../runner/settings.js";
import { summarySchema as runFolderSummarySchema, taskResultsSchema } from "../runFolder/schemas.js";

/**
 * What a worker accepts of a job and the coordinator of a result: zod schemas at the queue's two
 * boundaries. A job carries names, numbers and the task's files, never an address, a credential,
 * a path on the worker or a command: the model's endpoint and key, the machines and their
 * credentials are the worker's own. Unknown fields are refused, so a job cannot slip one in.
 */

/** An id as it appears in Redis keys and messages (never in a path on the worker: its folders are its own). */
const id = z
  .string()
  .min(1)
  .max(300)
  .refine((s) => [...s].every((ch) => ch.charCodeAt(0) >= 0x20), "no control characters");

const priceTable = z.record(z.string().max(200), z.strictObject({ input: z.number().nonnegative(), output: z.number().nonnegative() }));

/** The agent a job names: its kind and model, how much history it keeps, its price table. */
export const queuedAgentSchema = z.strictObject({
  kind: z.enum([...SCRIPTED_AGENTS, ...PROVIDER_AGENTS, PROGRAM_AGENT]),
  // An agent program and the variables of the worker's environment it gets (a worker runs it only with --allow-agent-programs).
  command: z.array(z.string().min(1).max(4_096)).min(1).max(256).optional(),
  agentEnv: z.array(z.string().regex(ENV_VAR_NAME)).max(100).optional(),
  model: z.string().min(1).max(200).optional(),
  maxHistory: z
    .strictObject({ maxTurns: z.number().int().min(1).max(10_000).optional(), keepScreenshots: z.number().int().min(0).max(1_000).optional() })
    .optional(),
  // A table, never a path: a file named by a job would be read on the worker host.
  price: priceTable.optional(),
  modelTimeoutMs: z.number().int().min(1).max(3_600_000).optional(),
  modelRetries: z.number().int().min(0).max(10).optional(),
});

/** A run's settings as a job carries them (see QueuedSettings): the run settings and the agent. */
export const queuedSettingsSchema = runSettingsSchema.extend({ agent: queuedAgentSchema });

/** A task's job, as the coordinator signs it (the signature itself is checked first, apart). */
export const taskJobSchema = z.strictObject({
  runId: id,
  taskKey: id.regex(/\//, "<tool>/<id>"),
  rollout: z.number().int().min(1).max(1_000).optional(),
  taskId: id,
  environments: z.array(z.string().min(1).max(100)).min(1).max(16),
  format: z.string().min(1).max(100),
  bundle: z.string(),
  bundleSha256: z.string().regex(/^[0-9a-f]{64}$/),
  moduleType: z.enum(["module", "commonjs"]),
  settings: queuedSettingsSchema,
  /** Date.now() when the coordinator signed it: a job older than a run's keys is refused. */
  issuedAt: z.number().int().nonnegative(),
  sig: z.string(),
});

const worker = z.string().min(1).max(200);
const attemptNumber = z.number().int().min(1).max(10_000);
const activeSchema = z.object({ attempt: attemptNumber, worker, started: z.number() });

/** summary.json as a worker sends it: the run folder's schema (runFolder/schemas.ts), its score in [0, 1] and its attempt in range. */
export const summarySchema = runFolderSummarySchema.extend({
  results: taskResultsSchema.extend({ score: z.number().min(0).max(1), attempt: attemptNumber }),
});

/** A worker's record of an attempt it finished, or could not run (see ResultRecord); signed, with the run it belongs to. */
export const workerRecordSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("attempt"),
    run: z.string(),
    task: z.string(),
    attempt: attemptNumber,
    worker,
    state: z.enum(TASK_STATES),
    final: z.boolean(),
    artifacts: z.string(),
    artifactsSha256: z.string().regex(/^[0-9a-f]{64}$/),
    summary: summarySchema,
    sig: z.string(),
  }),
  z.strictObject({
    kind: z.literal("error"),
    run: z.string(),
    task: z.string(),
    attempt: attemptNumber,
    worker,
    started: z.number(),
    error: z.string().max(20_000),
    final: z.boolean(),
    sig: z.string(),
  }),
]);

/** What Redis's own script writes when an attempt is lost with its worker (it cannot be signed: it is not a worker's). */
export const lostRecordSchema = z.strictObject({ kind: z.literal("lost"), task: z.string(), entry: activeSchema });

/** Enough of a record to name the attempt it is about, when the rest of it is refused. */
export const attemptRefSchema = z.looseObject({ task: z.string(), attempt: attemptNumber, worker: worker.optional(), final: z.boolean().optional() });

/** An attempt in progress as the coordinator reads it from Redis. */
export const activeAttemptSchema = activeSchema;

/** zod's issues as one line: `path: message; …`. */
export function issuesOf(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join(".") || "(the whole)"}: ${i.message}`)
    .join("; ");
}
