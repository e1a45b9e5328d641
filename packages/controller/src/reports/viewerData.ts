import type { PerTask, Report } from "./report.js";
import type { Summary } from "../runFolder/results.js";
import type { TrajectoryLine } from "../runFolder/trajectory.js";
import { readManifest, readTrajectory } from "../runFolder/runFiles.js";
import type { RunManifest } from "../runFolder/schemas.js";

/** One finished attempt of a task as report.html shows it: the report's figures for it, and more. */
export interface ViewerAttempt extends Pick<PerTask, "state" | "score" | "steps" | "tokens" | "costUsd" | "seconds" | "error"> {
  attempt: number;
  /** The rollout it belongs to, in a run of several rollouts per task; absent otherwise. */
  rollout?: number;
  /** The attempt's folder relative to the run folder; screenshot paths of the trajectory are relative to it. */
  dir: string;
  /** A person took the attempt over: their steps and takeovers (summary.json's `human`). */
  human?: { steps: number; takeovers: number };
  agent: string;
  model: string;
  agentState: string | null;
  endReason: string | null;
  evalReason: string | null;
  maxSteps: number;
  inputTokens: number;
  outputTokens: number;
  timing: { total_ms: number; setup_ms: number; model_ms: number; env_ms: number };
  /** Screen recordings (`--record`): file in the attempt folder, or why there is none. */
  recordings: Record<string, { file: string } | { error: string }>;
  trajectory: TrajectoryLine[];
}

type ReportRow = Report["perTask"][number];

/** A task as report.html shows it: its report row and last attempt, the task's fields, and its earlier attempts. */
export interface ViewerTask extends ReportRow, ViewerAttempt {
  /** `<tool>/<id>`, unique in a run. */
  key: string;
  instruction: string;
  tags: string[];
  apps: string[];
  environments: string[];
  /** The attempts before the last one, newest first (the last one is the task's own fields). */
  earlier: ViewerAttempt[];
  /** With several rollouts: each rollout side by side, its last attempt's outcome and final screen. */
  rolloutViews?: RolloutView[];
}

/** A rollout of a task as the viewer shows it beside the others. */
export interface RolloutView {
  rollout: number;
  /** Its last attempt. */
  attempt: number;
  state: string;
  score: number;
  endReason: string | null;
  error: string | null;
  attempts: number;
  /** The last screenshot of its last attempt, relative to the run folder; null when it saved none. */
  screenshot: string | null;
}

/** What manifest.json says about how a run was made; fields an older run did not record are absent. */
export type RunManifestFields = Partial<RunManifest>;

/** The run's configuration in the viewer's header: each value as text, or null when the run did not record it. */
export interface RunConfig {
  agent: string | null;
  model: string | null;
  provider: string | null;
  image: string | null;
  dataset: string | null;
  maxSteps: string | null;
  attempts: string | null;
  /** Rollouts per task, when more than one. */
  rollouts: string | null;
  taskTimeout: string | null;
  screenshots: string | null;
  settle: string | null;
  accessibility: string | null;
  record: string | null;
  startedAt: string | null;
  finishedAt: string | null;
}

const text = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : null);
const onOff = (v: unknown): string | null => (typeof v === "boolean" ? (v ? "on" : "off") : null);
const distinct = (values: Array<string | null | undefined>): string | null => [...new Set(values.filter((v): v is string => !!v))].join(", ") || null;

function settleText(v: unknown): string | null {
  if (v === false) return "off";
  if (v && typeof v === "object") {
    const s = v as { quietMs?: unknown; maxMs?: unknown };
    return `quiet ${String(s.quietMs ?? "?")} ms, at most ${String(s.maxMs ?? "?")} ms`;
  }
  return text(v);
}

/** manifest.json of a run folder, or {} when it is missing or does not read (the viewer still shows the rest). */
export async function readManifestFields(runDir: string): Promise<RunManifestFields> {
  try {
    return await readManifest(runDir);
  } catch {
    return {};
  }
}

