/**
 * What a graph evaluator keeps for a passed node:
 * - `"sticky"`: once passed, a node stays passed and is not checked again. Cheaper, and right for
 *   conditions that cannot be undone (a file was sent, a form submitted).
 * - `"recheck"`: every evaluation round checks again from the sources; a node passes only if it
 *   holds now and all its predecessors passed in the same round, so a regression (the agent undid
 *   its work) shows as a drop in completion ratio.
 */
export type PassPolicy = "sticky" | "recheck";

/** What happened in an episode, in order. Metrics are pure functions of these events. */
export type EpisodeEvent =
  /** An action the agent took: one step, whatever its outcome. */
  | { type: "action"; step: number; tool: string; ok: boolean; tokens: number }
  /** Tokens the agent spent outside a step (e.g. on its final answer). */
  | { type: "tokens"; step: number; tokens: number }
  /** The start of an evaluation round (after step `step`; 0 = before any step). */
  | { type: "round"; step: number }
  /** One node checked in the current round: its verdict (score and reason), or the error its evaluator threw. */
  | {
      type: "check";
      step: number;
      node: string;
      outcome: "passed" | "failed" | "error";
      score?: number;
      reason?: string;
      error?: { type: string; message: string };
    };

/** The structure of a graph that the metrics need. */
export interface GraphShape {
  /** Node ids in topological order. */
  nodes: readonly string[];
  edges: ReadonlyArray<readonly [from: string, to: string]>;
  sink: string;
  passPolicy: PassPolicy;
}

/** State of one node after the latest round: `pending` = not checked because a predecessor has not passed. */
export type NodeStatus = "passed" | "failed" | "error" | "pending";

/** The evaluator state a step reports. */
export interface EvaluationState {
  /** Node id → status, in topological order. */
  nodes: Record<string, NodeStatus>;
  /** Passed nodes / all nodes, in [0, 1]. */
  completionRatio: number;
  /**
   * The task's score, in [0, 1]: the mean of the nodes' scores, a passed node counting 1, a failed one
   * its latest score (partial credit), a pending or erroring one 0. One node: its own score.
   */
  score: number;
  /** Why: the one node's reason, or how many passed and the reasons of those that did not. */
  reason: string;
  /** The sink passed. */
  success: boolean;
  /** Nodes whose evaluator threw in the latest round (an evaluation error, not a `false`). */
  errors: Array<{ node: string; type: string; message: string }>;
}

/** Metrics of an episode. Ratios that would divide by zero are `null`, never NaN or Infinity. */
export interface GraphMetrics {
  /** Passed nodes / all nodes, in [0, 1]. */
  completionRatio: number;
  /** The task's score and its reason, as {@link EvaluationState} has them after the latest round. */
  score: number;
  reason: string;
  /** The sink passed. */
  success: boolean;
  /** Actions the agent took (steps, failed ones included); evaluation calls are not counted. */
  actions: number;
  /** Tokens the agent reported. */
  tokens: number;
  /** completionRatio / actions; null before the first action. */
  executionEfficiency: number | null;
  /** completionRatio / tokens; null when no tokens were reported. */
  costEfficiency: number | null;
  /** The step after which the sink first passed; null if it has not. */
  stepsToComplete: number | null;
  /**
   * Nodes not yet passed on the longest path that ends at the sink: how many more conditions must
   * hold, one after another, before success. 0 on success; the node count of the longest path at the start.
   */
  longestUnfinishedPath: number;
  /** Ids of the passed nodes, in topological order. */
  passedNodes: string[];
}

/** The events of the latest evaluation round (after its `round` marker). */
function latestRound(events: readonly EpisodeEvent[]): EpisodeEvent[] {
  for (let i = events.length - 1; i >= 0; i--) if (events[i]!.type === "round") return events.slice(i + 1);
  return [];
}

