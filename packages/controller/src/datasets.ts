/**
 * `@pincer/controller/datasets`: tasks as files. The JSON task-dataset format
 * (`<tool>/<id>/<id>.json`), TypeScript task modules (`*.task.ts`, {@link defineTask}), and the
 * config and evaluation helpers that JSON tasks name, open to your own.
 */
export { defineTask } from "./datasets/moduleTask.js";
export type { TaskBuildContext, TaskModule } from "./datasets/moduleTask.js";
export { defineConfigHelper, defineEvaluationHelper, Registry, resolveLocal } from "./datasets/helpers.js";
export type { ConfigHelper, ConfigRegistry, EvaluationHelper, EvaluationOutcome, EvaluationRegistry, HelperContext } from "./datasets/helpers.js";
export { createRegistries } from "./datasets/registries.js";
export type { Registries } from "./datasets/registries.js";
export { builtinConfigHelpers, createConfigRegistry } from "./datasets/configHelpers/index.js";
export { builtinEvaluationHelpers, createEvaluationRegistry } from "./datasets/evaluationHelpers/index.js";
export { jsonTaskSchema, translateLegacySpelling } from "./datasets/jsonFormat.js";
export type { HelperCall, JsonTask } from "./datasets/jsonFormat.js";
export { coverageOf, formatProblems, loadDataset } from "./datasets/loader.js";
export { functionsOf, missingFunctions, OSWORLD_FUNCTIONS, osworldTaskSchema } from "./datasets/osworldFormat.js";
export type { OsworldFunction, OsworldTaskJson } from "./datasets/osworldFormat.js";
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
