/**
 * `@pincer/controller/runner`: runs a dataset's tasks with an agent, with bounded concurrency and
 * retries, and writes summary.json, trajectories, screenshots and a report per run.
 */
export { DEFAULT_SETTLE, maxStepsFor, newRunId, runTasks } from "./runner/runner.js";
export { checkTasks, whySolutionFailed } from "./runner/check.js";
export type { CheckOptions, TaskCheck } from "./runner/check.js";
export { checkHealth, healthRunFolders, measureHealth, poolHealthExecutor } from "./runner/health.js";
export type { HealthOptions, HealthRunExecutor, HealthRunSpec, MeasureHealthOptions } from "./runner/health.js";
export { taskHealth } from "./runner/taskHealth.js";
export type { HealthFinding, HealthFindingKind, HealthReason, HealthReport, HealthRun, HealthStatus, TaskHealth } from "./runner/taskHealth.js";
export type { RunDataset, RunnerOptions, RunProgress } from "./runner/runner.js";
/** Replays a finished run's recorded actions on fresh machines and names where each task diverges (what `pincer replay` does). */
export { replayRun, writeReplayComparison } from "./runner/replay/replay.js";
export type { ReplayOptions } from "./runner/replay/replay.js";
export { loadReplaySource, readRunManifest } from "./runner/replay/source.js";
export type { ReplaySource, ReplaySourceOptions, ReplayTask, RunManifest } from "./runner/replay/source.js";
export { ReplayAgent, recordedTurns } from "./runner/replay/replayAgent.js";
export type { RecordedTurn, ReplayTiming } from "./runner/replay/replayAgent.js";
export { DEFAULT_SCREEN_THRESHOLD } from "./runner/replay/compare.js";
export type { CompareOptions, ComparedAttempt, DifferenceKind, ReplayReport, StepComparison, StepDifference, TaskComparison } from "./runner/replay/compare.js";
export { buildReport, reportMarkdown } from "./runner/report.js";
export type { Report } from "./runner/report.js";
/** Rebuilds report.json, report.md and report.html of an existing run folder (what `pincer report RUN_DIR` does). */
export { rebuildRunReport } from "./runner/runReport.js";
/** The comparison page of two runs of the same dataset (what `pincer report --compare RUN_A RUN_B` writes), and the comparison it shows. */
export { compareRuns, taskChange, writeRunComparison } from "./runner/runComparison.js";
export type { ComparedRun, ComparedTask, RunComparison, TaskChange } from "./runner/runComparison.js";
export type { RunConfig } from "./runner/viewerData.js";
export type { ScreenshotGeometry, TrajectoryLine } from "./runner/trajectory.js";
export type { AgentState, Summary, TaskResults, TaskState } from "./runner/results.js";
export { drawMarks, marksOf } from "./benchmark/marks.js";
export type { AccessibilityMode } from "./benchmark/screenObservation.js";