/** The nodes that count as passed now, under the graph's pass policy. */
export function passedNodes(graph: GraphShape, events: readonly EpisodeEvent[]): Set<string> {
  const source = graph.passPolicy === "sticky" ? events : latestRound(events);
  const passed = new Set<string>();
  for (const e of source) if (e.type === "check" && e.outcome === "passed") passed.add(e.node);
  return passed;
}

/** The evaluator state after the latest round. */
export function evaluationState(graph: GraphShape, events: readonly EpisodeEvent[]): EvaluationState {
  const passed = passedNodes(graph, events);
  const round = latestRound(events);
  const nodes: Record<string, NodeStatus> = {};
  const errors: EvaluationState["errors"] = [];
  const verdicts = new Map<string, { score: number; reason: string }>();
  for (const id of graph.nodes) {
    const check = round.findLast((e): e is Extract<EpisodeEvent, { type: "check" }> => e.type === "check" && e.node === id);
    if (passed.has(id)) {
      nodes[id] = "passed";
      verdicts.set(id, { score: 1, reason: check?.outcome === "passed" ? (check.reason ?? "passed") : "passed earlier" });
      continue;
    }
    nodes[id] = check ? check.outcome : "pending";
    if (check?.error) errors.push({ node: id, ...check.error });
    verdicts.set(id, check?.outcome === "failed" ? { score: check.score ?? 0, reason: check.reason ?? "failed" } : { score: 0, reason: nodes[id]! });
  }
  const score = [...verdicts.values()].reduce((sum, v) => sum + v.score, 0) / graph.nodes.length;
  return {
    nodes,
    completionRatio: passed.size / graph.nodes.length,
    score,
    reason: reasonOf(graph, verdicts, passed),
    success: passed.has(graph.sink),
    errors,
  };
}

/** The one node's reason; or how many nodes passed, and the reasons of the checked nodes that did not. */
function reasonOf(graph: GraphShape, verdicts: ReadonlyMap<string, { score: number; reason: string }>, passed: ReadonlySet<string>): string {
  if (graph.nodes.length === 1) return verdicts.get(graph.nodes[0]!)!.reason;
  const short = graph.nodes.filter((id) => !passed.has(id)).map((id) => `${id}: ${verdicts.get(id)!.reason}`);
  return [`${passed.size} of ${graph.nodes.length} checks passed`, ...short].join("; ");
}

/** Longest chain of unpassed nodes ending at the sink (passed nodes have only passed ancestors). */
function longestUnfinished(graph: GraphShape, passed: Set<string>): number {
  const preds = new Map<string, string[]>(graph.nodes.map((n) => [n, []]));
  for (const [from, to] of graph.edges) preds.get(to)!.push(from);
  const length = new Map<string, number>();
  for (const id of graph.nodes) {
    const before = Math.max(0, ...preds.get(id)!.map((p) => length.get(p) ?? 0));
    length.set(id, passed.has(id) ? 0 : 1 + before);
  }
  return length.get(graph.sink) ?? 0;
}

/** Computes the metrics of an episode from its events alone. */
export function computeMetrics(graph: GraphShape, events: readonly EpisodeEvent[]): GraphMetrics {
  const passed = passedNodes(graph, events);
  const completionRatio = passed.size / graph.nodes.length;
  const { score, reason } = evaluationState(graph, events);
  let actions = 0;
  let tokens = 0;
  let stepsToComplete: number | null = null;
  for (const e of events) {
    if (e.type === "action") {
      actions += 1;
      tokens += e.tokens;
    } else if (e.type === "tokens") {
      tokens += e.tokens;
    } else if (e.type === "check" && e.node === graph.sink && e.outcome === "passed" && stepsToComplete === null) {
      stepsToComplete = e.step;
    }
  }
  return {
    completionRatio,
    score,
    reason,
    success: passed.has(graph.sink),
    actions,
    tokens,
    executionEfficiency: actions > 0 ? completionRatio / actions : null,
    costEfficiency: tokens > 0 ? completionRatio / tokens : null,
    stepsToComplete,
    longestUnfinishedPath: longestUnfinished(graph, passed),
    passedNodes: graph.nodes.filter((n) => passed.has(n)),
  };
}
