import type { AnyAction } from "../actions/action.js";
import type { StepCall } from "../benchmark/types.js";
import type { Env } from "../env/index.js";
import type { Task } from "../tasks/task.js";
import type { ConfigRegistry, EvaluationRegistry } from "./taskFunctions.js";
import type { DatasetProblem } from "./taskFiles.js";

/**
 * A dataset format: how its task files are recognised in a dataset folder, validated (each problem
 * with its file and JSON path), loaded, and built into runnable tasks. The JSON task format, task
 * modules and OSWorld's format are three; register your own with `createRegistries({ formats })`
 * (or `pincer … --format ./my-format.js`) and `validate`, `check` and `run` take its tasks like
 * Pincer's own.
 */
export interface DatasetFormat<T extends DatasetTask = DatasetTask> {
  /** Short, unique: each loaded task's `kind`, and summary.json's. */
  readonly name: string;
  /** What it reads, for messages ("OSWorld task files (<app>/<uuid>.json)"). */
  readonly description: string;
  /**
   * Whether `file` is a task file of this format (by its name and, for JSON, its content). Files no
   * format claims are not tasks (a task's data files, say); a file two formats claim goes to the one
   * registered first.
   */
  claims(file: TaskFile): boolean | Promise<boolean>;
  /**
   * Validates and loads a file this format claimed: its task; or, for a valid task Pincer cannot run
   * yet, what it needs; or nothing when it has errors (each recorded in `ctx.problems` with its
   * path). Warnings go there too and do not stop the task.
   */
  load(file: TaskFile, ctx: FormatContext): Promise<T | UnsupportedTask | undefined>;
  /** Builds the runnable task of one it loaded, for an attempt on `input.envs`. Throws when it cannot be built. */
  build(task: T, input: FormatBuildInput): Task;
  /**
   * The files a task needs to be loaded and run elsewhere (absolute paths; a run on a queue ships
   * them to its workers). @default every file in the task's folder
   */
  files?(task: T): string[];
}

/** A file of a dataset folder, as formats see it. */
export interface TaskFile {
  /** Absolute path. */
  path: string;
  /** The dataset's root folder (or the file itself, when one file was given). */
  root: string;
  /** The file parsed as JSON: undefined for a file that is not `.json`, or too large, or not valid JSON. */
  json(): Promise<unknown>;
}

/** What loading a task file gets. */
export interface FormatContext {
  /** Where problems go: each with its file, JSON path, message and severity. */
  problems: DatasetProblem[];
  /** The JSON task format's config and evaluation functions. */
  registries: { configs: ConfigRegistry; evaluations: EvaluationRegistry };
  /** Imports a module file (task modules); the CLI's also imports TypeScript. */
  importModule(file: string): Promise<unknown>;
}

/** What a format needs to build a task for one attempt. */
export interface FormatBuildInput {
  /** The attempt's machines, by the environment names the task needs. */
  envs: Readonly<Record<string, Env>>;
  registries: { configs: ConfigRegistry; evaluations: EvaluationRegistry };
  /** The agent of the attempt (its own actions join every environment). */
  agent: { actions?: readonly AnyAction[] | undefined };
  maxSteps: number;
  /** Wall-clock limit of the agent's part, in ms. */
  timeLimitMs: number;
  /** The attempt's folder, for what the task keeps of it (OSWorld's fetched files and log). */
  dir: string;
}

/** A task of a dataset, as a format loaded it; formats add their own fields (the JSON, the module). */
export interface DatasetTask {
  /** The name of the format that loaded it. */
  kind: string;
  id: string;
  /** The group folder (`examples/<tool>/<id>/`), used in result paths and reports. */
  tool: string;
  /** The task's folder; relative paths of the task resolve against it. */
  dir: string;
  file: string;
  instruction: string;
  tags: string[];
  relatedApps: string[];
  /**
   * The environment names it needs, at least one; the first is where setup and evaluators that name
   * no environment run.
   */
  environments: string[];
  actionNumber?: number;
  counterpart?: string;
  /** The reference solution: tool calls that solve the task (`check` runs them). */
  solution?: StepCall[];
  /** The task as written (its file's fields), kept in summary.json; the fields above when left out. */
  fields?: Record<string, unknown>;
}

/** A valid task Pincer cannot run yet, and what it needs. */
export interface UnsupportedTask {
  file: string;
  id: string;
  tool: string;
  /** The dataset format it is written in. */
  format: string;
  /** What it names that Pincer does not run; `reason` says why when Pincer knows it but cannot run it. */
  needs: Array<{ kind: string; name: string; reason?: string }>;
}

/** Whether a format's `load` gave an unsupported task rather than a loaded one. */
export function isUnsupported(t: DatasetTask | UnsupportedTask): t is UnsupportedTask {
  return "needs" in t && "format" in t;
}

/** Declares a dataset format (identity function, for type checking). */
export function defineDatasetFormat<T extends DatasetTask>(format: DatasetFormat<T>): DatasetFormat<T> {
  return format;
}
