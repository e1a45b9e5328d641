import type { AnyAction } from "../actions/action.js";
import { createDesktopActions } from "../actions/desktop.js";
import { createSystemActions } from "../actions/system.js";
import type { Agent } from "../agents/types.js";
import { createBenchmark, type Benchmark } from "../benchmark/benchmark.js";
import { createEnvironment } from "../benchmark/environment.js";
import { screenObservation, type ScreenObservationOptions } from "../benchmark/screenObservation.js";
import type { DatasetTask } from "../datasets/format.js";
import type { Registries } from "../datasets/registries.js";
import type { Env } from "../env/index.js";

/** The entries of `record` named in `names`, in that order. */
export function only<T>(record: Readonly<Record<string, T>>, names: readonly string[]): Record<string, T> {
  return Object.fromEntries(names.filter((n) => n in record).map((n) => [n, record[n]!]));
}
import type { Task } from "../tasks/task.js";

/** The environment names a task needs; the first is where its unnamed setup and evaluators run. */
export function environmentsOf(task: Pick<DatasetTask, "environments">): string[] {
  return [...task.environments];
}

/** What building a dataset task needs. */
export interface TaskBuildInput {
  /**
   * What each environment shows the agent before each turn (its observation space): the screen
   * observation with these options, or nothing (false: no one looks). @default false
   */
  observe?: ScreenObservationOptions | false;
  task: DatasetTask;
  envs: Readonly<Record<string, Env>>;
  /** The dataset formats (the one that loaded the task builds it) and the JSON task format's functions. */
  registries: Registries;
  /** The agent's own actions join every environment's action space. */
  agent: Pick<Agent, "actions">;
  maxSteps: number;
  /** Wall-clock limit of the agent's part, in ms. */
  timeLimitMs: number;
  /** Actions every environment also offers (e.g. an episode server's action spaces), as the agent's own. */
  extraActions?: readonly AnyAction[];
}

/** Builds the Task of a dataset task, through the format that loaded it. Throws when the task cannot be built. */
export function buildTask(input: TaskBuildInput, dir: string): Task {
  const format = input.registries.formats.get(input.task.kind);
  if (!format) {
    throw new Error(
      `task ${input.task.id} is of the ${input.task.kind} format, which is not registered here (formats: ${input.registries.formats.names().join(", ")})`,
    );
  }
  return format.build(input.task, {
    envs: input.envs,
    registries: input.registries,
    agent: input.agent,
    maxSteps: input.maxSteps,
    timeLimitMs: input.timeLimitMs,
    dir,
  });
}

/**
 * Builds the task and a benchmark of it alone over the attempt's machines. Each environment offers
 * the desktop and system actions (local files under `dir`, uploads also from the task's folder) and
 * the agent's own actions (and `extraActions`), unless the task brings one of the same name there. Throws when the task
 * cannot be built or its actions clash.
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
        ...[...(input.agent.actions ?? []), ...(input.extraActions ?? [])].filter((a) => !(task.extraActions[name] ?? []).some((t) => t.name === a.name)),
      ],
      observations: input.observe ? [screenObservation(input.observe)] : [],
    }),
  );
  const bench = createBenchmark({ environments, tasks: [task], defaultEnvironment: environmentsOf(input.task)[0]! });
  return { task, bench };
}
