import { z } from "zod";
import type { Env } from "../env/index.js";
import { noMachineEnv } from "../env/noMachineEnv.js";
import { ActionArgumentsError, ActionDefinitionError, ActionReturnError, throwIfAborted } from "./errors.js";
import { assignabilityProblem, inlineRefs, zodToJsonSchema, type JsonSchema } from "./jsonSchema.js";
import { checkName, composeName } from "./names.js";
import { toolSchema, type ToolProvider, type ToolSchemaByProvider } from "./toolSchemas.js";

/**
 * The running episode, as actions and evaluators see it when a Benchmark calls them. Absent when an
 * action is called directly.
 */
export interface EpisodeHandle {
  readonly taskId: string;
  /** Steps taken so far, this one included. */
  readonly step: number;
  /** Everything submitted with `submit` (or {@link EpisodeHandle.submit}) in this episode, in order. */
  readonly submissions: readonly string[];
  /** Records an answer; evaluators read it from `submissions`. */
  submit(content: string): void;
  /** Asks the benchmark to end the episode after this step (reason `agent_complete`). */
  complete(): void;
  /**
   * True while an evaluation judges the end of the episode (the agent is done, or the step reached a
   * limit), false in the rounds after other steps. A check that waits for what the last step started
   * waits only in the final round. Absent on handles that do not know (then treat it as final).
   */
  ending?(): boolean;
}

/** What `run` receives beside its parameters. */
export interface ActionContext {
  /** The machine to act on. A `local` action gets a handle whose calls fail. */
  env: Env;
  /** Fires when the caller cancels or a limit runs out; pass it to every `env` call. */
  signal: AbortSignal;
  episode?: EpisodeHandle;
}

/** What a caller passes to {@link Action.call}; `env` may be left out only by local actions. */
export interface CallContext {
  env?: Env;
  signal?: AbortSignal;
  episode?: EpisodeHandle;
}

/** The definition {@link action} takes. */
export interface ActionDefinition<P extends z.ZodObject, R> {
  /** Tool name: letters, digits, `-`, and single `_` between them; at most 64 characters. */
  name: string;
  /** What the action does, for the model: say what it needs and what it returns. */
  description: string;
  /** Parameters; `.describe()` each one, the descriptions reach the model. @default z.object({}) */
  params?: P;
  /** Schema of the result; checked after `run`, and required for {@link Action.pipe}. */
  returns?: z.ZodType<R>;
  /** Environment the action runs in when no other is given (setup, teardown, evaluators). */
  env?: string;
  /** Runs entirely in the controller: `ctx.env` is a handle whose calls fail. @default false */
  local?: boolean;
  run(params: z.output<P>, ctx: ActionContext): R | Promise<R>;
}

/** Names and descriptions for a composed action; generated from the parts when left out. */
export interface ComposeOptions {
  name?: string;
  description?: string;
}

/**
 * The outcome of {@link Action.safeCall}: the value, or the error with the stage it happened in
 * (`arguments` when the arguments were invalid and nothing ran).
 */
export type ActionResult<R> = { ok: true; value: R } | { ok: false; error: Error; stage: "arguments" | "run" };

/** Any action, whatever its parameters and result. */
// biome-ignore lint/suspicious/noExplicitAny: an action of any parameters and result (both sit in argument and return positions)
export type AnyAction = Action<any, any>;

const NEVER_ABORTED = new AbortController().signal;

/**
 * A unit of work an agent (or a task's setup) can perform on an environment: a name, a description
 * and zod parameters that export as an LLM tool schema, and a `run` function that receives the
 * validated parameters and the injected `env` handle. Immutable; combinators return new actions.
 */
export class Action<P extends z.ZodObject = z.ZodObject, R = unknown> {
  readonly name: string;
  readonly description: string;
  readonly params: P;
  readonly returns: z.ZodType<R> | undefined;
  readonly env: string | undefined;
  readonly local: boolean;
  readonly #run: (params: z.output<P>, ctx: ActionContext) => R | Promise<R>;

  constructor(def: ActionDefinition<P, R> & { params: P }) {
    this.name = checkName(def.name, "action name");
    if (typeof def.description !== "string" || def.description.trim() === "") {
      throw new ActionDefinitionError(`action ${def.name}: give a description; the model reads it to decide when to call the action`);
    }
    if (!(def.params instanceof z.ZodObject)) throw new ActionDefinitionError(`action ${def.name}: params must be a z.object({...})`);
    if (def.env !== undefined) checkName(def.env, `action ${def.name}: environment name`);
    this.description = def.description;
    this.params = def.params;
    this.returns = def.returns;
    this.env = def.env;
    this.local = def.local ?? false;
    this.#run = def.run;
    try {
      zodToJsonSchema(this.params, { io: "input" });
    } catch (err) {
      throw new ActionDefinitionError(`action ${def.name}: a parameter cannot be expressed in JSON Schema (${String(err)})`);
    }
  }

