import { FailedPreconditionError, InvalidArgumentError, NotFoundError, TimeoutError } from "@pincer/shared";
import type { AnyAction } from "../actions/action.js";
import { throwIfAborted, toErrorInfo, type ErrorInfo } from "../actions/errors.js";
import { decodeToolName, encodeToolName, TOOL_SEPARATOR } from "../actions/names.js";
import type { ToolProvider, ToolSchemaByProvider } from "../actions/toolSchemas.js";
import type { Env } from "../env/index.js";
import { createRootEnvironment, ROOT_ENVIRONMENT, type Environment } from "./environment.js";
import { observationOf } from "./screenObservation.js";
import type { GraphNode } from "../evaluators/graph.js";
import { computeMetrics, evaluationState, type EpisodeEvent, type EvaluationState, type GraphMetrics } from "../evaluators/metrics.js";
import type { PreparedCall, Task } from "../tasks/task.js";
import { Episode } from "./episode.js";
import { classifyFailure, isEnvironmentFailure, watchEnv } from "./failures.js";
import {
  TeardownError,
  isTerminal,
  type BenchmarkCallOptions,
  type StepOptions,
  type EndReason,
  type EpisodeState,
  type Observation,
  type StartResult,
  type StepCall,
  type StepResult,
} from "./types.js";

/** Options of {@link createBenchmark}. */
export interface BenchmarkOptions {
  /** The machines, each with its action and observation space. Names are unique; `root` is reserved. */
  environments: readonly Environment[];
  /** Task ids are unique. */
  tasks: readonly Task[];
  /** Where setup, teardown and evaluators run when they name no environment. @default the first environment */
  defaultEnvironment?: string;
  /** The root environment. @default createRootEnvironment(): `complete`, `wait`, `submit` */
  root?: Environment;
  /**
   * How long an evaluation round after a step that did not end the episode may take, in ms. Such a
   * round only says whether the goal was reached early (and a graph's partial credit so far); one
   * cut at this limit leaves the state as it was, and later steps of the episode skip theirs. The
   * round that judges the end is never cut: options that wait for the machine apply there only.
   * @default 10_000
   */
  stepEvaluationLimitMs?: number;
}

/** See {@link BenchmarkOptions.stepEvaluationLimitMs}. */
export const STEP_EVALUATION_LIMIT_MS = 10_000;

/**
 * Several named environments plus a root environment, and the tasks to run on them, one episode at
 * a time: `start(taskId)`, then `observe()` and `step(...)` until the result says the episode ended,
 * then `close()` (teardown). Environments' `env` handles belong to the caller, who closes them.
 */
export class Benchmark {
  /** Named environments in order, the root environment last. */
  readonly environments: ReadonlyMap<string, Environment>;
  readonly tasks: ReadonlyMap<string, Task>;
  readonly defaultEnvironment: string;
  readonly #stepEvaluationLimitMs: number;
  #episode: Episode | undefined;

  constructor(opts: BenchmarkOptions) {
    if (opts.environments.length === 0) throw new InvalidArgumentError("benchmark: give at least one environment");
    const root = opts.root ?? createRootEnvironment();
    if (root.name !== ROOT_ENVIRONMENT) throw new InvalidArgumentError(`benchmark: the root environment must be named ${ROOT_ENVIRONMENT}`);
    const environments = new Map<string, Environment>();
    for (const e of [...opts.environments, root]) {
      if (environments.has(e.name)) throw new InvalidArgumentError(`benchmark: two environments are named ${e.name}`);
      environments.set(e.name, e);
      for (const a of e.actions) encodeToolName(e.name, a.name);
    }
    this.environments = environments;
    this.defaultEnvironment = opts.defaultEnvironment ?? opts.environments[0]!.name;
    this.#stepEvaluationLimitMs = opts.stepEvaluationLimitMs ?? STEP_EVALUATION_LIMIT_MS;
    this.#need(this.defaultEnvironment, "defaultEnvironment");
    const tasks = new Map<string, Task>();
    for (const t of opts.tasks) {
      if (tasks.has(t.id)) throw new InvalidArgumentError(`benchmark: two tasks have the id ${t.id}`);
      this.#checkTask(t);
      tasks.set(t.id, t);
    }
    this.tasks = tasks;
  }

