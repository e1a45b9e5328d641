import { createConfigRegistry } from "./configFunctions/index.js";
import { createEvaluationRegistry } from "./evaluationFunctions/index.js";
import type { DatasetFormat } from "./format.js";
import { type ConfigFunction, type ConfigRegistry, type EvaluationFunction, type EvaluationRegistry, Registry } from "./taskFunctions.js";
import { jsonTaskFormat } from "./jsonTasks.js";
import { moduleTaskFormat } from "./moduleFormat.js";

/** The dataset formats a dataset is read with, in the order they are asked to claim a file. */
export type FormatRegistry = Registry<DatasetFormat>;

/** The dataset formats, and the JSON task format's config and evaluation functions, with the built-ins and any additions. */
export interface Registries {
  configs: ConfigRegistry;
  evaluations: EvaluationRegistry;
  formats: FormatRegistry;
}

/**
 * The built-in config and evaluation functions and dataset formats (the JSON task format and task
 * modules), plus `extra`: your functions, and your formats (asked after the built-ins, in order;
 * OSWorld's is `osworldFormat` from `@pincer/controller/osworld`).
 */
export function createRegistries(
  extra: { configs?: ConfigFunction[]; evaluations?: EvaluationFunction[]; formats?: readonly DatasetFormat[] } = {},
): Registries {
  return {
    configs: createConfigRegistry(extra.configs ?? []),
    evaluations: createEvaluationRegistry(extra.evaluations ?? []),
    formats: new Registry<DatasetFormat>("dataset format", [jsonTaskFormat, moduleTaskFormat, ...(extra.formats ?? [])] as DatasetFormat[]),
  };
}
