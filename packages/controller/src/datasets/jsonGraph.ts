import { didYouMean } from "@pincer/shared";
import { evaluator, type AnyEvaluator } from "../evaluators/evaluator.js";
import { createGraphEvaluator, type GraphEvaluator } from "../evaluators/graph.js";
import type { EvaluationGraph, FunctionCall } from "./jsonFormat.js";
import type { DatasetProblem } from "./taskFiles.js";

// The graph form of a JSON task's evaluation (`evaluation: {graph: {nodes, edges, pass_policy}}`):
// what validation checks of its structure, and the evaluator graph it builds. Both go through
// createGraphEvaluator, so a graph that validates is one that builds.

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The entries of an evaluation as written, before the schema has accepted it, with their JSON paths:
 * the evaluation itself, or each node of a graph. For checks that report every problem at once.
 */
export function writtenEvaluationCalls(evaluation: unknown): Array<{ path: string; value: unknown }> {
  if (!isRecord(evaluation) || !("graph" in evaluation)) return [{ path: "evaluation", value: evaluation }];
  const nodes = isRecord(evaluation.graph) ? evaluation.graph.nodes : undefined;
  if (!isRecord(nodes)) return [];
  return Object.entries(nodes).map(([id, value]) => ({ path: `evaluation.graph.nodes.${id}`, value }));
}

/** Stands in for every node while the structure is checked; never run. */
const structureOnly = evaluator({ name: "structure_only", description: "a node while the graph's structure is checked", local: true, run: () => false });

/**
 * Checks the structure of `evaluation.graph` as written: each edge joins two nodes of the graph (an
 * unknown end is reported at its JSON path, with the node most likely meant) and not a node to
 * itself; then what {@link createGraphEvaluator} requires of the whole (no cycle, exactly one sink),
 * by building it with stand-in nodes. Shapes the schema rejects (no nodes, an edge that is not a
 * pair of names) are left to its messages.
 */
export function checkGraphStructure(evaluation: unknown, file: string, problems: DatasetProblem[]): void {
  const graph = isRecord(evaluation) && isRecord(evaluation.graph) ? evaluation.graph : undefined;
  if (!graph || !isRecord(graph.nodes)) return;
  const ids = Object.keys(graph.nodes);
  const rawEdges = graph.edges ?? [];
  if (ids.length === 0 || !Array.isArray(rawEdges)) return;
  const edges: Array<[string, string]> = [];
  let sound = true;
  rawEdges.forEach((edge, i) => {
    if (!Array.isArray(edge) || edge.length !== 2 || !edge.every((end) => typeof end === "string" && end !== "")) {
      sound = false;
      return;
    }
    const [from, to] = edge as [string, string];
    edge.forEach((end: string, k) => {
      if (ids.includes(end)) return;
      sound = false;
      const message = `edge ${from} → ${to} names no node ${JSON.stringify(end)}${didYouMean(end, ids)}; the nodes are ${ids.join(", ")}`;
      problems.push({ file, path: `evaluation.graph.edges[${i}][${k}]`, message, severity: "error" });
    });
    if (from === to) {
      sound = false;
      problems.push({ file, path: `evaluation.graph.edges[${i}]`, message: `edge ${from} → ${to} joins a node to itself (a cycle)`, severity: "error" });
    }
    edges.push([from, to]);
  });
  if (!sound) return;
  try {
    createGraphEvaluator({ nodes: Object.fromEntries(ids.map((id) => [id, structureOnly])), edges, passPolicy: "sticky" });
  } catch (err) {
    problems.push({ file, path: "evaluation.graph.edges", message: (err as Error).message.replace(/^graph: /, ""), severity: "error" });
  }
}

/**
 * The evaluator graph of `evaluation.graph`: each node's function call made an evaluator by
 * `nodeEvaluator` (which runs it as a task's single evaluation runs), its edges and pass policy as written.
 */
export function buildEvaluationGraph(graph: EvaluationGraph, nodeEvaluator: (call: FunctionCall) => AnyEvaluator): GraphEvaluator {
  return createGraphEvaluator({
    nodes: Object.fromEntries(Object.entries(graph.nodes).map(([id, call]) => [id, nodeEvaluator(call)])),
    edges: graph.edges,
    passPolicy: graph.pass_policy,
  });
}
