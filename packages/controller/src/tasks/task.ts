import { Action, type AnyAction } from "../actions/action.js";
import { ActionDefinitionError } from "../actions/errors.js";
import { checkName } from "../actions/names.js";
import type { AnyEvaluator } from "../evaluators/evaluator.js";
import { GraphEvaluator, singleNodeGraph } from "../evaluators/graph.js";

/**
 * A call of an action that a task makes itself (setup, teardown): the action alone when it needs no
 * arguments, or with its arguments and the environment to run in.
 */
export type ActionCall = AnyAction | { action: AnyAction; args?: Record<string, unknown>; env?: string };

/** An {@link ActionCall} with its arguments validated. */
export interface PreparedCall {
  action: AnyAction;
  /** Parsed arguments. */
  args: Record<string, unknown>;
  /** Environment to run in; unset = the action's `env`, else the benchmark's default. */
  env?: string;
}

/** Options of {@link createTask}. */
export interface TaskOptions {
  /** Unique within a benchmark. */
  id: string;
  /** The instruction the agent receives. */
  description: string;
  /** One evaluator (a one-node graph) or a graph for partial credit. */
  evaluator: AnyEvaluator | GraphEvaluator;
  /** Run in order before the first step; the first failure is a `setup_error`. @default [] */
  setup?: readonly ActionCall[];
  /** Run in order when the episode is closed, each one even if an earlier one failed. @default [] */
  teardown?: readonly ActionCall[];
  /**
   * Actions available only during this task, per environment name (`root` included); they join the
   * environment's action space at `start` and leave it when the task ends. @default {}
   */
  extraActions?: Readonly<Record<string, readonly AnyAction[]>>;
  /** Steps before the episode is truncated with `step_limit`. @default 50 */
  maxSteps?: number;
  /** Milliseconds from the end of setup before the episode is truncated with `time_limit`. @default 1_800_000 (30 min) */
  timeLimitMs?: number;
  /** Tokens the agent may spend before the episode is truncated with `token_budget`. @default unlimited */
  tokenBudget?: number;
  /** Labels for filtering and reports (`cli`, `gui`, `verbose`, a domain…). @default [] */
  tags?: readonly string[];
  /**
   * When the evaluator runs: after every step (partial credit as the agent goes), or once, when the
   * episode ends (the agent completes, or a limit is reached), for checks that change the machine
   * (OSWorld's `postconfig` saves files and quits programs). @default "every_step"
   */
  evaluateAt?: "every_step" | "end";
}

/** A task: what to do, how to prepare and clean up the machines, how to judge, and its limits. Immutable. */
export interface Task {
  readonly id: string;
  readonly description: string;
  readonly graph: GraphEvaluator;
  readonly setup: readonly PreparedCall[];
  readonly teardown: readonly PreparedCall[];
  readonly extraActions: Readonly<Record<string, readonly AnyAction[]>>;
  readonly maxSteps: number;
  readonly timeLimitMs: number;
  readonly tokenBudget: number | undefined;
  readonly tags: readonly string[];
  readonly evaluateAt: "every_step" | "end";
}

/** Default step limit of a task. */
export const DEFAULT_MAX_STEPS = 50;
/** Default time limit of a task, in milliseconds (30 minutes). */
export const DEFAULT_TIME_LIMIT_MS = 30 * 60 * 1000;

function prepare(taskId: string, list: readonly ActionCall[] | undefined, what: string): PreparedCall[] {
  return (list ?? []).map((call, i) => {
    const spec = call instanceof Action ? { action: call } : call;
    if (!(spec.action instanceof Action)) throw new ActionDefinitionError(`task ${taskId}: ${what}[${i}] is not an action`);
    let args: Record<string, unknown>;
    try {
      args = spec.action.parse(spec.args ?? {}) as Record<string, unknown>;
    } catch (err) {
      throw new ActionDefinitionError(`task ${taskId}: ${what}[${i}]: ${(err as Error).message}`);
    }
    return { action: spec.action, args, ...(spec.env !== undefined ? { env: spec.env } : {}) };
  });
}

function positive(taskId: string, name: string, value: number | undefined, fallback: number | undefined): number | undefined {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new ActionDefinitionError(`task ${taskId}: ${name} must be a positive number, got ${value}`);
  return value;
}

/** Builds a task, validating setup and teardown arguments and limits now rather than mid-run. */
export function createTask(opts: TaskOptions): Task {
  const id = opts.id;
  if (typeof id !== "string" || id.trim() === "") throw new ActionDefinitionError("task: id must be a non-empty string");
  if (typeof opts.description !== "string" || opts.description.trim() === "") {
    throw new ActionDefinitionError(`task ${id}: description (the agent's instruction) must not be empty`);
  }
  if (!(opts.evaluator instanceof GraphEvaluator || opts.evaluator instanceof Action)) {
    throw new ActionDefinitionError(
      `task ${id}: evaluator is ${opts.evaluator === undefined ? "missing" : "not an evaluator"}: ` +
        "give one made with evaluator({ … }) or createGraphEvaluator({ … })" +
        " (a task module returns it from build(): { evaluator, setup, teardown })",
    );
  }
  const graph = opts.evaluator instanceof GraphEvaluator ? opts.evaluator : singleNodeGraph(opts.evaluator);
  const extraActions: Record<string, AnyAction[]> = {};
  for (const [env, actions] of Object.entries(opts.extraActions ?? {})) {
    checkName(env, `task ${id}: extraActions environment`);
    extraActions[env] = [...actions];
  }
  const maxSteps = positive(id, "maxSteps", opts.maxSteps, DEFAULT_MAX_STEPS)!;
  if (!Number.isInteger(maxSteps)) throw new ActionDefinitionError(`task ${id}: maxSteps must be an integer`);
  return {
    id,
    description: opts.description,
    graph,
    setup: prepare(id, opts.setup, "setup"),
    teardown: prepare(id, opts.teardown, "teardown"),
    extraActions,
    maxSteps,
    timeLimitMs: positive(id, "timeLimitMs", opts.timeLimitMs, DEFAULT_TIME_LIMIT_MS)!,
    tokenBudget: positive(id, "tokenBudget", opts.tokenBudget, undefined),
    tags: [...(opts.tags ?? [])],
    evaluateAt: opts.evaluateAt ?? "every_step",
  };
}
