import type { Summary } from "../runFolder/results.js";
import { isInfraState } from "../runFolder/results.js";
import { type RolloutResult, type RolloutStats, rolloutStats, type RunRolloutStats, runRolloutStats } from "./rollouts.js";

export type { RolloutResult, RolloutStats, RunRolloutStats } from "./rollouts.js";

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
  /** A run of several rollouts per task (`--rollouts N`, N > 1): the means of the tasks' pass@k and best-of-N; absent otherwise. */
  rollouts?: RunRolloutStats;
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
  /** With several rollouts: each rollout's outcome, pass@k, best-of-N and the spread of the scores (the row's fields then stand for all of them). */
  rollouts?: RolloutStats;
  /** A person took the task over (`--live`): their steps and takeovers (over all rollouts); the score is not the agent's alone. Absent when nobody did. */
  human?: { steps: number; takeovers: number };
}

/** What people did in a task's final attempts (each rollout's), or undefined when nobody took it over. */
function humanPart(f: TaskFinal): PerTask["human"] {
  const all = (f.rollouts ?? [{ summary: f.summary }]).map((r) => r.summary.results.human).filter((h) => h !== undefined);
  if (all.length === 0) return undefined;
  return { steps: sum(all.map((h) => h.steps)), takeovers: sum(all.map((h) => h.takeovers)) };
}

/** A task's final outcome as the report reads it: its last attempt's summary, or with several rollouts each rollout's. */
export interface TaskFinal {
  tool: string;
  /** The last attempt's summary (with rollouts: that of the first rollout that finished, for the task's own fields). */
  summary: Summary;
  attempts: number;
  /** With several rollouts (N > 1): each finished rollout's last attempt, in order, and how many attempts it used. */
  rollouts?: Array<{ rollout: number; summary: Summary; attempts: number }>;
}

