/**
 * `@pincer/controller/runner`: runs a dataset's tasks with an agent, with bounded concurrency and
 * retries, and writes summary.json, trajectories, screenshots and a report per run.
 */
export { maxStepsFor, runTasks } from "./runner/runner.js";
export type { RunnerOptions, RunProgress } from "./runner/runner.js";
export { buildReport, reportMarkdown } from "./runner/report.js";
export type { Report } from "./runner/report.js";
export type { AgentState, Summary, TaskResults, TaskState } from "./runner/results.js";
