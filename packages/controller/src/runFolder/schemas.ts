/**
 * The run folder's files as zod schemas, one per file: manifest.json, summary.json, one line of
 * trajectory.jsonl, health.json and replay.json. Their types are inferred from these, so a field
 * is added in one place. Every schema accepts the files Pincer wrote before `format_version`
 * existed (version 0): fields added since are optional, and `metrics: {}` of an attempt with no
 * episode reads as no metrics. Most objects are loose: a field a newer Pincer adds is kept, not
 * refused; health.json and replay.json, written from interfaces, keep the fields their schemas name.
 */
import { z } from "zod";
import { END_REASONS } from "../benchmark/types.js";

/** The version the writers put in every file as `format_version`; a file without one is version 0. */
export const FORMAT_VERSION = 1;

/** The infrastructure failures that prevented a verdict; `--attempts` retries these. */
export const INFRA_STATES = ["setup_error", "env_error", "eval_error", "agent_error"] as const;
/** Outcomes of a task attempt: the task's verdict, or the infrastructure failure that prevented one. */
export const TASK_STATES = ["passed", "failed", ...INFRA_STATES] as const;
/** Outcome of a task attempt: one of {@link TASK_STATES}. */
export type TaskState = (typeof TASK_STATES)[number];
/** An infrastructure failure: one of {@link INFRA_STATES}. */
export type InfraState = (typeof INFRA_STATES)[number];

/** How the agent's part can end. `agent_done`: it said it was done, or the goal was reached first. */
export const AGENT_STATES = ["agent_done", "step_limit", "time_limit", "token_budget"] as const;
/** How the agent's part ended (one of {@link AGENT_STATES}); null when it did not run to an end. */
export type AgentState = (typeof AGENT_STATES)[number] | null;

const formatVersion = z.number().int().nonnegative().optional();

/**
 * The evaluator graph's metrics of an episode, as `GraphMetrics` (evaluators/metrics.ts) has them;
 * runner/summary.ts checks at compile time that the two stay the same.
 */
export const graphMetricsSchema = z.object({
  completionRatio: z.number(),
  score: z.number(),
  reason: z.string(),
  success: z.boolean(),
  actions: z.number(),
  tokens: z.number(),
  executionEfficiency: z.number().nullable(),
  costEfficiency: z.number().nullable(),
  stepsToComplete: z.number().nullable(),
  longestUnfinishedPath: z.number(),
  passedNodes: z.array(z.string()),
});
/** summary.json's `results.metrics`: the evaluator graph's metrics of the episode. */
export type SummaryMetrics = z.infer<typeof graphMetricsSchema>;

// Version 0 wrote `metrics: {}` for an attempt with no episode; it reads as no metrics.
const isEmptyObject = (v: unknown) => !!v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0;
const metricsField = z.preprocess((v) => (isEmptyObject(v) ? undefined : v), graphMetricsSchema.optional());

const timingSchema = z.object({ total_ms: z.number(), setup_ms: z.number(), model_ms: z.number(), env_ms: z.number() });
const recordingSchema = z.union([z.object({ file: z.string() }), z.object({ error: z.string() })]);
const resetSchema = z.looseObject({ provider: z.string(), method: z.string(), ms: z.number(), why: z.string().optional() });

