import type { DatasetTask } from "../datasets/format.js";
import type { Summary } from "../runFolder/results.js";
import { taskFields } from "../runner/runner.js";
import { summaryOf, unfinishedResults } from "../runner/summary.js";
import type { ActiveAttempt } from "./protocol.js";

/** summary.json of an attempt that never reached its end: an env_error with why, nothing measured (see unfinishedResults). */
function unfinished(task: DatasetTask, run: { attempt: number; worker: string; started: number }, error: string): Summary {
  return summaryOf(taskFields(task), task.id, unfinishedResults(task, run, error));
}

/** The summary of an attempt lost with its worker (it died, or was cut off or frozen past its lock): an infrastructure error, not the agent's. */
export function lostSummary(task: DatasetTask, entry: ActiveAttempt): Summary {
  const why =
    `worker ${entry.worker} stopped during this attempt (it died, or was cut off or frozen past its task's lock); ` +
    "the task ran again on a worker that answered";
  return unfinished(task, entry, why);
}

/** The summary of a task whose job failed for good with no attempt to show for it. */
export function failedSummary(task: DatasetTask, attempt: number, reason: string): Summary {
  return unfinished(task, { attempt, worker: "", started: Date.now() }, `the task's job failed: ${reason}`);
}

/** The summary of an attempt its worker could not run (the task's files gone or not loading, its folder too large to send back). */
export function erroredSummary(task: DatasetTask, rec: { attempt: number; worker: string; started: number; error: string }): Summary {
  return unfinished(task, rec, `worker ${rec.worker} could not run this attempt: ${rec.error}`);
}

/** The summary of an attempt whose result the coordinator refused (unsigned, malformed, its folder leaving it or past a limit): an env_error with why. */
export function refusedSummary(task: DatasetTask, rec: { attempt: number; worker: string; reason: string }): Summary {
  return unfinished(task, { ...rec, started: Date.now() }, `the result of attempt ${rec.attempt} from worker ${rec.worker} was refused: ${rec.reason}`);
}