  #need(name: string, what: string): Environment {
    const e = this.environments.get(name);
    if (!e) throw new InvalidArgumentError(`${what}: no environment named ${name}; environments: ${[...this.environments.keys()].join(", ")}`);
    return e;
  }

  /** Every environment a task names must exist, and its extra actions must not clash with an environment's. */
  #checkTask(t: Task): void {
    for (const call of [...t.setup, ...t.teardown]) this.#need(this.#envName(call), `task ${t.id}: ${call.action.name}`);
    for (const node of t.graph.nodes.values()) this.#need(this.#nodeEnvName(node), `task ${t.id}: evaluator node ${node.id}`);
    for (const [envName, extras] of Object.entries(t.extraActions)) {
      const e = this.#need(envName, `task ${t.id}: extraActions`);
      const names = new Set(e.actions.map((a) => a.name));
      for (const a of extras) {
        if (names.has(a.name)) throw new InvalidArgumentError(`task ${t.id}: extra action ${a.name} clashes with an action of ${envName}`);
        names.add(a.name);
        encodeToolName(envName, a.name);
      }
    }
  }

  #envName(call: PreparedCall): string {
    return call.env ?? call.action.env ?? this.defaultEnvironment;
  }
  #nodeEnvName(node: GraphNode): string {
    return node.env ?? node.evaluator.env ?? this.defaultEnvironment;
  }
  #env(name: string): Env {
    return this.#need(name, "environment").env;
  }

  #actionSpace(task: Task | undefined): Map<string, Map<string, AnyAction>> {
    const space = new Map<string, Map<string, AnyAction>>();
    for (const [name, e] of this.environments) {
      space.set(name, new Map([...e.actions, ...(task?.extraActions[name] ?? [])].map((a) => [a.name, a])));
    }
    return space;
  }

  #active(what: string): Episode {
    if (!this.#episode) throw new FailedPreconditionError(`${what}: no episode; call start(taskId) first`);
    return this.#episode;
  }

  /**
   * Starts an episode of `taskId`: closes the current one first (its teardown; a TeardownError
   * propagates), then runs the task's setup in order. A failed setup action ends the episode with
   * `setup_error`, or `env_error` when its machine failed (returned, not thrown); nothing is
   * skipped. The time limit starts after setup.
   */
  async start(taskId: string, opts: BenchmarkCallOptions = {}): Promise<StartResult> {
    const task = this.tasks.get(taskId);
    if (!task) throw new NotFoundError(`start: no task ${JSON.stringify(taskId)}; tasks: ${[...this.tasks.keys()].join(", ")}`);
    await this.close(opts);
    const ep = new Episode(task, this.#actionSpace(task));
    this.#episode = ep;
    const result = (): StartResult => ({
      taskId,
      description: task.description,
      tools: this.toolNames(),
      ok: ep.end === undefined,
      reason: ep.end?.reason ?? null,
      ...(ep.end?.error ? { error: ep.end.error } : {}),
    });
    for (const [i, call] of task.setup.entries()) {
      // A machine that failed during a setup action is the machine's failure, even if the action went on.
      const watched = watchEnv(this.#env(this.#envName(call)));
      let failure: unknown;
      let thrown: unknown;
      try {
        await call.action.runParsed(call.args, { env: watched.env, episode: ep.handle(), ...signalOf(opts) });
        failure = watched.failure();
      } catch (err) {
        thrown = err;
        failure = isEnvironmentFailure(err) ? err : (watched.failure() ?? err);
      }
      if (failure === undefined) continue;
      const info = toErrorInfo(failure);
      const reason = isEnvironmentFailure(failure) ? "env_error" : "setup_error";
      ep.finish(reason, { ...info, message: `setup[${i}] ${call.action.name} in ${this.#envName(call)}: ${info.message}` });
      if (opts.signal?.aborted) throw thrown ?? failure;
      return result();
    }
    ep.startClock();
    return result();
  }

  /**
   * The action space tools are listed from: the open episode's (with its task's extra actions), or
   * the environments' own before `start` and after `close`.
   */
  #listedSpace(): ReadonlyMap<string, ReadonlyMap<string, AnyAction>> {
    const ep = this.#episode;
    return ep && !ep.closed ? ep.actionSpace : this.#actionSpace(undefined);
  }

  /** Tool names of the current episode's action space (`env__action`), root last; after `close`, the environments' own. */
  toolNames(): string[] {
    const space = this.#listedSpace();
    return [...space].flatMap(([env, actions]) => [...actions.keys()].map((a) => encodeToolName(env, a)));
  }

  /** The tool schemas of the current episode's action space (the environments' own before `start` and after `close`), for `provider`. */
  tools<T extends ToolProvider>(provider: T): ToolSchemaByProvider[T][] {
    const space = this.#listedSpace();
    return [...space].flatMap(([env, actions]) => [...actions.values()].map((a) => a.toolSchema(provider, encodeToolName(env, a.name))));
  }

  /** Runs every environment's observations (environments concurrently, each one's in order). */
  async observe(opts: BenchmarkCallOptions = {}): Promise<Observation> {
    const ep = this.#active("observe");
    const entries = await Promise.all(
      [...this.environments.values()]
        .filter((e) => e.observations.length > 0)
        .map(async (e) => {
          const values: Record<string, unknown> = {};
          for (const o of e.observations) values[o.name] = await o.call({}, { env: e.env, episode: ep.handle(), ...signalOf(opts) });
          return [e.name, values] as const;
        }),
    );
    return observationOf(ep.steps, Object.fromEntries(entries));
  }

  /**
   * Runs one tool call and evaluates. Invalid arguments, an unknown tool and an action's error are
   * returned in the result and count as a step; they end the episode only when a machine is
   * unreachable (`env_error`). See {@link EndReason} for the rest.
   */
  async step(call: StepCall, opts: StepOptions = {}): Promise<StepResult> {
    const ep = this.#active("step");
    if (ep.closed) throw new FailedPreconditionError(`step: the episode of ${ep.task.id} was closed; start() another task`);
    if (ep.end) throw new FailedPreconditionError(`step: the episode of ${ep.task.id} ended (${ep.end.reason}); start() another task`);
    throwIfAborted(opts.signal, "step");
    const began = performance.now();
    const tokens = call.tokens ?? 0;
    if (!Number.isFinite(tokens) || tokens < 0) throw new InvalidArgumentError(`step: tokens must be a non-negative number, got ${tokens}`);
    const { tool, env, action } = resolveCall(call);
    const remainingMs = ep.task.timeLimitMs - ep.elapsedMs();
    if (remainingMs <= 0) {
      // The limit passed between steps (while the agent was thinking): nothing runs.
      ep.finish("time_limit");
      const error = new TimeoutError(`time limit of ${ep.task.timeLimitMs} ms reached before this step; ${tool} did not run`);
      return this.#result(ep, { tool, env, action }, { ok: false, error: toErrorInfo(error) }, evaluationState(ep.task.graph.shape, ep.events), began);
    }
    ep.steps += 1;
    const found = ep.actionSpace.get(env)?.get(action);
    let outcome: { ok: true; result: unknown } | { ok: false; error: ErrorInfo };
    let envError = false;
    let timedOut = false;
    if (!found) {
      outcome = { ok: false, error: toErrorInfo(new NotFoundError(this.#unknownTool(ep, tool, env))) };
    } else {
      const timeLimit = AbortSignal.timeout(Math.ceil(remainingMs));
      const signal = opts.signal ? AbortSignal.any([opts.signal, timeLimit]) : timeLimit;
      try {
        const r = await found.safeCall(call.args ?? {}, { env: this.#env(env), signal, episode: ep.handle() });
        outcome = r.ok ? { ok: true, result: r.value } : { ok: false, error: toErrorInfo(r.error) };
        envError = !r.ok && isEnvironmentFailure(r.error);
      } catch (err) {
        if (opts.signal?.aborted || !timeLimit.aborted) throw err;
        timedOut = true;
        outcome = { ok: false, error: toErrorInfo(new TimeoutError(`${tool}: stopped by the task's time limit of ${ep.task.timeLimitMs} ms`)) };
      }
    }
    ep.tokens += tokens;
    ep.events.push({ type: "action", step: ep.steps, tool, ok: outcome.ok, tokens });
    opts.onActed?.();
    const step: StepOutcome = { envError, timedOut, error: outcome.ok ? undefined : outcome.error };
    // A task judged at the end is evaluated only by the step that ends its episode (not by an env_error).
    const ending = !envError && endOfStep(ep, evaluationState(ep.task.graph.shape, []), step) !== undefined;
    const judgeNow = ending || (ep.task.evaluateAt === "every_step" && !ep.stepRoundsCut);
    const evaluation = judgeNow ? await this.#evaluateRound(ep, opts, ending) : evaluationState(ep.task.graph.shape, ep.events);
    this.#decide(ep, evaluation, step);
    return this.#result(ep, { tool, env, action }, outcome, evaluation, began);
  }

  #unknownTool(ep: Episode, tool: string, env: string): string {
    const actions = ep.actionSpace.get(env);
    if (!actions) return `${tool}: no environment named ${JSON.stringify(env)}; environments: ${[...ep.actionSpace.keys()].join(", ")}`;
    return `${tool}: ${env} has no such action; its actions: ${[...actions.keys()].join(", ")}`;
  }

  #result(
    ep: Episode,
    names: { tool: string; env: string; action: string },
    outcome: { ok: true; result: unknown } | { ok: false; error: ErrorInfo },
    evaluation: EvaluationState,
    began: number,
  ): StepResult {
    const reason = ep.end?.reason ?? null;
    return {
      step: ep.steps,
      ...names,
      ...outcome,
      evaluation,
      terminated: reason !== null && isTerminal(reason),
      truncated: reason !== null && !isTerminal(reason),
      reason,
      durationMs: performance.now() - began,
    };
  }

  /**
   * One evaluation round; `ending`: it judges the end of the episode (see EpisodeHandle.ending).
   * A round that does not judge the end is bounded by {@link BenchmarkOptions.stepEvaluationLimitMs}.
   */
  async #evaluateRound(ep: Episode, opts: BenchmarkCallOptions, ending: boolean): Promise<EvaluationState> {
    if (ep.task.evaluateAt === "end") {
      if (ep.evaluatedAtEnd) return evaluationState(ep.task.graph.shape, ep.events);
      ep.evaluatedAtEnd = true;
    }
    if (ending) return this.#runRound(ep, ep.events, opts, true);
    const bound = AbortSignal.timeout(this.#stepEvaluationLimitMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, bound]) : bound;
    // The round writes to a copy: one cut at its limit (its evaluator may not heed the signal) adds nothing later.
    const events = [...ep.events];
    const cut = new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
    try {
      const state = await Promise.race([this.#runRound(ep, events, { ...opts, signal }, false), cut]);
      ep.events.push(...events.slice(ep.events.length));
      return state;
    } catch (err) {
      if (opts.signal?.aborted || !bound.aborted) throw err;
      // Cut: the round says nothing, and this episode's later steps do not wait for theirs.
      ep.stepRoundsCut = true;
      return evaluationState(ep.task.graph.shape, ep.events);
    }
  }

  async #runRound(ep: Episode, events: EpisodeEvent[], opts: BenchmarkCallOptions, ending: boolean): Promise<EvaluationState> {
    return ep.task.graph.evaluate({
      events,
      step: ep.steps,
      envFor: (node) => this.#env(this.#nodeEnvName(node)),
      episode: ep.handle({ ending }),
      ...signalOf(opts),
    });
  }

  /** Ends the episode if this step ended it. */
  #decide(ep: Episode, evaluation: EvaluationState, step: StepOutcome): void {
    const end = endOfStep(ep, evaluation, step);
    if (end) ep.finish(end.reason, end.error);
  }

  /**
   * Runs an evaluation round now, outside a step (e.g. to score an episode in which the agent took
   * no action). Success or an evaluator error ends the episode as after a step.
   */
  async evaluate(opts: BenchmarkCallOptions = {}): Promise<EvaluationState> {
    const ep = this.#active("evaluate");
    const evaluation = await this.#evaluateRound(ep, opts, true);
    if (!ep.end) this.#decide(ep, evaluation, { envError: false, timedOut: false });
    return evaluation;
  }

  /** Records tokens the agent spent outside a step (e.g. a final message); they count toward the budget. */
  addTokens(tokens: number): void {
    const ep = this.#active("addTokens");
    if (!Number.isFinite(tokens) || tokens < 0) throw new InvalidArgumentError(`addTokens: tokens must be a non-negative number, got ${tokens}`);
    ep.tokens += tokens;
    ep.events.push({ type: "tokens", step: ep.steps, tokens });
  }

  /** Ends the episode from outside, e.g. with `agent_error` when the model call failed. No-op if it already ended. */
  end(reason: EndReason, error?: unknown): void {
    this.#active("end").finish(reason, error === undefined ? undefined : toErrorInfo(error));
  }

  /** Metrics of the current (or last) episode, computed from its events. */
  metrics(): GraphMetrics {
    const ep = this.#active("metrics");
    return computeMetrics(ep.task.graph.shape, ep.events);
  }

  /** The events of the current (or last) episode, in order. */
  events(): readonly EpisodeEvent[] {
    return this.#active("events").events;
  }

  /** The state of the current (or last) episode. */
  state(): EpisodeState {
    return this.#active("state").state();
  }

  /**
   * Runs the current episode's teardown, every action in order even if one fails, then throws a
   * TeardownError if any failed. Steps are refused afterwards; metrics and state stay readable.
   * No-op without an episode or when already closed. Does not close the environments' `env` handles.
   */
  async close(opts: BenchmarkCallOptions = {}): Promise<void> {
    const ep = this.#episode;
    if (!ep || ep.closed) return;
    ep.closed = true;
    const errors: ErrorInfo[] = [];
    for (const [i, call] of ep.task.teardown.entries()) {
      try {
        await call.action.runParsed(call.args, { env: this.#env(this.#envName(call)), episode: ep.handle(), ...signalOf(opts) });
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        const info = toErrorInfo(err);
        errors.push({ ...info, message: `teardown[${i}] ${call.action.name}: ${info.message}` });
      }
    }
    if (errors.length > 0) throw new TeardownError(ep.task.id, errors);
  }
}

function signalOf(opts: BenchmarkCallOptions): { signal?: AbortSignal } {
  return opts.signal ? { signal: opts.signal } : {};
}

function resolveCall(call: StepCall): { tool: string; env: string; action: string } {
  if ("tool" in call) {
    const decoded = decodeToolName(call.tool);
    return decoded ? { tool: call.tool, env: decoded.environment, action: decoded.action } : { tool: call.tool, env: "", action: call.tool };
  }
  return { tool: `${call.env}${TOOL_SEPARATOR}${call.action}`, env: call.env, action: call.action };
}

/** Builds a benchmark; throws InvalidArgumentError when a task names an unknown environment or names clash. */
export function createBenchmark(opts: BenchmarkOptions): Benchmark {
  return new Benchmark(opts);
}

/** What a step did that can end an episode. */
interface StepOutcome {
  envError: boolean;
  timedOut: boolean;
  error?: ErrorInfo | undefined;
}

/** The reason a step ends its episode, if it does; the order below is the precedence of the reasons. */
function endOfStep(ep: Episode, evaluation: EvaluationState, step: StepOutcome): { reason: EndReason; error?: ErrorInfo | undefined } | undefined {
  const { task } = ep;
  if (evaluation.success) return { reason: "success" };
  if (step.envError) return { reason: "env_error", error: step.error };
  if (evaluation.errors.length > 0) {
    const first = evaluation.errors[0]!;
    const error = { type: first.type, message: `evaluator node ${first.node}: ${first.message}` };
    // env_error only when every failed check failed because of a machine.
    const envOnly = evaluation.errors.every((e) => classifyFailure(e, "evaluation") === "env_error");
    return { reason: envOnly ? "env_error" : "evaluator_error", error };
  }
  if (ep.completeRequested) return { reason: "agent_complete" };
  if (step.timedOut || ep.elapsedMs() >= task.timeLimitMs) return { reason: "time_limit" };
  if (ep.steps >= task.maxSteps) return { reason: "step_limit" };
  if (task.tokenBudget !== undefined && ep.tokens > task.tokenBudget) return { reason: "token_budget" };
  return undefined;
}
