import type { EndReason } from "../benchmark/types.js";
import type { DatasetTask } from "../datasets/format.js";
import type { GraphMetrics } from "../evaluators/metrics.js";
import type { AgentState, InfraState, Summary, SummaryMetrics, TaskResults, TaskState } from "../runFolder/schemas.js";
import type { RecordingResults } from "./recording.js";
import { AttemptUsage } from "./usage.js";

// summary.json's metrics schema (runFolder/schemas.ts) and the graph's GraphMetrics are the same type, both ways.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const metricsMatch: Same<GraphMetrics, SummaryMetrics> = true;
void metricsMatch;

/**
 * What each end reason means for the summary: `verdict` when the task's evaluation decides between
 * passed and failed, or the infrastructure state that replaces the verdict; and how the agent's
 * part ended.
 */
const OUTCOMES: Record<EndReason, { state: "verdict" | InfraState; agent_state: AgentState }> = {
  success: { state: "verdict", agent_state: "agent_done" },
  agent_complete: { state: "verdict", agent_state: "agent_done" },
  step_limit: { state: "verdict", agent_state: "step_limit" },
  time_limit: { state: "verdict", agent_state: "time_limit" },
  token_budget: { state: "verdict", agent_state: "token_budget" },
  setup_error: { state: "setup_error", agent_state: null },
  env_error: { state: "env_error", agent_state: null },
  evaluator_error: { state: "eval_error", agent_state: null },
  agent_error: { state: "agent_error", agent_state: null },
};

/** Whether the episode ended in a way that leaves the verdict to the evaluation (not an error). */
export function endsInVerdict(reason: EndReason | null): boolean {
  return reason !== null && OUTCOMES[reason].state === "verdict";
}

/** The task state and agent state of an attempt that ended for `reason`; `passed` is the evaluation's verdict. */
export function attemptState(reason: EndReason | null, passed: boolean): { state: TaskState; agent_state: AgentState } {
  if (reason === null) return { state: "failed", agent_state: null };
  const { state, agent_state } = OUTCOMES[reason];
  return { state: state === "verdict" ? (passed ? "passed" : "failed") : state, agent_state };
}

/** What an attempt collects for its summary as it runs. */
export interface AttemptRecord {
  /** Date.now() when the attempt began. */
  started: number;
  /** The conversation: the instruction, the agent's turns and the tool results. */
  messages: unknown[];
  usage: AttemptUsage;
  daemonVersions: Record<string, string>;
  teardownError: string | null;
  /** Screen recordings of the agent's part, when the run records. */
  recordings?: RecordingResults;
}

/** How an attempt ended. */
export interface AttemptEnd {
  reason: EndReason | null;
  error: string | null;
  /** The benchmark's metrics (`bench.metrics()`); absent when no episode ran. */
  metrics?: GraphMetrics;
  steps?: number;
}

/** The attempt's settings that summary.json repeats. */
export interface SummarySettings {
  /** The format that loaded the task. */
  kind: string;
  attempt: number;
  maxSteps: number;
  maxStepsRule: string;
  agent: { name: string; model: string };
  addresses: Readonly<Record<string, string>>;
  /** How the machines were reset before the attempt. */
  reset?: Readonly<Record<string, { provider: string; method: string; ms: number }>>;
}

/** The score and the state: the task evaluator's verdict, as the benchmark's metrics carry it (none without an episode). */
function verdict(end: AttemptEnd, metrics: GraphMetrics | undefined) {
  const { state, agent_state } = attemptState(end.reason, metrics?.success ?? false);
  return { score: metrics?.score ?? 0, state, agent_state, evalReason: metrics?.reason ?? null };
}

/** The `results` object of summary.json. */
export function attemptResults(settings: SummarySettings, record: AttemptRecord, end: AttemptEnd): TaskResults {
  const { metrics } = end;
  const { score, state, agent_state, evalReason } = verdict(end, metrics);
  const { usage } = record;
  return {
    score: state === "passed" || state === "failed" ? score : 0,
    state,
    agent_state,
    end_reason: end.reason,
    eval_error: state === "eval_error" ? end.error : null,
    eval_reason: evalReason,
    error: state === "eval_error" ? null : end.error,
    teardown_error: record.teardownError,
    ...(record.recordings ? { recordings: record.recordings } : {}),
    messages: record.messages,
    total_tokens: usage.input + usage.output,
    input_tokens: usage.input,
    output_tokens: usage.output,
    model_requests: usage.requests,
    model_failed_requests: usage.failedRequests,
    model_retries: usage.retries,
    // US dollars, when the agent has a price for its model (--price); null otherwise.
    cost_usd: usage.costUsd(),
    total_timing: usage.totalTiming(Date.now() - record.started),
    steps: end.steps ?? 0,
    max_steps: settings.maxSteps,
    max_steps_rule: settings.maxStepsRule,
    agent: settings.agent.name,
    model: settings.agent.model,
    daemon_versions: record.daemonVersions,
    environments: { ...settings.addresses },
    machine_reset: { ...settings.reset },
    attempt: settings.attempt,
    ...(metrics ? { metrics } : {}),
    started_at: new Date(record.started).toISOString(),
    finished_at: new Date().toISOString(),
  };
}

/**
 * The results of an attempt that never reached its end (lost with its worker, refused, or its job
 * failed): an env_error saying why, nothing measured, built as every attempt's results are.
 */
export function unfinishedResults(task: Pick<DatasetTask, "kind">, run: { attempt: number; worker: string; started: number }, error: string): TaskResults {
  const settings: SummarySettings = { kind: task.kind, attempt: run.attempt, maxSteps: 0, maxStepsRule: "", agent: { name: "", model: "" }, addresses: {} };
  const record: AttemptRecord = { started: run.started, messages: [], usage: new AttemptUsage(), daemonVersions: {}, teardownError: null };
  return { ...attemptResults(settings, record, { reason: "env_error", error }), worker: run.worker };
}

/** summary.json of an attempt: the task's fields as summary.json keeps them (see taskFields), its id and its results. */
export function summaryOf(fields: Readonly<Record<string, unknown>>, id: string, results: TaskResults): Summary {
  return { ...fields, id, results };
}
