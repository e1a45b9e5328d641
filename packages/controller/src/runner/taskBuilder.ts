import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { action } from "../actions/action.js";
import { createDesktopActions } from "../actions/desktop.js";
import { createSystemActions } from "../actions/system.js";
import type { Agent } from "../agents/types.js";
import { createBenchmark, type Benchmark } from "../benchmark/benchmark.js";
import { createEnvironment } from "../benchmark/environment.js";
import { screenObservation, type ScreenObservationOptions } from "../benchmark/screenObservation.js";
import type { ConfigRegistry, EvaluationRegistry, HelperContext } from "../datasets/helpers.js";
import type { DatasetTask } from "../datasets/loader.js";
import { buildOsworldTask } from "../datasets/osworld/task.js";
import { environmentsOf } from "../datasets/solutionCheck.js";
import type { Env } from "../env/index.js";
import { evaluator } from "../evaluators/evaluator.js";
import { createTask, type ActionCall, type Task } from "../tasks/task.js";

export { environmentsOf };

/** What building a dataset task needs. */
export interface TaskBuildInput {
  /**
   * What each environment shows the agent before each turn (its observation space): the screen
   * observation with these options, or nothing (false: no one looks). @default false
   */
  observe?: ScreenObservationOptions | false;
  task: DatasetTask;
  envs: Readonly<Record<string, Env>>;
  registries: { configs: ConfigRegistry; evaluations: EvaluationRegistry };
  /** The agent's own actions join every environment's action space. */
  agent: Pick<Agent, "actions">;
  maxSteps: number;
  /** Wall-clock limit of the agent's part, in ms. */
  timeLimitMs: number;
}

/** A setup action that runs one config entry through its helper. */
function configAction(registry: ConfigRegistry, func: string, ctxBase: Omit<HelperContext, "env" | "signal">) {
  const helper = registry.get(func)!;
  return action({
    name: `config_${func}`.replace(/__+/g, "_").slice(0, 64),
    description: helper.description,
    params: z.object({ arguments: z.record(z.string(), z.unknown()) }),
    run: async ({ arguments: args }, { env, signal }) => helper.run(helper.args.parse(args), { ...ctxBase, env, signal }),
  });
}

/** The evaluator of a JSON task: its `evaluation` helper, whose verdict is the task's. */
function evaluationEvaluator(input: TaskBuildInput & { task: { kind: "json" } }) {
  const evalCall = input.task.json.evaluation;
  const helper = input.registries.evaluations.get(evalCall.func)!;
  const ctxBase = { envs: input.envs, taskDir: input.task.dir };
  return evaluator({
    name: "evaluation",
    description: `${evalCall.func}: ${helper.description}`,
    ...(evalCall.env ? { env: evalCall.env } : {}),
    run: (_params, { env, signal }) => helper.run(helper.args.parse(evalCall.arguments), { ...ctxBase, env, signal }),
  });
}

/**
 * Builds the Task of a dataset task: a module task's `build()`, or a JSON task's `config` entries
 * as setup actions and its `evaluation` as the evaluator. Throws when the task cannot be built.
 */
export function buildTask(input: TaskBuildInput, dir?: string): Task {
  const { task, envs, registries } = input;
  if (task.kind === "module") {
    const built = task.module.build({ envs, taskDir: task.dir });
    return createTask({ maxSteps: input.maxSteps, timeLimitMs: input.timeLimitMs, ...built, id: task.id, description: task.instruction, tags: task.tags });
  }
  if (task.kind === "osworld") {
    // Its steps and evaluator run on the default environment, which environmentsOf names "desktop".
    if (!envs.desktop) throw new Error("an OSWorld task runs on the environment named desktop");
    const base = { id: task.id, instruction: task.instruction, tags: task.tags, json: task.json, maxSteps: input.maxSteps, timeLimitMs: input.timeLimitMs };
    return buildOsworldTask({ ...base, dir: dir ?? join(tmpdir(), `pincer-osworld-${task.id}`) });
  }
  const ctxBase = { envs, taskDir: task.dir };
  const setup: ActionCall[] = task.json.config.map((c) => ({
    action: configAction(registries.configs, c.func, ctxBase),
    args: { arguments: c.arguments },
    ...(c.env ? { env: c.env } : {}),
  }));
  return createTask({
    id: task.id,
    description: task.instruction,
    evaluator: evaluationEvaluator({ ...input, task }),
    setup,
    maxSteps: input.maxSteps,
    timeLimitMs: input.timeLimitMs,
    tags: task.tags,
  });
}

/**
 * Builds the task and a benchmark of it alone over the attempt's machines. Each environment offers
 * the desktop and system actions (local files under `dir`, uploads also from the task's folder) and
 * the agent's own actions, unless the
 * task brings one of the same name there. Throws when the task cannot be built or its actions clash.
 */
export function buildBenchmark(input: TaskBuildInput, dir: string): { task: Task; bench: Benchmark } {
  const task = buildTask(input, dir);
  // Relative local paths: downloads go to the attempt folder; uploads read from it, then from the task's folder.
  const systemActions = createSystemActions({ localRoot: dir, readRoots: [input.task.dir] });
  const environments = Object.entries(input.envs).map(([name, env]) =>
    createEnvironment({
      name,
      env,
      actions: [
        ...Object.values(createDesktopActions()),
        ...Object.values(systemActions),
        ...(input.agent.actions ?? []).filter((a) => !(task.extraActions[name] ?? []).some((t) => t.name === a.name)),
      ],
      observations: input.observe ? [screenObservation(input.observe)] : [],
    }),
  );
  const bench = createBenchmark({ environments, tasks: [task], defaultEnvironment: environmentsOf(input.task)[0]! });
  return { task, bench };
}