/** summary.json's `results`: the attempt's outcome, usage and settings. docs/results.md names every field. */
export const taskResultsSchema = z.looseObject({
  score: z.number(),
  state: z.enum(TASK_STATES),
  agent_state: z.enum(AGENT_STATES).nullable(),
  /** The benchmark's end reason (success, agent_complete, step_limit, …). */
  end_reason: z.enum(END_REASONS).nullable(),
  /** Why the evaluation failed to run, distinct from a low score; null when it ran. */
  eval_error: z.string().nullable(),
  /** What the evaluation said about the outcome. */
  eval_reason: z.string().nullable(),
  /** Infrastructure error of setup, environment or agent, when there was one. */
  error: z.string().nullable(),
  teardown_error: z.string().nullable(),
  /** With `--record`: per environment, its screen recording (`recording-<env>.mp4` in the attempt folder) or why there is none. */
  recordings: z.record(z.string(), recordingSchema).optional(),
  messages: z.array(z.unknown()),
  total_tokens: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  /** Model requests answered with a usable reply. */
  model_requests: z.number().optional(),
  /** Model request tries that failed (an error status, no reply within --model-timeout, a lost connection, an unusable reply). */
  model_failed_requests: z.number().optional(),
  /** Model request tries made after a failed one. */
  model_retries: z.number().optional(),
  /** What the model calls cost in USD, from the price table; null when no price was given. */
  cost_usd: z.number().nullable().optional(),
  /** Wall time in milliseconds: all, and split into setup, model and environment (actions). */
  total_timing: timingSchema,
  steps: z.number(),
  max_steps: z.number(),
  max_steps_rule: z.string(),
  agent: z.string(),
  model: z.string(),
  daemon_versions: z.record(z.string(), z.string()),
  environments: z.record(z.string(), z.string()),
  /** How each machine was brought to its clean state before the attempt; empty when the pool does not reset. */
  machine_reset: z.record(z.string(), resetSchema),
  attempt: z.number().int(),
  /** The rollout the attempt belongs to, in a run of several rollouts per task (`--rollouts N`, N > 1); absent otherwise. */
  rollout: z.number().int().min(1).optional(),
  /** The evaluator graph's metrics; absent when no episode ran. */
  metrics: metricsField,
  started_at: z.string(),
  finished_at: z.string(),
  /**
   * A person took the attempt over (`pincer run --live`, `pincer record`): their actions (human
   * lines of trajectory.jsonl) and how many times; absent when nobody did. The score is then not
   * the agent's alone.
   */
  human: z.object({ steps: z.number().int(), takeovers: z.number().int() }).optional(),
  /** The queue's worker that ran the attempt (queue runs only; "" when none did). */
  worker: z.string().optional(),
});
/** The `results` part of summary.json. */
export type TaskResults = z.infer<typeof taskResultsSchema>;

/** summary.json: every field of the task as written (kept as they are), plus `id` and `results`. */
export const summarySchema = z.looseObject({ format_version: formatVersion, id: z.string(), results: taskResultsSchema });
/** summary.json: every field of the task, plus `results`. */
export type Summary = z.infer<typeof summarySchema>;

const geometrySchema = z.object({
  width: z.number(),
  height: z.number(),
  scale: z.number(),
  source: z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() }),
  screen: z.object({ width: z.number(), height: z.number() }),
  cursor: z.object({ x: z.number(), y: z.number() }),
});
/** Where a saved screenshot's pixels lie on the screen (see trajectory.ts). */
export type ScreenshotGeometry = z.infer<typeof geometrySchema>;

const settleSchema = z.object({ settled: z.boolean(), waited_ms: z.number(), changes: z.number() });
const usageSchema = z.object({
  input_tokens: z.number(),
  output_tokens: z.number(),
  requests: z.number(),
  failed_requests: z.number().optional(),
  retries: z.number().optional(),
  cost_usd: z.number().optional(),
});
/** The evaluator graph's state after a step: each node's status, the score and why. */
const evaluationSchema = z.looseObject({
  nodes: z.record(z.string(), z.string()).optional(),
  completionRatio: z.number().optional(),
  score: z.number().optional(),
  reason: z.string().optional(),
  success: z.boolean().optional(),
  errors: z.array(z.unknown()).optional(),
});

/** What every line has: its turn and what the agent saw before it, and the turn's model record. */
const lineBase = {
  format_version: formatVersion,
  turn: z.number().int(),
  screenshots: z.record(z.string(), z.string()).optional(),
  screenshot_geometry: z.record(z.string(), geometrySchema).optional(),
  settle: z.record(z.string(), settleSchema).optional(),
  accessibility: z.record(z.string(), z.string()).optional(),
  message: z.string().optional(),
  model_ms: z.number().optional(),
  usage: usageSchema.optional(),
  // Set only on a person's action (humanLineSchema, which overrides it).
  human: z.undefined().optional(),
};
// A field of another kind of line is absent on this one: the union then types every field on every line.
const none = z.undefined().optional();
const stepFields = {
  step: none,
  tool: none,
  args: none,
  ok: none,
  result: none,
  error: none,
  reason: none,
  duration_ms: none,
};

