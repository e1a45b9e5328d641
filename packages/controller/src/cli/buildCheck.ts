import { noMachineEnv, type Env } from "../env/index.js";
import type { Dataset } from "../datasets/loader.js";
import type { Registries } from "../datasets/registries.js";
import { buildBenchmark, environmentsOf } from "../runner/taskBuilder.js";
import { DEFAULT_MAX_STEPS, DEFAULT_TIME_LIMIT_MS } from "../tasks/task.js";

/**
 * Builds every task of `dataset` as a run does (a module's `build()`, the task, and the benchmark
 * of it over its environments with their own actions), on environments that have no machine. A task
 * that cannot be built, e.g. whose extra action is named like one of an environment's own actions,
 * gets an error under its file (path `build`) and leaves `tasks`, as other invalid tasks do.
 */
export function checkTasksBuild(dataset: Dataset, registries: Registries): Dataset {
  const problems = [...dataset.problems];
  const tasks = dataset.tasks.filter((task) => {
    const envs: Record<string, Env> = {};
    for (const name of environmentsOf(task)) envs[name] = noMachineEnv(`${name} has no machine while tasks are validated; build() must not use it`);
    try {
      buildBenchmark({ task, envs, registries, agent: {}, maxSteps: DEFAULT_MAX_STEPS, timeLimitMs: DEFAULT_TIME_LIMIT_MS }, task.dir);
      return true;
    } catch (err) {
      problems.push({ file: task.file, path: "build", message: `the task cannot be built: ${(err as Error).message}`, severity: "error" });
      return false;
    }
  });
  return { ...dataset, tasks, problems };
}
