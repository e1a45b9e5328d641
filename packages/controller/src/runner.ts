/**
 * `@pincer/controller/runner`: runs a dataset's tasks with an agent, with bounded concurrency and
 * retries, and writes summary.json, trajectories, screenshots and a report per run.
 */
export { DEFAULT_SETTLE, maxStepsFor, newRunId, runTasks } from "./runner/runner.js";
export { checkTasks, whySolutionFailed } from "./health/check.js";
export type { CheckOptions, TaskCheck } from "./health/check.js";
export { checkHealth, healthRunFolders, measureHealth, poolHealthExecutor } from "./health/health.js";
export type { HealthOptions, HealthRunExecutor, HealthRunSpec, MeasureHealthOptions } from "./health/health.js";
export { taskHealth } from "./health/taskHealth.js";
export type { HealthFinding, HealthFindingKind, HealthReason, HealthReport, HealthRun, HealthStatus, TaskHealth } from "./health/taskHealth.js";
export type { RunDataset, RunnerOptions, RunProgress } from "./runner/runner.js";
/** Replays a finished run's recorded actions on fresh machines and names where each task diverges (what `pincer replay` does). */
export { replayRun, writeReplayComparison } from "./replay/replay.js";
export type { ReplayOptions } from "./replay/replay.js";
export { loadReplaySource, readRunManifest } from "./replay/source.js";
export type { ReplaySource, ReplaySourceOptions, ReplayTask, RunManifest } from "./replay/source.js";
export { ReplayAgent, recordedTurns } from "./replay/replayAgent.js";
export type { RecordedTurn, ReplayTiming } from "./replay/replayAgent.js";
export { DEFAULT_SCREEN_THRESHOLD } from "./replay/stepDifferences.js";
export type {
  CompareOptions,
  ComparedAttempt,
  DifferenceKind,
  ReplayReport,
  StepComparison,
  StepDifference,
  TaskComparison,
} from "./replay/stepDifferences.js";
export { buildReport, reportMarkdown } from "./reports/report.js";
export type { Report } from "./reports/report.js";
/** Rebuilds report.json, report.md and report.html of an existing run folder (what `pincer report RUN_DIR` does). */
export { rebuildRunReport } from "./reports/writeReports.js";
/** The comparison page of two runs of the same dataset (what `pincer report --compare RUN_A RUN_B` writes), and the comparison it shows. */
export { compareRuns, taskChange, writeRunComparison } from "./reports/runComparison.js";
export type { ComparedRun, ComparedTask, RunComparison, TaskChange } from "./reports/runComparison.js";
export type { RunConfig } from "./reports/viewerData.js";
export type { ScreenshotGeometry, TrajectoryLine } from "./runFolder/trajectory.js";
export type { AgentState, Summary, TaskResults, TaskState } from "./runFolder/results.js";
export { drawMarks, marksOf } from "./benchmark/marks.js";
export type { AccessibilityMode } from "./benchmark/screenObservation.js";
