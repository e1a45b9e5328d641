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
 * - `@pincer/controller/machines`: local machines (Xvfb + daemon), pools of machines, and the env's API
 *   interfaces and their option types (`FilesApi`, `UploadOptions`, …);
 * - `@pincer/controller/runner`: running a dataset and writing results;
 * - `@pincer/controller/queue`: a run spread over worker hosts;
 * - `@pincer/controller/mcp`: an MCP server over one machine.
 */

// Machines: the `env` handle (its API interfaces and their option types are in `@pincer/controller/machines`).
export type { Env } from "./env/env.js";
export type { CallOptions, MouseButton, Point, Region, Size } from "./env/types.js";
export { screenshotToScreen } from "./env/screen.js";
export type { ImageFormat, ScreenFrame, Screenshot, ScreenshotOptions, ScreenWatch, SettleOptions, SettleResult, WatchScreenOptions } from "./env/screen.js";
export type { FileInfo } from "./env/files.js";
export type { ExecResult, ProcessEvent, ProcessExit, ProcessHandle } from "./env/process.js";
export type { WindowInfo } from "./env/windows.js";
export type { AccessibilityTree, AccessibleNode } from "./env/accessibility.js";
export { connect, RemoteEnv } from "./env/remoteEnv.js";
export type { ConnectOptions, TlsConnectOptions } from "./env/remoteEnv.js";
export type { RpcCall, RpcCallKind, RpcHandler, RpcInterceptor } from "./env/interceptors.js";
export { createMemoryEnv } from "./env/memoryEnv.js";
export type { MemoryEnv, MemoryEnvEvent, MemoryEnvOptions } from "./env/memoryEnv.js";
export {
  AlreadyExistsError,
  CancelledError,
  CommandExitError,
  FailedPreconditionError,
  InternalError,
  InvalidArgumentError,
  NotFoundError,
  PermissionDeniedError,
  PincerError,
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
export { toolSchema } from "./actions/toolSchemas.js";
export type { ToolProvider, ToolSchemaByProvider } from "./actions/toolSchemas.js";
export type { JsonSchema } from "./actions/jsonSchema.js";
export { createDesktopActions, desktopActions, wait } from "./actions/desktop.js";
export type { CoordinateMode, DesktopActionsOptions } from "./actions/desktop.js";
export { createSystemActions, systemActions } from "./actions/system.js";
export type { SystemActionsOptions } from "./actions/system.js";
export { complete, rootActions, submit } from "./actions/root.js";

// Evaluators.
export { and, evaluator, judge, not, or } from "./evaluators/evaluator.js";
export { fail, pass, passes } from "./evaluators/verdict.js";
export type { Verdict, VerdictLike } from "./evaluators/verdict.js";
export type { AnyEvaluator, Evaluator, EvaluatorDefinition } from "./evaluators/evaluator.js";
export { createGraphEvaluator, GraphEvaluator } from "./evaluators/graph.js";
export type { EvaluateOptions, GraphEvaluatorOptions, GraphNode, GraphNodeInput } from "./evaluators/graph.js";
export type { EpisodeEvent, EvaluationState, GraphShape, NodeStatus, PassPolicy } from "./evaluators/metrics.js";

// Tasks and benchmarks.
export { createTask } from "./tasks/task.js";
export type { ActionCall, PreparedCall, Task, TaskOptions } from "./tasks/task.js";
export { createEnvironment } from "./benchmark/environment.js";
export { screenObservation } from "./benchmark/screenObservation.js";
export type { AccessibilityMode, ScreenObservation, ScreenObservationOptions, SettleRecord } from "./benchmark/screenObservation.js";
export type { Environment, EnvironmentOptions } from "./benchmark/environment.js";
export { Benchmark, createBenchmark } from "./benchmark/benchmark.js";
export type { BenchmarkOptions } from "./benchmark/benchmark.js";
export { TeardownError } from "./benchmark/types.js";
export type { BenchmarkCallOptions, EndReason, EpisodeState, Observation, StartResult, StepCall, StepOptions, StepResult } from "./benchmark/types.js";
