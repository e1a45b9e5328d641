/**
 * `@pincer/controller/datasets`: tasks as files, read by dataset formats. Two are built in — the
 * JSON task format (`<tool>/<id>/<id>.json`, with the config and evaluation functions its tasks
 * name, open to your own) and TypeScript task modules (`*.task.ts`, {@link defineTask}); add
 * yours with {@link defineDatasetFormat} and `createRegistries({ formats })`. OSWorld's is in
 * `@pincer/controller/osworld`.
 */
export { defineTask } from "./datasets/taskModule.js";
export type { TaskBuildContext, TaskModule } from "./datasets/taskModule.js";
export { defineDatasetFormat, isUnsupported } from "./datasets/format.js";
export type { DatasetFormat, FormatBuildInput, FormatContext, TaskFile } from "./datasets/format.js";
export { jsonTaskFormat } from "./datasets/jsonTasks.js";
export { moduleTaskFormat } from "./datasets/moduleFormat.js";
export {
  defineConfigFunction,
  defineEvaluationFunction,
  readTaskFile,
  Registry,
  resolveLocal,
  taskFolder,
  withTaskFile,
} from "./datasets/taskFunctions.js";
export type {
  ConfigFunction,
  ConfigRegistry,
  EvaluationFunction,
  EvaluationRegistry,
  TaskFunctionContext,
  TaskFolder,
} from "./datasets/taskFunctions.js";
export { createRegistries } from "./datasets/registries.js";
export type { FormatRegistry, Registries } from "./datasets/registries.js";
export { builtinConfigFunctions, createConfigRegistry } from "./datasets/configFunctions/index.js";
export { builtinEvaluationFunctions, createEvaluationRegistry } from "./datasets/evaluationFunctions/index.js";
export { isGraphEvaluation, jsonTaskSchema, translateLegacySpelling } from "./datasets/jsonFormat.js";
export type { EvaluationGraph, FunctionCall, GraphEvaluation, JsonTask } from "./datasets/jsonFormat.js";
export { checkSolutionSteps } from "./datasets/solutionCheck.js";
export type { SolutionCheckOptions } from "./datasets/solutionCheck.js";
export { loadSolution, solutionSchema } from "./datasets/solutions.js";
export { groupOf, readJson } from "./datasets/taskFiles.js";
export { coverageOf, formatProblems, loadDataset } from "./datasets/loader.js";
export type {
  Coverage,
  Dataset,
  DatasetProblem,
  DatasetTask,
  JsonDatasetTask,
  LoadDatasetOptions,
  ModuleDatasetTask,
  UnsupportedTask,
} from "./datasets/loader.js";
/** What dataset formats and evaluation functions build on: verdicts from loose values, and tasks with no machine. */
export { isEvaluator } from "./evaluators/evaluator.js";
export { toVerdict, VERDICT } from "./evaluators/verdict.js";
export { createRootEnvironment, ROOT_ENVIRONMENT } from "./benchmark/environment.js";
export { noMachineEnv } from "./env/noMachineEnv.js";
