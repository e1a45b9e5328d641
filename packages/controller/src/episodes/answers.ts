import type { StepResult } from "../benchmark/types.js";
import type { EpisodeEvent, EvaluationState } from "../evaluators/metrics.js";
import { summarizeResult } from "../benchmark/resultSummary.js";
import type { Res } from "./wire.js";

/** The evaluator's nodes as NodeVerdicts: each node's status, and its latest check's score and reason. */
export function verdictsOf(evaluation: EvaluationState | null, events: readonly EpisodeEvent[]): Res<"Step">["nodes"] {
  if (!evaluation) return [];
  const last = new Map<string, Extract<EpisodeEvent, { type: "check" }>>();
  for (const e of events) if (e.type === "check") last.set(e.node, e);
  const nodes = Object.entries(evaluation.nodes);
  return nodes.map(([node, status]) => {
    const check = last.get(node);
    const score = status === "passed" ? 1 : nodes.length === 1 ? evaluation.score : (check?.score ?? 0);
    return { node, status, score, reason: check?.reason ?? check?.error?.message ?? (nodes.length === 1 ? evaluation.reason : "") };
  });
}

/** The last action's result as StepResponse.result_json says: JSON, bytes as their size, "null" for none or a failure. */
export function resultJsonOf(r: StepResult | undefined): string {
  return JSON.stringify(r?.ok ? (summarizeResult(r.result) ?? null) : null);
}