  /** Validates arguments; throws an {@link ActionArgumentsError} that lists every problem. */
  parse(args: unknown): z.output<P> {
    const parsed = this.params.safeParse(args ?? {});
    if (!parsed.success) throw ActionArgumentsError.fromZod(this.name, parsed.error);
    return parsed.data as z.output<P>;
  }

  /** Validates `args`, then runs. Throws {@link ActionArgumentsError} for invalid arguments. */
  async call(args: z.input<P>, ctx: CallContext = {}): Promise<R> {
    return this.runParsed(this.parse(args), ctx);
  }

  /**
   * Like {@link call}, but never throws for invalid arguments or a failed run: the error comes back
   * as a result an agent can read. Cancellation (the signal fired) still throws.
   */
  async safeCall(args: unknown, ctx: CallContext = {}): Promise<ActionResult<R>> {
    let params: z.output<P>;
    try {
      params = this.parse(args);
    } catch (error) {
      return { ok: false, error: error as Error, stage: "arguments" };
    }
    try {
      return { ok: true, value: await this.runParsed(params, ctx) };
    } catch (error) {
      if (ctx.signal?.aborted) throw error;
      return { ok: false, error: error instanceof Error ? error : new Error(String(error)), stage: "run" };
    }
  }

  /** Runs with arguments that already went through {@link parse}; checks the result against `returns`. */
  async runParsed(params: z.output<P>, ctx: CallContext = {}): Promise<R> {
    const signal = ctx.signal ?? NEVER_ABORTED;
    throwIfAborted(signal, this.name);
    const env = this.local
      ? noMachineEnv(`${this.name} is a local action and has no machine`)
      : (ctx.env ?? noMachineEnv(`${this.name} was called without an env handle`));
    const value = await this.#run(params, { env, signal, ...(ctx.episode ? { episode: ctx.episode } : {}) });
    if (!this.returns) return value;
    const checked = this.returns.safeParse(value);
    if (!checked.success) {
      throw new ActionReturnError(`${this.name} returned a value that breaks its returns schema: ${z.prettifyError(checked.error)}`);
    }
    return checked.data;
  }

  /** JSON Schema (draft 2020-12) of the parameters, as a caller sends them. */
  inputSchema(): JsonSchema {
    return zodToJsonSchema(this.params, { io: "input" });
  }

  /** The tool schema a model sees, in the dialect of `provider`; `name` overrides the tool name. */
  toolSchema<T extends ToolProvider>(provider: T, name?: string): ToolSchemaByProvider[T] {
    return toolSchema(this, provider, name);
  }

