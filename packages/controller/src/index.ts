/**
 * `@pincer/controller`: the core. Connect to machines (`connect`), describe what an agent can do
 * (`action`) and how to judge the outcome (`evaluator`, `createGraphEvaluator`), and run tasks on
 * named environments (`createTask`, `createBenchmark`). Loading this entry loads no model SDK and no
 * image library; those come with the subpath entries:
 *
 * - `@pincer/controller/agents`: model agents (OpenAI, Anthropic) and the scripted agent;
 * - `@pincer/controller/datasets`: dataset formats: the JSON task format with its config and evaluation
 *   functions, task modules, and formats of your own;
 * - `@pincer/controller/osworld`: OSWorld's task format;
 * - `@pincer/controller/machines`: local machines (Xvfb + daemon) and pools of machines;
 * - `@pincer/controller/runner`: running a dataset and writing results;
 * - `@pincer/controller/mcp`: an MCP server over one machine.
 */

// Machines: the `env` handle and its APIs.
export * from "./env/index.js";
export {
  AlreadyExistsError,
  CancelledError,
  CommandExitError,
  FailedPreconditionError,
  InternalError,
  InvalidArgumentError,
  NotFoundError,
  parseChord,
  PermissionDeniedError,
  PincerError,
  resolveKey,
  ResourceExhaustedError,
  TimeoutError,
  UnauthenticatedError,
  UnavailableError,
  UnimplementedError,
} from "@pincer/shared";

// Actions.
export { action, Action } from "./actions/action.js";
export type { ActionContext, ActionDefinition, ActionResult, AnyAction, CallContext, ComposeOptions, EpisodeHandle } from "./actions/action.js";
export { ActionArgumentsError, ActionDefinitionError, ActionReturnError } from "./actions/errors.js";
export type { ArgumentIssue, ErrorInfo } from "./actions/errors.js";
export { decodeToolName, encodeToolName, TOOL_SEPARATOR } from "./actions/names.js";
export type { JsonSchema } from "./actions/jsonSchema.js";
export { toolSchema } from "./actions/toolSchemas.js";
export type { AnthropicTool, GeminiFunctionDeclaration, McpTool, OpenAITool, ToolProvider, ToolSchemaByProvider, ToolSource } from "./actions/toolSchemas.js";
export { createDesktopActions, desktopActions, wait } from "./actions/desktop.js";
export type { CoordinateMode, DesktopActionsOptions } from "./actions/desktop.js";
export { createSystemActions, systemActions } from "./actions/system.js";
export type { SystemActionsOptions } from "./actions/system.js";
export { complete, rootActions, submit } from "./actions/root.js";

// Evaluators.
export { and, evaluator, isEvaluator, judge, not, or } from "./evaluators/evaluator.js";
export { fail, pass, passes, toVerdict, VERDICT } from "./evaluators/verdict.js";
export type { Verdict, VerdictLike } from "./evaluators/verdict.js";
export type { AnyEvaluator, Evaluator, EvaluatorDefinition } from "./evaluators/evaluator.js";
export { createGraphEvaluator, GraphEvaluator } from "./evaluators/graph.js";
export type { EvaluateOptions, GraphEvaluatorOptions, GraphNode, GraphNodeInput } from "./evaluators/graph.js";
export { computeMetrics } from "./evaluators/metrics.js";
export type { EpisodeEvent, EvaluationState, GraphMetrics, GraphShape, NodeStatus, PassPolicy } from "./evaluators/metrics.js";

// Tasks and benchmarks.
export { createTask, DEFAULT_MAX_STEPS, DEFAULT_TIME_LIMIT_MS } from "./tasks/task.js";
export type { ActionCall, PreparedCall, Task, TaskOptions } from "./tasks/task.js";
export { createEnvironment, createRootEnvironment, ROOT_ENVIRONMENT } from "./benchmark/environment.js";
export { DEFAULT_SETTLE, observeScreen, SCREEN_OBSERVATION, screenObservation } from "./benchmark/screenObservation.js";
export type { AccessibilityMode, ScreenObservation, ScreenObservationOptions, SettleRecord } from "./benchmark/screenObservation.js";
export type { Environment, EnvironmentOptions } from "./benchmark/environment.js";
export { Benchmark, createBenchmark } from "./benchmark/benchmark.js";
export type { BenchmarkOptions } from "./benchmark/benchmark.js";
export { END_REASONS, isTerminal, TeardownError } from "./benchmark/types.js";
export type { BenchmarkCallOptions, EndReason, EpisodeState, Observation, StartResult, StepCall, StepOptions, StepResult } from "./benchmark/types.js";