/** The run's configuration from its manifest and its summaries (agent and model come from these: a local run's manifest does not name them). */
export function runConfig(manifest: RunManifestFields, summaries: readonly Summary[]): RunConfig {
  const config = manifest.provider?.config ?? {};
  const timeout = typeof manifest.task_timeout_ms === "number" ? `${manifest.task_timeout_ms / 1000} s` : null;
  return {
    agent: distinct([...summaries.map((s) => s.results.agent), text(manifest.agent?.kind)]),
    model: distinct([...summaries.map((s) => s.results.model), text(manifest.agent?.model)]),
    provider: text(manifest.provider?.name) ?? (manifest.queue ? `queue ${text(manifest.queue.name) ?? ""}`.trim() : null),
    image: text(config.image) ?? text(config.rootfs) ?? text(config.disk),
    dataset: text(manifest.dataset?.root),
    maxSteps: text(manifest.max_steps),
    attempts: text(manifest.attempts),
    rollouts: (manifest.rollouts ?? 1) > 1 ? text(manifest.rollouts) : null,
    taskTimeout: timeout,
    screenshots: onOff(manifest.screenshots),
    settle: settleText(manifest.settle),
    accessibility: manifest.accessibility === null ? "off" : text(manifest.accessibility),
    record: onOff(manifest.record),
    startedAt: text(manifest.started_at),
    finishedAt: text(manifest.finished_at),
  };
}

/** The lines of an attempt's trajectory.jsonl; a line that does not read (a run killed mid-write, a damaged file) is left out. */
export async function readTrajectoryLines(dir: string): Promise<TrajectoryLine[]> {
  return readTrajectory(dir, { skipInvalid: true });
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/** One attempt of a task as the viewer shows it. */
export function viewerAttempt(tool: string, summary: Summary, attempt: number, trajectory: TrajectoryLine[], rollout?: number): ViewerAttempt {
  const r = summary.results;
  return {
    attempt,
    ...(rollout === undefined ? {} : { rollout }),
    dir: `${tool}/${summary.id}/${rollout === undefined ? "" : `rollout-${rollout}/`}attempt-${attempt}`,
    state: r.state,
    score: r.score,
    steps: r.steps,
    tokens: r.total_tokens,
    costUsd: typeof r.cost_usd === "number" ? r.cost_usd : null,
    seconds: Math.round(r.total_timing.total_ms / 100) / 10,
    error: r.error ?? r.eval_error ?? null,
    agent: r.agent,
    model: r.model,
    agentState: r.agent_state,
    endReason: r.end_reason,
    evalReason: r.eval_reason,
    maxSteps: r.max_steps,
    inputTokens: r.input_tokens,
    outputTokens: r.output_tokens,
    timing: r.total_timing,
    recordings: r.recordings ?? {},
    ...(r.human ? { human: r.human } : {}),
    trajectory,
  };
}

/** The last screenshot an attempt saved (the final screen, else the last turn's), relative to the run folder; null when none. */
function lastScreenshot(a: ViewerAttempt): string | null {
  for (let i = a.trajectory.length - 1; i >= 0; i--) {
    const file = Object.values(a.trajectory[i]!.screenshots ?? {})[0];
    if (file) return `${a.dir}/${file}`;
  }
  return null;
}

/** Each rollout of the report row with its last attempt among `attempts`, for the side-by-side view. */
function rolloutViewsOf(row: ReportRow, attempts: readonly ViewerAttempt[]): RolloutView[] | undefined {
  if (!row.rollouts) return undefined;
  return row.rollouts.results.map((r) => {
    const last = attempts
      .filter((a) => a.rollout === r.rollout)
      .sort((a, b) => a.attempt - b.attempt)
      .at(-1);
    return {
      rollout: r.rollout,
      attempt: last?.attempt ?? 0,
      state: r.state,
      score: r.score,
      endReason: r.endReason,
      error: r.error,
      attempts: r.attempts,
      screenshot: last ? lastScreenshot(last) : null,
    };
  });
}

/**
 * A task of the viewer: its report row, its last attempt and its earlier ones (`attempts` oldest
 * first). With several rollouts (the one to open on last) the task's own fields are its row's, which
 * stands for all rollouts, and every attempt, that one first, is in `earlier`.
 */
export function viewerTask(row: ReportRow, summary: Summary, attempts: readonly ViewerAttempt[]): ViewerTask {
  const last = attempts.at(-1)!;
  const rolloutViews = rolloutViewsOf(row, attempts);
  const task = {
    key: `${row.tool}/${row.id}`,
    instruction: typeof summary.instruction === "string" ? summary.instruction : "",
    tags: strings(summary.tags),
    apps: strings(summary.related_apps),
    environments: Object.keys(summary.results.environments ?? {}),
  };
  if (rolloutViews) return { ...last, ...row, ...task, trajectory: [], earlier: [...attempts].reverse(), rolloutViews };
  return { ...row, ...last, ...task, earlier: attempts.slice(0, -1).reverse() };
}
