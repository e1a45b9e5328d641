import type { AnyAction, EpisodeHandle } from "../actions/action.js";
import { ActionDefinitionError, throwIfAborted } from "../actions/errors.js";
import type { Env } from "../env/index.js";
import { watchEnv } from "../env/machineFailures.js";
import { isEvaluator, judge, type AnyEvaluator } from "./evaluator.js";
import { evaluationState, passedNodes, type EpisodeEvent, type EvaluationState, type GraphShape, type PassPolicy } from "./metrics.js";

/** A node of a graph: an evaluator, the environment it checks, and its arguments. */
export interface GraphNode {
  id: string;
  evaluator: AnyEvaluator;
  /** Environment the evaluator runs in; unset = the evaluator's own `env`, else the benchmark's default. */
  env?: string;
  /** Arguments, validated when the graph is built. */
  args: Record<string, unknown>;
}

/** A node as given to {@link createGraphEvaluator}: an evaluator alone, or with its environment and arguments. */
export type GraphNodeInput = AnyEvaluator | { evaluator: AnyEvaluator; env?: string; args?: Record<string, unknown> };

/** Options of {@link createGraphEvaluator}. */
export interface GraphEvaluatorOptions {
  /** Node id → evaluator. Ids are free text (they name nodes in results), unique by construction. */
  nodes: Record<string, GraphNodeInput>;
  /** `[from, to]`: `to` is checked only once `from` has passed. @default [] (a single node) */
  edges?: ReadonlyArray<readonly [from: string, to: string]>;
  /** What happens to passed nodes in later rounds; no default, each graph chooses. See {@link PassPolicy}. */
  passPolicy: PassPolicy;
}

/** What {@link GraphEvaluator.evaluate} needs to run one round. */
export interface EvaluateOptions {
  /** The episode's event log; the round appends its events to it. */
  events: EpisodeEvent[];
  /** The step this round follows (0 = before any step). */
  step: number;
  /** The env handle of each node. */
  envFor(node: GraphNode): Env;
  signal?: AbortSignal;
  episode?: EpisodeHandle;
}

/**
 * A DAG of evaluators with one sink, for partial credit: a node is checked once all its predecessors
 * have passed, passes cascade within one round, and success is the sink passing. The graph is
 * immutable and holds no state: an episode's progress lives in its event log.
 */
export class GraphEvaluator {
  readonly nodes: ReadonlyMap<string, GraphNode>;
  /** Node ids in topological order (ties keep the order the nodes were given in). */
  readonly order: readonly string[];
  readonly edges: ReadonlyArray<readonly [string, string]>;
  readonly sink: string;
  readonly passPolicy: PassPolicy;
  readonly #preds: Map<string, string[]>;

  constructor(opts: GraphEvaluatorOptions) {
    if (opts.passPolicy !== "sticky" && opts.passPolicy !== "recheck") {
      throw new ActionDefinitionError(`graph: passPolicy must be "sticky" or "recheck"`);
    }
    const nodes = new Map<string, GraphNode>();
    for (const [id, input] of Object.entries(opts.nodes)) {
      if (id === "") throw new ActionDefinitionError("graph: a node id must not be empty");
      const spec = typeof input === "object" && "evaluator" in input ? input : { evaluator: input };
      if (!isEvaluator(spec.evaluator))
        throw new ActionDefinitionError(`graph: node ${id} is not an evaluator (define it with evaluator(), or return a boolean)`);
      let args: Record<string, unknown>;
      try {
        args = (spec.evaluator as AnyAction).parse(spec.args ?? {}) as Record<string, unknown>;
      } catch (err) {
        throw new ActionDefinitionError(`graph: node ${id}: ${(err as Error).message}`);
      }
      nodes.set(id, { id, evaluator: spec.evaluator, args, ...(spec.env !== undefined ? { env: spec.env } : {}) });
    }
    if (nodes.size === 0) throw new ActionDefinitionError("graph: give at least one node");
    const edges = opts.edges ?? [];
    const preds = new Map<string, string[]>([...nodes.keys()].map((n) => [n, []]));
    const succs = new Map<string, string[]>([...nodes.keys()].map((n) => [n, []]));
    const seen = new Set<string>();
    for (const [from, to] of edges) {
      for (const end of [from, to]) if (!nodes.has(end)) throw new ActionDefinitionError(`graph: edge ${from} → ${to} names an unknown node ${end}`);
      if (from === to) throw new ActionDefinitionError(`graph: edge ${from} → ${to} is a cycle`);
      if (seen.has(`${from}\u0000${to}`)) continue;
      seen.add(`${from}\u0000${to}`);
      preds.get(to)!.push(from);
      succs.get(from)!.push(to);
    }
    // Kahn's algorithm; whatever is left unordered lies on a cycle.
    const indegree = new Map([...preds].map(([n, p]) => [n, p.length]));
    const order: string[] = [];
    const rank = new Map([...nodes.keys()].map((n, i) => [n, i]));
    const ready = [...nodes.keys()].filter((n) => indegree.get(n) === 0);
    while (ready.length > 0) {
      ready.sort((a, b) => rank.get(a)! - rank.get(b)!);
      const n = ready.shift()!;
      order.push(n);
      for (const s of succs.get(n)!) {
        indegree.set(s, indegree.get(s)! - 1);
        if (indegree.get(s) === 0) ready.push(s);
      }
    }
    if (order.length !== nodes.size) {
      const cyclic = [...nodes.keys()].filter((n) => !order.includes(n));
      throw new ActionDefinitionError(`graph: the edges form a cycle through ${cyclic.join(", ")}; an evaluator graph must be acyclic`);
    }
    const sinks = order.filter((n) => succs.get(n)!.length === 0);
    if (sinks.length !== 1) {
      throw new ActionDefinitionError(
        `graph: it must have exactly one sink (the node that means success); it has ${sinks.length}: ${sinks.join(", ")}. Add edges into one final node`,
      );
    }
    this.nodes = nodes;
    this.order = order;
    this.edges = edges.map(([f, t]) => [f, t] as const);
    this.sink = sinks[0]!;
    this.passPolicy = opts.passPolicy;
    this.#preds = preds;
  }

