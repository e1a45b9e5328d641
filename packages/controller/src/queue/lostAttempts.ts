import type { DatasetTask } from "../datasets/format.js";
import type { Summary, TaskResults } from "../runFolder/results.js";
import { taskFields } from "../runner/runner.js";
import type { ActiveAttempt } from "./protocol.js";

/** The results of an attempt that never reached its end: an env_error with why, nothing measured. */
function unfinished(attempt: number, error: string, worker: string, started: number): TaskResults {
  const now = new Date();
  return {
    score: 0,
    state: "env_error",
    agent_state: null,
    end_reason: "env_error",
    eval_error: null,
    eval_reason: null,
    error,
    teardown_error: null,
    messages: [],
    total_tokens: 0,
    input_tokens: 0,
    output_tokens: 0,
    model_requests: 0,
    cost_usd: null,
    total_timing: { total_ms: Math.max(0, now.getTime() - started), setup_ms: 0, model_ms: 0, env_ms: 0 },
    steps: 0,
    max_steps: 0,
    max_steps_rule: "",
    agent: "",
    model: "",
    daemon_versions: {},
    environments: {},
    machine_reset: {},
    attempt,
    metrics: {},
    started_at: new Date(started).toISOString(),
    finished_at: now.toISOString(),
    worker,
  } as TaskResults;
}

/** The summary of an attempt lost with its worker (it died, or was cut off or frozen past its lock): an infrastructure error, not the agent's. */
export function lostSummary(task: DatasetTask, entry: ActiveAttempt): Summary {
  const why =
    `worker ${entry.worker} stopped during this attempt (it died, or was cut off or frozen past its task's lock); ` +
    "the task ran again on a worker that answered";
  return { ...taskFields(task), id: task.id, results: unfinished(entry.attempt, why, entry.worker, entry.started) } as Summary;
}

/** The summary of a task whose job failed for good with no attempt to show for it. */
export function failedSummary(task: DatasetTask, attempt: number, reason: string): Summary {
  return { ...taskFields(task), id: task.id, results: unfinished(attempt, `the task's job failed: ${reason}`, "", Date.now()) } as Summary;
}

/** The summary of an attempt its worker could not run (the task's files gone or not loading, its folder too large to send back). */
export function erroredSummary(task: DatasetTask, rec: { attempt: number; worker: string; started: number; error: string }): Summary {
  return {
    ...taskFields(task),
    id: task.id,
    results: unfinished(rec.attempt, `worker ${rec.worker} could not run this attempt: ${rec.error}`, rec.worker, rec.started),
  } as Summary;
}

/** The summary of an attempt whose result the coordinator refused (unsigned, malformed, its folder leaving it or past a limit): an env_error with why. */
export function refusedSummary(task: DatasetTask, rec: { attempt: number; worker: string; reason: string }): Summary {
  return {
    ...taskFields(task),
    id: task.id,
    results: unfinished(rec.attempt, `the result of attempt ${rec.attempt} from worker ${rec.worker} was refused: ${rec.reason}`, rec.worker, Date.now()),
  } as Summary;
}
