/**
 * `@pincer/controller/runner`: runs a dataset's tasks with an agent, with bounded concurrency and
 * retries, and writes summary.json, trajectories, screenshots and a report per run.
 */
export { DEFAULT_SETTLE, maxStepsFor, newRunId, runTasks } from "./runner/runner.js";
export { checkTasks } from "./health/check.js";
export type { CheckOptions, TaskCheck } from "./health/check.js";
export { checkHealth, healthRunFolders, measureHealth, poolHealthExecutor } from "./health/health.js";
export type { HealthOptions, HealthRunExecutor, HealthRunSpec, MeasureHealthOptions } from "./health/health.js";
export { taskHealth } from "./health/taskHealth.js";
export type { HealthFinding, HealthFindingKind, HealthReason, HealthReport, HealthRun, HealthStatus, TaskHealth } from "./health/taskHealth.js";
export type { RunDataset, RunnerOptions, RunProgress } from "./runner/runner.js";
/** A run's settings: one type from the flags to each attempt (see RunSettings), with its defaults. */
export { DEFAULT_RUN_SETTINGS, runSettings, runSettingsSchema } from "./runner/settings.js";
export type { RunSettings } from "./runner/settings.js";
/** One attempt's lifecycle (setup, steps, teardown, verdict, summary.json), driven by an agent or step by step from outside. */
export { Attempt } from "./runner/attempt.js";
export type { AttemptAgent, AttemptInput, AttemptStep } from "./runner/attempt.js";
export type { RecordingResults } from "./runner/recording.js";
/** Replays a finished run's recorded actions on fresh machines and names where each task diverges (what `pincer replay` does). */
export { replayRun } from "./replay/replay.js";
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
/** The statistics of a run of several rollouts per task: pass@k by the unbiased estimator, best-of-N, the spread of the scores. */
export { passAtK, rolloutStats, runRolloutStats } from "./reports/rollouts.js";
export type { RolloutResult, RolloutStats, RunRolloutStats } from "./reports/rollouts.js";
/** Rebuilds report.json, report.md and report.html of an existing run folder (what `pincer report RUN_DIR` does). */
export { rebuildRunReport } from "./reports/writeReports.js";
/** The comparison page of two runs of the same dataset (what `pincer report --compare RUN_A RUN_B` writes), and the comparison it shows. */
export { compareRuns, taskChange, writeRunComparison } from "./reports/runComparison.js";
export type { ComparedRun, ComparedTask, RunComparison, TaskChange } from "./reports/runComparison.js";
export type { RunConfig } from "./reports/viewerData.js";
export type { ScreenshotGeometry, TrajectoryLine } from "./runFolder/trajectory.js";
/** The run folder's files, read as their schemas say (an error names the file and the JSON path; files without format_version are version 0). */
export { readHealth, readManifest, readReplayReport, readSummary, readTrajectory, RunFileError } from "./runFolder/runFiles.js";
export { FORMAT_VERSION, manifestSchema, summarySchema, trajectoryLineSchema } from "./runFolder/schemas.js";
export type { AgentState, Summary, TaskResults, TaskState } from "./runFolder/results.js";
export { drawMarks, marksOf } from "./benchmark/marks.js";
/** The limits a task gets when it names none, how an episode ends, and the graph metrics of results. */
export { DEFAULT_MAX_STEPS, DEFAULT_TIME_LIMIT_MS } from "./tasks/task.js";
export { END_REASONS, isTerminal } from "./benchmark/types.js";
export { computeMetrics } from "./evaluators/metrics.js";
export type { GraphMetrics } from "./evaluators/metrics.js";
/**
 * The live page (`pincer run --live`): a board of the run's slots (pass it as `live` to runTasks),
 * its page served on loopback or with a token, and takeover by a person between the agent's turns.
 */
export { LiveBoard, HUMAN_ACTIONS } from "./runner/liveBoard.js";
export type { AttemptLive, HumanActionName, HumanCall, HumanStep, LastAction, LiveBoardOptions, SlotMode, SlotView } from "./runner/liveBoard.js";
export { startLiveServer } from "./live/server.js";
export type { LiveServer, LiveServerOptions } from "./live/server.js";
/** Serves one machine's `env` to standard VNC viewers (view only with `viewOnly`). */
export { startVncServer } from "./live/vnc.js";
export type { VncInputEvent, VncServer, VncServerOptions } from "./live/vnc.js";
/** A demonstration's solution: the person's actions of a trajectory as tool calls, with waits (what `pincer record` writes). */
export { DemonstrationAgent, solutionFromDemonstration } from "./runner/demonstration.js";
