import { dirname } from "node:path";
import type { AnyAction } from "../actions/action.js";
import { noMachineEnv, type Env } from "../env/index.js";
import { createTask, type Task } from "../tasks/task.js";
import { defineDatasetFormat, type DatasetTask, type FormatBuildInput, type FormatContext, type TaskFile } from "./format.js";
import { taskFolder } from "./taskFunctions.js";
import { jsonPath } from "./jsonFormat.js";
import type { TaskModule } from "./taskModule.js";
import { checkSolutionSteps } from "./solutionCheck.js";
import { loadSolution, solutionFileOf, solutionSchema } from "./solutions.js";
import { groupOf, MODULE_SUFFIXES } from "./taskFiles.js";

/** A task from a `*.task.ts` module. */
export interface ModuleDatasetTask extends DatasetTask {
  kind: "module";
  module: TaskModule;
}

async function loadModuleTask(file: TaskFile, ctx: FormatContext): Promise<ModuleDatasetTask | undefined> {
  const { problems } = ctx;
  let mod: { default?: TaskModule };
  try {
    mod = (await ctx.importModule(file.path)) as { default?: TaskModule };
  } catch (err) {
    problems.push({ file: file.path, path: "", message: `cannot load: ${(err as Error).message}`, severity: "error" });
    return undefined;
  }
  let m = mod.default;
  if (!m || typeof m.id !== "string" || typeof m.instruction !== "string" || typeof m.build !== "function") {
    problems.push({ file: file.path, path: "", message: "the default export must be defineTask({ id, instruction, build, ... })", severity: "error" });
    return undefined;
  }
  // A module without a `solution` of its own may have one beside it (`pincer record` writes it there).
  const besideFile = m.solution ? undefined : solutionFileOf({ kind: "module", file: file.path });
  const beside = besideFile ? await loadSolution(besideFile, problems) : undefined;
  if (beside) m = { ...m, solution: beside };
  const solution = m.solution ? solutionSchema.safeParse(m.solution) : undefined;
  if (solution && !solution.success) {
    for (const issue of solution.error.issues) {
      const at = jsonPath(issue.path);
      problems.push({ file: file.path, path: `solution${at ? `.${at}` : ""}`, message: issue.message, severity: "error" });
    }
  }
  const dir = dirname(file.path);
  const task: ModuleDatasetTask = {
    kind: "module",
    id: m.id,
    // examples/<tool>/x.task.ts → <tool>; a module in the folder given, or given itself → its folder's name.
    tool: groupOf(file.root, dir),
    dir,
    file: file.path,
    instruction: m.instruction,
    tags: m.tags ?? [],
    relatedApps: m.related_apps ?? [],
    environments: [...(m.environments ?? ["desktop"])],
    ...(m.action_number !== undefined ? { actionNumber: m.action_number } : {}),
    ...(m.counterpart !== undefined ? { counterpart: m.counterpart } : {}),
    ...(m.solution ? { solution: m.solution } : {}),
    fields: {
      id: m.id,
      instruction: m.instruction,
      tags: m.tags ?? [],
      related_apps: m.related_apps ?? [],
      ...(m.action_number !== undefined ? { action_number: m.action_number } : {}),
      ...(m.counterpart !== undefined ? { counterpart: m.counterpart } : {}),
      environments: m.environments ?? ["desktop"],
      source_module: file.path,
    },
    module: m,
  };
  if (solution?.success) {
    const found: typeof problems = [];
    // A module's build() may bring actions of its own: built here on environments without a machine,
    // it lists them, and an action no environment has is an error, as in solution.json. A build()
    // that needs its machines leaves them unknown, and such an action only a warning.
    const extraActions = moduleExtraActions(m, dir, task.environments);
    checkSolutionSteps(task, solution.data, file.path, found, extraActions ? { extraActions } : { unknownAction: "warning" });
    problems.push(...found.map((p) => ({ ...p, path: `solution${p.path}` })));
  }
  return task;
}

/** What a module's `build()` adds to each environment, built on environments that have no machine; undefined when it cannot build so. */
function moduleExtraActions(m: TaskModule, dir: string, environments: readonly string[]): Readonly<Record<string, readonly AnyAction[]>> | undefined {
  const envs: Record<string, Env> = {};
  for (const name of environments) envs[name] = noMachineEnv(`${name} has no machine while tasks are validated; build() must not use it`);
  try {
    return m.build({ envs, taskDir: dir, taskFiles: taskFolder(dir) }).extraActions ?? {};
  } catch {
    return undefined;
  }
}

/** Builds a module task: what its `build()` returns, with the run's limits. */
function buildModuleTask(task: ModuleDatasetTask, input: FormatBuildInput): Task {
  const built = task.module.build({ envs: input.envs, taskDir: task.dir, taskFiles: taskFolder(task.dir) });
  return createTask({ maxSteps: input.maxSteps, timeLimitMs: input.timeLimitMs, ...built, id: task.id, description: task.instruction, tags: task.tags });
}

/**
 * Task modules: a `*.task.ts` (or `.mts`, `.js`, `.mjs`) file whose default export is
 * `defineTask({ id, instruction, build, ... })`, for what the JSON task format cannot say (evaluator
 * graphs, several machines, code).
 */
export const moduleTaskFormat = defineDatasetFormat<ModuleDatasetTask>({
  name: "module",
  description: "task modules (*.task.ts, whose default export is defineTask({...}))",
  claims: (file) => MODULE_SUFFIXES.some((s) => file.path.endsWith(s)),
  load: loadModuleTask,
  build: buildModuleTask,
});