/** A step: the action, its result or error, the evaluation after it and why the episode ended (or null). */
export const stepLineSchema = z.looseObject({
  ...lineBase,
  step: z.number().int(),
  tool: z.string(),
  args: z.record(z.string(), z.unknown()),
  ok: z.boolean(),
  result: z.unknown().optional(),
  error: z.looseObject({ type: z.string().optional(), message: z.string().optional() }).optional(),
  evaluation: evaluationSchema.optional(),
  reason: z.string().nullable().optional(),
  duration_ms: z.number().optional(),
  /** When the step's action began, in ms since the agent's part began; absent in runs written before Pincer recorded it. */
  at_ms: z.number().optional(),
  done: none,
  agent_error: none,
  final: none,
});
/** The agent said it was done: the final evaluation. */
export const doneLineSchema = z.looseObject({
  ...lineBase,
  ...stepFields,
  done: z.literal(true),
  evaluation: evaluationSchema.optional(),
  at_ms: z.number().optional(),
  agent_error: none,
  final: none,
});
/** The agent failed. */
export const agentErrorLineSchema = z.looseObject({
  ...lineBase,
  ...stepFields,
  agent_error: z.string(),
  at_ms: z.number().optional(),
  evaluation: none,
  done: none,
  final: none,
});
/** The screens once the episode ended (the turn is one past the last). */
export const finalLineSchema = z.looseObject({
  ...lineBase,
  ...stepFields,
  final: z.literal(true),
  evaluation: none,
  at_ms: none,
  done: none,
  agent_error: none,
});
/**
 * A person's action on a machine of a slot they took over (`pincer run --live`, `pincer record`):
 * not one of the episode's steps. `screenshots` is the screen after it (not before, as on an
 * agent's step), `settled_ms` how long the screen kept changing after it.
 */
export const humanLineSchema = z.looseObject({
  ...lineBase,
  human: z.literal(true),
  tool: z.string(),
  args: z.record(z.string(), z.unknown()),
  ok: z.boolean(),
  error: z.looseObject({ message: z.string().optional() }).optional(),
  duration_ms: z.number(),
  at_ms: z.number(),
  settled_ms: z.number().optional(),
  evaluation: none,
  reason: none,
  result: none,
  step: none,
  done: none,
  agent_error: none,
  final: none,
});
/** A step line of trajectory.jsonl. */
export type StepLine = z.infer<typeof stepLineSchema>;
/** The agent's "done" line of trajectory.jsonl. */
export type DoneLine = z.infer<typeof doneLineSchema>;

/** The kinds of trajectory line, by the field that marks each. */
export const TRAJECTORY_LINE_KINDS = {
  step: stepLineSchema,
  done: doneLineSchema,
  agent_error: agentErrorLineSchema,
  final: finalLineSchema,
  human: humanLineSchema,
} as const;
/** One line of trajectory.jsonl: a step, the agent's "done", the agent's error, the final screens, or a person's action. */
export const trajectoryLineSchema = z.union([stepLineSchema, doneLineSchema, agentErrorLineSchema, finalLineSchema, humanLineSchema]);
/** One line of trajectory.jsonl (see {@link trajectoryLineSchema}). */
export type TrajectoryLine = z.infer<typeof trajectoryLineSchema>;

const settleSettingSchema = z.union([
  z.literal("auto"),
  z.literal(false),
  // SettleOptions: its waits; an interface, so not a loose object (no index signature to match).
  z.object({
    quietMs: z.number().optional(),
    initialQuietMs: z.number().optional(),
    maxMs: z.number().optional(),
    intervalMs: z.number().optional(),
    sinceLastWait: z.boolean().optional(),
  }),
]);
const manifestTaskSchema = z.looseObject({ id: z.string(), tool: z.string(), file: z.string().optional(), sha256: z.string().optional() });

