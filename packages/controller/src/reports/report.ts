import type { Summary } from "../runFolder/results.js";
import { isInfraState } from "../runFolder/results.js";

interface Group {
  tasks: number;
  passed: number;
  failed: number;
  errors: number;
  meanScore: number;
}

/** The run report (report.json): success rate, scores, tokens, cost and time, per tag, per app and per task. */
export interface Report {
  runId: string;
  tasks: number;
  passed: number;
  failed: number;
  /** Tasks whose final attempt ended in an infrastructure error (counted as failures in successRate too). */
  errors: number;
  errorsByState: Record<string, number>;
  /** passed / tasks: errors count as failures. */
  successRate: number;
  meanScore: number;
  /** Mean completion ratio over graph-evaluated tasks (the score of single-check tasks otherwise). */
  meanCompletionRatio: number;
  totalTokens: number;
  meanTokensPerTask: number;
  /** Sum of the tasks' model cost in USD; null when no task had a price. */
  totalCostUsd: number | null;
  meanSecondsPerTask: number;
  byTag: Record<string, Group>;
  byApp: Record<string, Group>;
  counterparts: Array<{ a: string; b: string; aScore: number; bScore: number; aTags: string[]; bTags: string[] }>;
  perTask: PerTask[];
}

/** One task's line of a report: its final attempt's outcome. */
export interface PerTask {
  id: string;
  tool: string;
  state: string;
  score: number;
  steps: number;
  tokens: number;
  costUsd: number | null;
  seconds: number;
  attempts: number;
  /** Why an infrastructure error (setup, environment, evaluator, agent) ended the task; null otherwise. */
  error: string | null;
}

function group(summaries: Summary[]): Group {
  const passed = summaries.filter((s) => s.results.state === "passed").length;
  const errors = summaries.filter((s) => isInfraState(s.results.state)).length;
  return {
    tasks: summaries.length,
    passed,
    failed: summaries.length - passed - errors,
    errors,
    meanScore: summaries.length ? summaries.reduce((a, s) => a + s.results.score, 0) / summaries.length : 0,
  };
}