/** A rollout's last attempt as the report lists it. */
export function rolloutResult(rollout: number, summary: Summary, attempts: number): RolloutResult {
  const r = summary.results;
  const error = isInfraState(r.state) ? (r.error ?? r.eval_error ?? null) : null;
  return { rollout, state: r.state, score: r.score, attempts, endReason: r.end_reason, steps: r.steps, error };
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/** The metrics of a rollouts row whose representative attempt had none (only its completion ratio is read). */
const emptyMetrics = {
  completionRatio: 0,
  score: 0,
  reason: "",
  success: false,
  actions: 0,
  tokens: 0,
  executionEfficiency: null,
  costEfficiency: null,
  stepsToComplete: null,
  longestUnfinishedPath: 0,
  passedNodes: [],
};

/**
 * The summary a task's row is built from when it has several rollouts: its fields, and results that
 * stand for all of them: the mean score (and completion ratio) of the rollouts with a verdict, passed
 * when every one of those passed, failed when one did not, the first one's infrastructure error when
 * none has a verdict; tokens, cost and time summed over the rollouts, steps their mean.
 */
function rolloutsSummary(f: TaskFinal & { rollouts: NonNullable<TaskFinal["rollouts"]> }): Summary {
  const all = f.rollouts.map((r) => r.summary.results);
  const counted = all.filter((r) => !isInfraState(r.state));
  const first = all[0] ?? f.summary.results;
  const mean = (xs: number[]) => (xs.length ? sum(xs) / xs.length : 0);
  const state = counted.length === 0 ? first.state : counted.every((r) => r.state === "passed") ? "passed" : "failed";
  const costs = all.map((r) => r.cost_usd).filter((c): c is number => typeof c === "number");
  const timing = (k: keyof typeof first.total_timing) => sum(all.map((r) => r.total_timing[k]));
  const ratio = mean(counted.map((r) => r.metrics?.completionRatio ?? r.score));
  const metrics = counted.length ? { ...(f.summary.results.metrics ?? emptyMetrics), completionRatio: ratio } : undefined;
  const results = {
    ...f.summary.results,
    state,
    score: mean(counted.map((r) => r.score)),
    error: counted.length === 0 ? first.error : null,
    eval_error: counted.length === 0 ? first.eval_error : null,
    total_tokens: sum(all.map((r) => r.total_tokens)),
    cost_usd: costs.length ? sum(costs) : null,
    total_timing: { total_ms: timing("total_ms"), setup_ms: timing("setup_ms"), model_ms: timing("model_ms"), env_ms: timing("env_ms") },
    steps: Math.round(mean(all.map((r) => r.steps))),
    metrics,
  };
  return { ...f.summary, results };
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

/**
 * Aggregates the final summary of every task into the run report; a task with several rollouts
 * (`rollouts`, planned of them per task) counts as {@link rolloutsSummary} says, with its rollouts' statistics.
 */
export function buildReport(runId: string, taskFinals: readonly TaskFinal[], planned = 1): Report {
  const stats = new Map<TaskFinal, RolloutStats>();
  const finals = taskFinals.map((f) => {
    if (!f.rollouts || planned < 2) return f;
    stats.set(
      f,
      rolloutStats(
        f.rollouts.map((r) => rolloutResult(r.rollout, r.summary, r.attempts)),
        planned,
      ),
    );
    return { ...f, summary: rolloutsSummary({ ...f, rollouts: f.rollouts }), attempts: sum(f.rollouts.map((r) => r.attempts)) };
  });
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
    ...(planned > 1 ? { rollouts: runRolloutStats([...stats.values()], planned) } : {}),
    perTask: finals.map((f, i) => ({
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
      ...(stats.has(taskFinals[i]!) ? { rollouts: stats.get(taskFinals[i]!)! } : {}),
      ...(humanPart(taskFinals[i]!) ? { human: humanPart(taskFinals[i]!)! } : {}),
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
  const touched = r.perTask.filter((t) => t.human);
  if (touched.length) {
    lines.splice(
      lines.length - 1,
      0,
      `- taken over by a person: ${touched.length} task(s), their scores not the agent's alone: ` +
        touched.map((t) => `${t.id} (${t.human!.steps} human steps)`).join(", "),
    );
  }
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
  if (r.rollouts) lines.push(...rolloutsMarkdown(r.rollouts, r.perTask));
  lines.push("## Tasks", "", "| task | tool | state | score | steps | tokens | cost USD | seconds | attempts |", "|---|---|---|---:|---:|---:|---:|---:|---:|");
  for (const t of r.perTask) {
    lines.push(
      `| ${t.id} | ${t.tool} | ${t.state}${t.human ? " (human)" : ""} | ${t.score.toFixed(2)} | ${t.steps} | ${t.tokens} | ` +
        `${t.costUsd === null ? "" : t.costUsd.toFixed(4)} | ${t.seconds} | ${t.attempts} |`,
    );
  }
  return `${lines.join("\n")}\n`;
}

const fixed = (x: number | null | undefined) => (typeof x === "number" ? x.toFixed(3) : "–");

/** The rollouts section of report.md: the run's mean pass@k, then per task each rollout's score, pass@k, best-of-N and the spread. */
function rolloutsMarkdown(run: RunRolloutStats, tasks: readonly PerTask[]): string[] {
  const ks = Object.keys(run.meanPassAt);
  const means = ks.map((k) => `pass@${k} ${fixed(run.meanPassAt[k])}`).join(", ");
  const lines = [
    `## Rollouts (${run.planned} per task)`,
    "",
    `- mean over tasks: ${means}; best-of-${run.planned} ${fixed(run.meanBestOfN)}`,
    `- rollouts that ended in an infrastructure error (left out of n): ${run.errors}`,
    "",
    `| task | rollout scores | n | passed | errors | ${ks.map((k) => `pass@${k}`).join(" | ")} | best-of-${run.planned} | min | max | std |`,
    `|---|---|---:|---:|---:|${ks.map(() => "---:|").join("")}---:|---:|---:|---:|`,
  ];
  for (const t of tasks) {
    const s = t.rollouts;
    if (!s) continue;
    const scores = s.results.map((x) => `${x.rollout}: ${x.error === null ? x.score.toFixed(2) : x.state}`).join(", ");
    const passAt = ks.map((k) => fixed(s.passAt[k])).join(" | ");
    lines.push(
      `| ${t.id} | ${scores} | ${s.n} | ${s.c} | ${s.errors} | ${passAt} | ${fixed(s.bestOfN)} | ${fixed(s.min)} | ${fixed(s.max)} | ${fixed(s.std)} |`,
    );
  }
  lines.push("");
  return lines;
}
