import type { z } from "zod";
import { InvalidArgumentError } from "@pincer/shared";
import type { Env } from "../env/index.js";
import { readLocalFile, resolveLocalPath, withLocalFileRead } from "../env/localRoot.js";
import type { Verdict } from "../evaluators/verdict.js";

/**
 * What a config or evaluation function of the JSON task format gets besides its arguments.
 */
export interface TaskFunctionContext {
  /** The machine the task runs on (the default environment). */
  env: Env;
  /** Every environment of the run by name, for functions that name one. */
  envs: Readonly<Record<string, Env>>;
  /** The task's folder on the controller (where `local_*` paths resolve). */
  taskDir: string;
  /** Aborts when the run is cancelled or the task's time is up. */
  signal: AbortSignal;
  /**
   * For an evaluation function: false when it judges a step that does not end the episode (the
   * rounds a JSON task gets after every step), true or absent when it judges the end. A check that
   * waits for what the last step started (check_window_exists's `wait`) waits only then.
   */
  final?: boolean;
}

/** What messages call the folder a task's local paths are confined to. */
export const TASK_FOLDER = "the task's folder";

/**
 * Resolves a `local_*` argument against the task folder. A path of a task file stays inside it: an
 * absolute path, `..` that leave it and a symlink that leads out are refused (PERMISSION_DENIED).
 * This checks the path once; to read the file, use {@link readTaskFile} or {@link withTaskFile},
 * which check it at the open.
 */
export function resolveLocal(ctx: Pick<TaskFunctionContext, "taskDir">, path: string, field = "local_path"): string {
  return resolveLocalPath(ctx.taskDir, path, { field, what: TASK_FOLDER });
}

/**
 * Reads a file of the task folder that a task file names (`local_*`): relative, inside the folder,
 * symlinks followed only while they stay inside, checked at the open (the daemon's jail resolves it).
 */
export function readTaskFile(ctx: Pick<TaskFunctionContext, "taskDir">, path: string, field = "local_path"): Promise<Buffer> {
  return readLocalFile(ctx.taskDir, path, { field, what: TASK_FOLDER });
}

/**
 * Runs `fn` with a path that opens the task-folder file `path` names, held open and confined as
 * {@link readTaskFile} says (for an upload: `env.files.upload(at, …)`).
 */
export function withTaskFile<T>(ctx: Pick<TaskFunctionContext, "taskDir">, path: string, field: string, fn: (at: string) => Promise<T>): Promise<T> {
  return withLocalFileRead(ctx.taskDir, path, { field, what: TASK_FOLDER }, fn);
}

/**
 * A task folder's files as a task module's `build` gets them (`ctx.taskFiles`): every path is
 * relative to the folder and confined to it as a JSON task's `local_*` paths are (no `..` out, no
 * absolute path, no symlink that leads out), checked at the open. A module is code and may open
 * what it likes; these keep data it reads (a field of its own JSON, say) from naming a host file.
 */
export interface TaskFolder {
  /** The folder (absolute). */
  readonly dir: string;
  /** The path of a file of the folder, checked once (see {@link resolveLocal}). */
  resolve(path: string, field?: string): string;
  /** Reads a file of the folder (see {@link readTaskFile}). */
  read(path: string, field?: string): Promise<Buffer>;
  /** Runs `fn` with a path that opens a file of the folder, held open while it runs (see {@link withTaskFile}). */
  withFile<T>(path: string, fn: (at: string) => Promise<T>, field?: string): Promise<T>;
}

/** The {@link TaskFolder} of `dir`. */
export function taskFolder(dir: string): TaskFolder {
  const ctx = { taskDir: dir };
  return {
    dir,
    resolve: (path, field = "path") => resolveLocal(ctx, path, field),
    read: (path, field = "path") => readTaskFile(ctx, path, field),
    withFile: (path, fn, field = "path") => withTaskFile(ctx, path, field, fn),
  };
}

/** A config function (the `config: [{func, arguments}]` entries of a JSON task): prepares a machine. */
export interface ConfigFunction<A extends z.ZodType = z.ZodType> {
  /** The `func` name in task files, e.g. "upload_file_to_vm". */
  name: string;
  description: string;
  /** Schema of `arguments`, with the exact argument names of the dataset format. */
  args: A;
  /** Throws to fail the setup (the task then ends with setup_error, with this error's message). */
  run(args: z.infer<A>, ctx: TaskFunctionContext): Promise<void>;
}

/** An evaluation function (the `evaluation: {func, arguments}` of a JSON task): judges the outcome with a verdict. */
export interface EvaluationFunction<A extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  args: A;
  /** Returns the verdict; throwing means the check itself broke (eval_error), which is not a score of 0. */
  run(args: z.infer<A>, ctx: TaskFunctionContext): Promise<Verdict>;
}

/** Defines a config function; helps TypeScript infer its argument type from its schema. */
export function defineConfigFunction<A extends z.ZodType>(h: ConfigFunction<A>): ConfigFunction<A> {
  return h;
}

/** Defines an evaluation function; helps TypeScript infer its argument type from its schema. */
export function defineEvaluationFunction<A extends z.ZodType>(h: EvaluationFunction<A>): EvaluationFunction<A> {
  return h;
}

/** Named functions (or dataset formats), open to user additions. */
export class Registry<H extends { name: string }> {
  readonly #functions = new Map<string, H>();

  constructor(
    readonly kind: string,
    functions: readonly H[] = [],
  ) {
    for (const h of functions) this.register(h);
  }

  /** Adds one; a name that is already taken is an error unless `replace` is set. */
  register(fn: H, opts: { replace?: boolean } = {}): this {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(fn.name)) {
      throw new InvalidArgumentError(`${this.kind} name ${JSON.stringify(fn.name)}: use letters, digits and _`);
    }
    if (this.#functions.has(fn.name) && !opts.replace) {
      throw new InvalidArgumentError(`${this.kind} ${fn.name} is already registered; pass { replace: true } to replace it`);
    }
    this.#functions.set(fn.name, fn);
    return this;
  }

  get(name: string): H | undefined {
    return this.#functions.get(name);
  }

  has(name: string): boolean {
    return this.#functions.has(name);
  }

  names(): string[] {
    return [...this.#functions.keys()].sort();
  }

  /** Everything registered, in the order it was registered. */
  list(): H[] {
    return [...this.#functions.values()];
  }
}

/** The config functions a JSON task's `config` entries may name. */
export type ConfigRegistry = Registry<ConfigFunction>;
/** The evaluation functions a JSON task's `evaluation` may name. */
export type EvaluationRegistry = Registry<EvaluationFunction>;