/** The run's settings manifest.json records: what the run was made with (every field but the times). */
export const manifestSettingsSchema = z.looseObject({
  run_id: z.string(),
  /** Where the machines came from and how they are reset (a local run; file names only, no secrets). */
  provider: z.looseObject({ name: z.string(), config: z.record(z.string(), z.unknown()).optional() }).optional(),
  /** The addresses of each slot's machines (a local run). */
  slots: z.array(z.record(z.string(), z.string())).optional(),
  /** The queue (a queue run): its Redis without password, its name, and the queue's run id when it differs. */
  queue: z.looseObject({ url: z.string().optional(), name: z.string(), run: z.string().optional() }).optional(),
  /** The agent a queue run names (a local run's summaries name theirs). */
  agent: z.object({ kind: z.string(), model: z.string().optional() }).optional(),
  attempts: z.number().int().optional(),
  /** Independent rollouts of every task (`--rollouts`); absent in runs written before Pincer had them (one). */
  rollouts: z.number().int().optional(),
  max_steps: z.union([z.number(), z.literal("auto")]).optional(),
  task_timeout_ms: z.number().optional(),
  screenshots: z.boolean().optional(),
  settle: settleSettingSchema.optional(),
  accessibility: z.string().nullable().optional(),
  record: z.boolean().optional(),
  /** Where the tasks were loaded from, for `pincer replay`. */
  dataset: z.object({ root: z.string(), formats: z.array(z.string()).default([]) }).optional(),
  /** Agents were handed the machines' daemons (`pincer serve --grant-machines`): not comparable with action-only runs. */
  machine_access: z.boolean().optional(),
  /** The run this run replays (`pincer replay`). */
  replay_of: z.object({ run_id: z.string(), run_dir: z.string() }).optional(),
  tasks: z.array(manifestTaskSchema),
});
/** What a front end gives to build manifest.json (see buildManifest). */
export type ManifestSettings = z.infer<typeof manifestSettingsSchema>;

/** manifest.json: the run's settings, when it began (first), each resume, and when it finished. */
export const manifestSchema = manifestSettingsSchema.extend({
  format_version: formatVersion,
  /** When the run first began; a resume keeps it. */
  started_at: z.string(),
  /** Whether the latest start resumed an earlier one. */
  resumed: z.boolean().optional(),
  /** When each resume began, oldest first. */
  resumed_at: z.array(z.string()).optional(),
  /** When the latest start finished; absent while running or after an interruption. */
  finished_at: z.string().optional(),
});
/** manifest.json (see {@link manifestSchema}). */
export type RunManifest = z.infer<typeof manifestSchema>;

const healthRunSchema = z.object({
  run: z.string(),
  summary: z.string(),
  state: z.enum(TASK_STATES),
  score: z.number(),
  ms: z.number(),
  resetMs: z.number(),
  reason: z.string(),
});
const taskHealthSchema = z.object({
  tool: z.string(),
  id: z.string(),
  key: z.string(),
  status: z.enum(["healthy", "flaky", "broken", "too_lenient", "unmeasured"]),
  findings: z.array(z.object({ kind: z.string(), message: z.string() })),
  runs: z.number(),
  verdicts: z.number(),
  passes: z.number(),
  machineFailures: z.number(),
  scores: z.array(z.number().nullable()),
  medianMs: z.number().nullable(),
  reasons: z.array(z.object({ reason: z.string(), count: z.number(), runs: z.array(z.number()) })),
  solutionRuns: z.array(healthRunSchema),
  noActions: healthRunSchema,
});
/** health.json (`pincer check --repeat`): the health of every task over repeated runs (health/taskHealth.ts's HealthReport). */
export const healthSchema = z.object({
  format_version: formatVersion,
  repeat: z.number().int(),
  runFolders: z.object({ solution: z.array(z.string()), noActions: z.string() }),
  startedAt: z.string(),
  finishedAt: z.string(),
  tasks: z.number(),
  counts: z.record(z.string(), z.number()),
  perTask: z.array(taskHealthSchema),
});
/** health.json as read (see {@link healthSchema}). */
export type HealthFile = z.infer<typeof healthSchema>;

const comparedAttemptSchema = z.object({ attempt: z.number(), score: z.number(), state: z.string(), steps: z.number(), dir: z.string() });
/** replay.json (`pincer replay`): a replay beside the run it replays, task by task (replay/stepDifferences.ts's ReplayReport). */
export const replayReportSchema = z.object({
  format_version: formatVersion,
  run_id: z.string(),
  replay_of: z.object({ run_id: z.string(), run_dir: z.string() }),
  created_at: z.string(),
  screen_threshold: z.number(),
  tasks: z.number(),
  same_outcome: z.number(),
  diverged: z.number(),
  warnings: z.array(z.string()),
  per_task: z.array(
    z.object({
      task: z.string(),
      original: comparedAttemptSchema,
      replay: comparedAttemptSchema.nullable(),
      outcome: z.enum(["same", "different"]),
      outcome_differences: z.array(z.string()),
      waits: z.unknown(),
      task_changed: z.boolean(),
      first_divergence: z.unknown(),
      diverging_steps: z.array(z.unknown()),
    }),
  ),
});
/** replay.json as read (see {@link replayReportSchema}). */
export type ReplayFile = z.infer<typeof replayReportSchema>;
