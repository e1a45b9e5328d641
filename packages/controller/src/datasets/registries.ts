import { createConfigRegistry } from "./configHelpers/index.js";
import { createEvaluationRegistry } from "./evaluationHelpers/index.js";
import type { ConfigHelper, ConfigRegistry, EvaluationHelper, EvaluationRegistry } from "./helpers.js";

/** Both helper registries with the built-ins and any user additions. */
export interface Registries {
  configs: ConfigRegistry;
  evaluations: EvaluationRegistry;
}

/** The built-in config and evaluation helpers, plus `extra`. */
export function createRegistries(extra: { configs?: ConfigHelper[]; evaluations?: EvaluationHelper[] } = {}): Registries {
  return {
    configs: createConfigRegistry(extra.configs ?? []),
    evaluations: createEvaluationRegistry(extra.evaluations ?? []),
  };
}