  /** Ids of the nodes that must pass before `id` is checked. */
  predecessors(id: string): readonly string[] {
    return this.#preds.get(id) ?? [];
  }

  /** The structure that {@link computeMetrics} needs. */
  get shape(): GraphShape {
    return { nodes: this.order, edges: this.edges, sink: this.sink, passPolicy: this.passPolicy };
  }

  /**
   * Runs one evaluation round and appends its events: checks, in waves, every node whose
   * predecessors have all passed (under `sticky`, nodes passed earlier are skipped and stay passed).
   * The nodes of a wave are checked at the same time, since each may be a round trip to a machine;
   * their events are appended in topological order, and a pass lets its successors into the next
   * wave of the same round. An evaluator that throws is recorded as an `error` (not `false`) and the
   * round goes on with the other nodes. Cancellation (the signal fired) throws.
   */
  async evaluate(opts: EvaluateOptions): Promise<EvaluationState> {
    const passed = this.passPolicy === "sticky" ? passedNodes(this.shape, opts.events) : new Set<string>();
    const checked = new Set<string>();
    opts.events.push({ type: "round", step: opts.step });
    for (;;) {
      const wave = this.order.filter((id) => !passed.has(id) && !checked.has(id) && this.predecessors(id).every((p) => passed.has(p)));
      if (wave.length === 0) break;
      throwIfAborted(opts.signal, `evaluating ${wave.join(", ")}`);
      const outcomes = await Promise.all(wave.map((id) => this.#check(id, opts)));
      wave.forEach((id, i) => {
        const outcome = outcomes[i]!;
        checked.add(id);
        opts.events.push({ type: "check", step: opts.step, node: id, ...outcome });
        if (outcome.outcome === "passed") passed.add(id);
      });
    }
    return evaluationState(this.shape, opts.events);
  }

  /**
   * Checks one node: its verdict (passed at a score of 1), or the error its evaluator threw
   * (cancellation rethrown). A machine that failed during the check makes it that failure, even when
   * the evaluator caught it and gave a verdict: no score comes from a machine that did not answer.
   */
  async #check(
    id: string,
    opts: EvaluateOptions,
  ): Promise<{ outcome: "passed" | "failed"; score: number; reason: string } | { outcome: "error"; error: { type: string; message: string } }> {
    const node = this.nodes.get(id)!;
    const watched = watchEnv(opts.envFor(node));
    const errorOf = (err: unknown) => ({
      outcome: "error" as const,
      error: err instanceof Error ? { type: err.name, message: err.message } : { type: "Error", message: String(err) },
    });
    try {
      const v = await judge(node.evaluator, node.args, {
        env: watched.env,
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.episode ? { episode: opts.episode } : {}),
      });
      const failed = watched.failure();
      if (failed) return errorOf(failed);
      return { outcome: v.score >= 1 ? "passed" : "failed", score: v.score, reason: v.reason };
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      return errorOf(watched.failure() ?? err);
    }
  }
}

/** Builds and validates a graph evaluator; throws an ActionDefinitionError for cycles, unknown nodes or not exactly one sink. */
export function createGraphEvaluator(opts: GraphEvaluatorOptions): GraphEvaluator {
  return new GraphEvaluator(opts);
}

/** A one-node graph around a single evaluator (what a task with one evaluator uses). */
export function singleNodeGraph(evaluator: AnyEvaluator, env?: string): GraphEvaluator {
  return new GraphEvaluator({ nodes: { [evaluator.name]: env === undefined ? evaluator : { evaluator, env } }, passPolicy: "sticky" });
}
