import type { StepCall } from "../benchmark/types.js";
import type { Env } from "../env/index.js";
import type { TaskOptions } from "../tasks/task.js";
import type { TaskFolder } from "./taskFunctions.js";

/** What a TypeScript-defined task's `build` receives. */
export interface TaskBuildContext {
  /** The run's environments by name (the ones listed in `environments`). */
  envs: Readonly<Record<string, Env>>;
  /** The folder of the task module. */
  taskDir: string;
  /**
   * The folder's files, each path confined to the folder at the open (no `..` out, no absolute
   * path, no symlink that leads out): use these for paths that come from data, such as a task's
   * JSON beside the module.
   */
  taskFiles: TaskFolder;
}

/**
 * A task defined in TypeScript (a `*.task.ts` module whose default export is this), for what the
 * JSON task format cannot say: an evaluator graph for partial credit, several machines. The metadata
 * fields mirror the JSON task format's so reports treat both alike.
 */
export interface TaskModule {
  id: string;
  instruction: string;
  tags?: string[];
  related_apps?: string[];
  action_number?: number;
  counterpart?: string;
  /** Environment names the task needs; the first is where unnamed setup and evaluators run. @default ["desktop"] */
  environments?: string[];
  /** Builds the task's evaluator (one or a graph), setup, teardown and limits. */
  build(ctx: TaskBuildContext): Omit<TaskOptions, "id" | "description">;
  /** The reference solution: tool calls that solve the task. */
  solution?: StepCall[];
}

/** Declares a TypeScript-defined task (identity function, for type checking). */
export function defineTask(task: TaskModule): TaskModule {
  return task;
}