function groupBy(summaries: Summary[], keys: (s: Summary) => string[]): Record<string, Group> {
  const m = new Map<string, Summary[]>();
  for (const s of summaries) for (const k of keys(s)) m.set(k, [...(m.get(k) ?? []), s]);
  return Object.fromEntries([...m].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, group(v)]));
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/** Aggregates the final summary of every task into the run report. */
export function buildReport(runId: string, finals: Array<{ tool: string; summary: Summary; attempts: number }>): Report {
  const summaries = finals.map((f) => f.summary);
  const g = group(summaries);
  const errorsByState: Record<string, number> = {};
  for (const s of summaries) if (isInfraState(s.results.state)) errorsByState[s.results.state] = (errorsByState[s.results.state] ?? 0) + 1;
  const ratio = (s: Summary) => s.results.metrics?.completionRatio ?? s.results.score;
  const byId = new Map(summaries.map((s) => [s.id, s]));
  const pairs: Report["counterparts"] = [];
  for (const s of summaries) {
    const other = typeof s.counterpart === "string" ? byId.get(s.counterpart) : undefined;
    if (other && s.id < other.id) {
      pairs.push({ a: s.id, b: other.id, aScore: s.results.score, bScore: other.results.score, aTags: strings(s.tags), bTags: strings(other.tags) });
    }
  }
  const totalTokens = summaries.reduce((a, s) => a + s.results.total_tokens, 0);
  const costs = summaries.map((s) => s.results.cost_usd).filter((c): c is number => typeof c === "number");
  return {
    runId,
    tasks: g.tasks,
    passed: g.passed,
    failed: g.failed,
    errors: g.errors,
    errorsByState,
    successRate: g.tasks ? g.passed / g.tasks : 0,
    meanScore: g.meanScore,
    meanCompletionRatio: summaries.length ? summaries.reduce((a, s) => a + ratio(s), 0) / summaries.length : 0,
    totalTokens,
    meanTokensPerTask: summaries.length ? totalTokens / summaries.length : 0,
    totalCostUsd: costs.length ? costs.reduce((a, b) => a + b, 0) : null,
    meanSecondsPerTask: summaries.length ? summaries.reduce((a, s) => a + s.results.total_timing.total_ms, 0) / summaries.length / 1000 : 0,
    byTag: groupBy(summaries, (s) => strings(s.tags)),
    byApp: groupBy(summaries, (s) => strings(s.related_apps)),
    counterparts: pairs,
    perTask: finals.map((f) => ({
      id: f.summary.id,
      tool: f.tool,
      state: f.summary.results.state,
      score: f.summary.results.score,
      steps: f.summary.results.steps,
      tokens: f.summary.results.total_tokens,
      costUsd: typeof f.summary.results.cost_usd === "number" ? f.summary.results.cost_usd : null,
      seconds: Math.round(f.summary.results.total_timing.total_ms / 100) / 10,
      attempts: f.attempts,
      error: f.summary.results.error ?? f.summary.results.eval_error ?? null,
    })),
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** The report as Markdown. */
export function reportMarkdown(r: Report): string {
  const lines = [
    `# Run ${r.runId}`,
    "",
    `- tasks: ${r.tasks}; passed ${r.passed}, failed ${r.failed}, infrastructure errors ${r.errors}${
      r.errors
        ? ` (${Object.entries(r.errorsByState)
            .map(([k, v]) => `${k} ${v}`)
            .join(", ")})`
        : ""
    }`,
    `- success rate: ${pct(r.successRate)} (errors count as failures)`,
    `- mean score: ${r.meanScore.toFixed(3)}; mean completion ratio: ${r.meanCompletionRatio.toFixed(3)}`,
    `- tokens: ${r.totalTokens} in all, ${r.meanTokensPerTask.toFixed(0)} per task; time: ${r.meanSecondsPerTask.toFixed(1)} s per task` +
      (r.totalCostUsd === null ? "" : `; cost: $${r.totalCostUsd.toFixed(4)}`),
    "",
  ];
  const table = (title: string, groups: Record<string, Group>) => {
    if (Object.keys(groups).length === 0) return;
    lines.push(`## By ${title}`, "", `| ${title} | tasks | passed | failed | errors | success | mean score |`, "|---|---:|---:|---:|---:|---:|---:|");
    for (const [k, g] of Object.entries(groups))
      lines.push(`| ${k} | ${g.tasks} | ${g.passed} | ${g.failed} | ${g.errors} | ${pct(g.tasks ? g.passed / g.tasks : 0)} | ${g.meanScore.toFixed(3)} |`);
    lines.push("");
  };
  table("tag", r.byTag);
  table("app", r.byApp);
  if (r.counterparts.length) {
    lines.push("## Counterpart pairs", "", "| task | score | counterpart | score |", "|---|---:|---|---:|");
    for (const p of r.counterparts)
      lines.push(`| ${p.a} (${p.aTags.join(", ")}) | ${p.aScore.toFixed(2)} | ${p.b} (${p.bTags.join(", ")}) | ${p.bScore.toFixed(2)} |`);
    lines.push("");
  }
  lines.push("## Tasks", "", "| task | tool | state | score | steps | tokens | cost USD | seconds | attempts |", "|---|---|---|---:|---:|---:|---:|---:|---:|");
  for (const t of r.perTask) {
    lines.push(
      `| ${t.id} | ${t.tool} | ${t.state} | ${t.score.toFixed(2)} | ${t.steps} | ${t.tokens} | ${t.costUsd === null ? "" : t.costUsd.toFixed(4)} | ` +
        `${t.seconds} | ${t.attempts} |`,
    );
  }
  return `${lines.join("\n")}\n`;
}
