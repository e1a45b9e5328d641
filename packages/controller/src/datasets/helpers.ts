import { isAbsolute, resolve } from "node:path";
import type { z } from "zod";
import { InvalidArgumentError } from "@pincer/shared";
import type { Env } from "../env/index.js";
import type { Verdict } from "../evaluators/verdict.js";

/**
 * What a config or evaluation function of the JSON task format gets besides its arguments.
 */
export interface HelperContext {
  /** The machine the task runs on (the default environment). */
  env: Env;
  /** Every environment of the run by name, for functions that name one. */
  envs: Readonly<Record<string, Env>>;
  /** The task's folder on the controller (where `local_*` paths resolve). */
  taskDir: string;
  /** Aborts when the run is cancelled or the task's time is up. */
  signal: AbortSignal;
}

/** Resolves a `local_*` argument: relative paths are relative to the task folder. */
export function resolveLocal(ctx: Pick<HelperContext, "taskDir">, path: string): string {
  return isAbsolute(path) ? path : resolve(ctx.taskDir, path);
}

/** The result of an evaluation function. @deprecated it is a {@link Verdict}; use that name. */
export type EvaluationOutcome = Verdict;

/** A config function (the `config: [{func, arguments}]` entries of a JSON task): prepares a machine. */
export interface ConfigFunction<A extends z.ZodType = z.ZodType> {
  /** The `func` name in task files, e.g. "upload_file_to_vm". */
  name: string;
  description: string;
  /** Schema of `arguments`, with the exact argument names of the dataset format. */
  args: A;
  /** Throws to fail the setup (the task then ends with setup_error, with this error's message). */
  run(args: z.infer<A>, ctx: HelperContext): Promise<void>;
}

/** An evaluation function (the `evaluation: {func, arguments}` of a JSON task): judges the outcome with a verdict. */
export interface EvaluationFunction<A extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  args: A;
  /** Returns the verdict; throwing means the check itself broke (eval_error), which is not a score of 0. */
  run(args: z.infer<A>, ctx: HelperContext): Promise<Verdict>;
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
  readonly #helpers = new Map<string, H>();

  constructor(
    readonly kind: string,
    helpers: readonly H[] = [],
  ) {
    for (const h of helpers) this.register(h);
  }

  /** Adds one; a name that is already taken is an error unless `replace` is set. */
  register(helper: H, opts: { replace?: boolean } = {}): this {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(helper.name)) {
      throw new InvalidArgumentError(`${this.kind} name ${JSON.stringify(helper.name)}: use letters, digits and _`);
    }
    if (this.#helpers.has(helper.name) && !opts.replace) {
      throw new InvalidArgumentError(`${this.kind} ${helper.name} is already registered; pass { replace: true } to replace it`);
    }
    this.#helpers.set(helper.name, helper);
    return this;
  }

  get(name: string): H | undefined {
    return this.#helpers.get(name);
  }

  has(name: string): boolean {
    return this.#helpers.has(name);
  }

  names(): string[] {
    return [...this.#helpers.keys()].sort();
  }

  /** Everything registered, in the order it was registered. */
  list(): H[] {
    return [...this.#helpers.values()];
  }
}

/** The config functions a JSON task's `config` entries may name. */
export type ConfigRegistry = Registry<ConfigFunction>;
/** The evaluation functions a JSON task's `evaluation` may name. */
export type EvaluationRegistry = Registry<EvaluationFunction>;

/** The former name of {@link ConfigFunction}. @deprecated use ConfigFunction. */
export type ConfigHelper<A extends z.ZodType = z.ZodType> = ConfigFunction<A>;
/** The former name of {@link EvaluationFunction}. @deprecated use EvaluationFunction. */
export type EvaluationHelper<A extends z.ZodType = z.ZodType> = EvaluationFunction<A>;
/** The former name of {@link defineConfigFunction}. @deprecated use defineConfigFunction. */
export const defineConfigHelper = defineConfigFunction;
/** The former name of {@link defineEvaluationFunction}. @deprecated use defineEvaluationFunction. */
export const defineEvaluationHelper = defineEvaluationFunction;