  /** The same action under another name (and description). */
  withName(name: string, description = this.description): Action<P, R> {
    return new Action({ ...this.#definition(), name, description });
  }

  /**
   * Feeds this action's result to `next` as its single required argument. Checked now: this action
   * needs a `returns` schema, `next` must have exactly one required parameter, and the result type
   * must fit it, else an ActionDefinitionError is thrown here rather than at run time.
   */
  pipe<Q extends z.ZodObject, S>(next: Action<Q, S>, opts: ComposeOptions = {}): Action<P, S> {
    const name = opts.name ?? composeName([this.name, next.name], "to");
    if (!this.returns) throw new ActionDefinitionError(`${name}: ${this.name} has no returns schema, so its result cannot be checked against ${next.name}`);
    const input = next.inputSchema();
    const required = (input.required as string[] | undefined) ?? [];
    if (required.length !== 1) {
      throw new ActionDefinitionError(
        `${name}: ${next.name} must have exactly one required parameter to receive ${this.name}'s result; it has ${required.length} ` +
          `(${required.join(", ") || "none"})`,
      );
    }
    const key = required[0]!;
    const from = inlineRefs(zodToJsonSchema(this.returns, { io: "output", unrepresentable: "any" }));
    const to = inlineRefs(input);
    const problem = assignabilityProblem(from, (to.properties as JsonSchema)[key] as JsonSchema, `${next.name}.${key}`);
    if (problem) throw new ActionDefinitionError(`${name}: the result of ${this.name} does not fit ${problem}`);
    const first = this;
    return new Action<P, S>({
      name,
      description: opts.description ?? `${this.description} Its result is passed to ${next.name}: ${next.description}`,
      params: this.params,
      ...(next.returns ? { returns: next.returns } : {}),
      ...sameEnv(name, [this, next]),
      local: this.local && next.local,
      async run(params, ctx) {
        const value = await first.runParsed(params, ctx);
        throwIfAborted(ctx.signal, name);
        return next.runParsed(next.parse({ [key]: value }), ctx);
      },
    });
  }

  /**
   * Runs this action, then `next`, with the same env and signal; returns `next`'s result. The
   * parameters are the union of both; a parameter both share must have the same schema and gets one
   * value.
   */
  // biome-ignore lint/suspicious/noThenProperty: `then` is the documented sequence combinator; an Action is never awaited itself
  then<Q extends z.ZodObject, S>(next: Action<Q, S>, opts: ComposeOptions = {}): Action<z.ZodObject<P["shape"] & Q["shape"]>, S> {
    const name = opts.name ?? composeName([this.name, next.name], "then");
    const parts: AnyAction[] = [this, next];
    return new Action({
      name,
      description: opts.description ?? `${this.description} Then: ${next.description}`,
      params: mergeParams(name, parts) as z.ZodObject<P["shape"] & Q["shape"]>,
      ...(next.returns ? { returns: next.returns } : {}),
      ...sameEnv(name, parts),
      local: this.local && next.local,
      async run(params, ctx) {
        let last: unknown;
        for (const part of parts) {
          throwIfAborted(ctx.signal, name);
          last = await part.runParsed(pickParams(part, params), ctx);
        }
        return last as S;
      },
    });
  }

  /**
   * Presets some arguments. They are validated now and disappear from the parameters (and so from
   * the schema the model sees); the name and description stay.
   */
  bind<K extends keyof P["shape"] & string>(
    preset: { [k in K]: z.input<P["shape"][k]> },
    opts: ComposeOptions = {},
  ): Action<z.ZodObject<Omit<P["shape"], K>>, R> {
    const keys = Object.keys(preset);
    const unknown = keys.filter((k) => !(k in this.params.shape));
    if (unknown.length > 0) throw new ActionDefinitionError(`${this.name}.bind: no parameter named ${unknown.join(", ")}`);
    const mask = Object.fromEntries(keys.map((k) => [k, true as const])) as Record<string, true> & Record<number, never>;
    const parsed = this.params.pick(mask).safeParse(preset);
    if (!parsed.success) throw new ActionDefinitionError(`${this.name}.bind: ${ActionArgumentsError.fromZod(this.name, parsed.error).message}`);
    const bound = parsed.data as Record<string, unknown>;
    return new Action({
      ...this.#definition(),
      name: opts.name ?? this.name,
      description: opts.description ?? this.description,
      params: this.params.omit(mask) as unknown as z.ZodObject<Omit<P["shape"], K>>,
      run: (params, ctx) => this.runParsed({ ...params, ...bound } as z.output<P>, ctx),
    });
  }

  #definition(): ActionDefinition<P, R> & { params: P } {
    return {
      name: this.name,
      description: this.description,
      params: this.params,
      ...(this.returns ? { returns: this.returns } : {}),
      ...(this.env !== undefined ? { env: this.env } : {}),
      local: this.local,
      run: this.#run,
    };
  }
}

/** The common `env` of composed parts; parts that name different environments cannot be composed. */
export function sameEnv(name: string, parts: AnyAction[]): { env?: string } {
  const envs = [...new Set(parts.map((p) => p.env).filter((e): e is string => e !== undefined))];
  if (envs.length > 1) {
    throw new ActionDefinitionError(`${name}: its parts run in different environments (${envs.join(", ")}); a composed action runs in one`);
  }
  return envs.length === 1 ? { env: envs[0]! } : {};
}

/** The union of the parts' parameters; a shared parameter must have the same JSON schema in each. */
export function mergeParams(name: string, parts: AnyAction[]): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const part of parts) {
    for (const [key, schema] of Object.entries(part.params.shape as Record<string, z.ZodType>)) {
      const existing = shape[key];
      if (existing && JSON.stringify(zodToJsonSchema(existing, { io: "input" })) !== JSON.stringify(zodToJsonSchema(schema, { io: "input" }))) {
        throw new ActionDefinitionError(`${name}: parameter ${key} has different schemas in its parts; rename one with bind or withName`);
      }
      shape[key] = schema;
    }
  }
  return z.object(shape);
}

/** The part's own parameters out of a merged, already parsed parameter object. */
export function pickParams(part: AnyAction, params: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(part.params.shape)
      .filter((k) => k in params)
      .map((k) => [k, params[k]]),
  );
}

/**
 * Defines an action.
 *
 * @example
 * const click = action({
 *   name: "click",
 *   description: "Click at a point of the screen, in pixels.",
 *   params: z.object({ x: z.number().describe("pixels from the left"), y: z.number().describe("pixels from the top") }),
 *   run: ({ x, y }, { env, signal }) => env.mouse.click({ at: { x, y }, signal }),
 * });
 */
// biome-ignore lint/complexity/noBannedTypes: {} is zod's own type for an empty object shape
export function action<P extends z.ZodObject = z.ZodObject<{}>, R = void>(def: ActionDefinition<P, R>): Action<P, R> {
  return new Action<P, R>({ ...def, params: def.params ?? (z.object({}) as unknown as P) });
}
