import { existsSync } from "node:fs";
import { join } from "node:path";
import { clipStrings } from "../reports/viewerHtml.js";
import type { Summary } from "../runFolder/results.js";
import type { TrajectoryLine } from "../runFolder/trajectory.js";
import type { ReplayTiming } from "./replayAgent.js";
import { shownNodeStatus } from "../reports/viewer/nodes.js";
import { screenDifference } from "./screenDiff.js";
import { changeInWords, inWords } from "./words.js";

/**
 * What can differ at a step: the step is `missing` from the replay or `extra` in it, its `action`
 * (tool and arguments), whether it succeeded (`ok`), its `error`, its `result`, the evaluator
 * graph's state after it (`evaluation`), whether it ended the episode (`end`), or the `screen`
 * before it.
 */
export type DifferenceKind = "missing" | "extra" | "action" | "ok" | "error" | "result" | "evaluation" | "end" | "screen";

/** One thing that differs at a step, in words and as the two values. */
export interface StepDifference {
  kind: DifferenceKind;
  detail: string;
  /** The environment whose screen differs (`screen`). */
  env?: string;
  /** The fraction of the screen's pixels that differ (`screen`). */
  fraction?: number;
  original?: unknown;
  replay?: unknown;
}

/** A step of a task and what differs at it. */
export interface StepComparison {
  step: number;
  tool: string;
  differences: StepDifference[];
}

/** One side of a task's comparison: the attempt compared and its outcome. */
export interface ComparedAttempt {
  attempt: number;
  score: number;
  state: string;
  steps: number;
  /** The attempt's folder, relative to its run folder. */
  dir: string;
}

/** A task of a replay beside its recorded original (an entry of replay.json's `per_task`). */
export interface TaskComparison {
  /** `tool/id`. */
  task: string;
  original: ComparedAttempt;
  replay: ComparedAttempt | null;
  /** Whether the replay reached the same score and state. */
  outcome: "same" | "different";
  /** What differs of the outcome, e.g. "score 1 → 0". */
  outcome_differences: string[];
  /** How the recorded waits were kept. */
  waits: ReplayTiming;
  /** The task's file changed between the run and its replay. */
  task_changed: boolean;
  /** The first step where anything differs; null when none does. */
  first_divergence: StepComparison | null;
  /** Every step where something differs, in order. */
  diverging_steps: StepComparison[];
}

/** Options of the comparison. */
export interface CompareOptions {
  /** A screen differs when more than this fraction of its pixels differ. @default 0.01 */
  screenThreshold?: number;
}

/** The default of {@link CompareOptions.screenThreshold}: 1% of the pixels. */
export const DEFAULT_SCREEN_THRESHOLD = 0.01;

/** A recorded attempt as compared: its summary, its trajectory and its folder. */
export interface AttemptRecordOnDisk {
  attempt: number;
  summary: Summary;
  trajectory: TrajectoryLine[];
  /** Absolute folder of the attempt. */
  dir: string;
  /** The attempt's folder relative to its run folder. */
  relDir: string;
}

/** Fields a machine chooses anew each time (a process id): not compared. */
const VOLATILE = new Set(["pid"]);

/**
 * JSON with sorted keys and without the volatile fields, to compare two values; `dir`, the
 * attempt's own folder (where a step's local files go), is written as `<attempt>` in strings.
 */
function canonical(v: unknown, dir?: string): string {
  const norm = (x: unknown): unknown => {
    if (typeof x === "string" && dir) return x.split(dir).join("<attempt>");
    if (Array.isArray(x)) return x.map(norm);
    if (x && typeof x === "object") {
      return Object.fromEntries(
        Object.keys(x)
          .filter((k) => !VOLATILE.has(k))
          .sort()
          .map((k) => [k, norm((x as Record<string, unknown>)[k])]),
      );
    }
    return x;
  };
  return JSON.stringify(norm(v)) ?? "undefined";
}

const short = (v: unknown, max = 160) => {
  const s = typeof v === "string" ? v : (JSON.stringify(v) ?? "nothing");
  return s.length > max ? `${s.slice(0, max)}…` : s;
};
const errorText = (e: TrajectoryLine["error"]) => (e ? `${e.type ? `${e.type}: ` : ""}${e.message ?? ""}` : "");
const clip = (v: unknown) => clipStrings(v, 2_000);

/** The evaluation after a step in words: each node that differs, named as the viewer names it, and whether the goal was reached. */
function evaluationChange(o: TrajectoryLine, r: TrajectoryLine, last: { original: boolean; replay: boolean }): string {
  const [on, rn] = [o.evaluation?.nodes ?? {}, r.evaluation?.nodes ?? {}];
  const nodes = [...new Set([...Object.keys(on), ...Object.keys(rn)])]
    .filter((id) => on[id] !== rn[id])
    .map((id) => {
      const name = (s: string | undefined, final: boolean) => (s === undefined ? "absent" : shownNodeStatus(s, final));
      return `node ${id} ${name(on[id], last.original)} → ${name(rn[id], last.replay)}`;
    });
  const goal = (e: TrajectoryLine["evaluation"]) => (e?.success ? "reached" : "not reached");
  if (goal(o.evaluation) !== goal(r.evaluation)) nodes.push(`goal ${goal(o.evaluation)} → ${goal(r.evaluation)}`);
  return nodes.join("; ");
}

/**
 * What differs between two recorded lines of the same step (each of an attempt in `dirs`), the
 * screens left out; `last` says which line holds its attempt's last evaluation (whose verdicts are final).
 */
function lineDifferences(
  o: TrajectoryLine,
  r: TrajectoryLine,
  dirs: { original: string; replay: string },
  last: { original: boolean; replay: boolean },
): StepDifference[] {
  const out: StepDifference[] = [];
  const same = (x: unknown, y: unknown) => canonical(x, dirs.original) === canonical(y, dirs.replay);
  if (o.tool !== r.tool || canonical(o.args) !== canonical(r.args)) {
    const what =
      o.tool === r.tool
        ? `${o.tool} with ${changeInWords(o.args, r.args, (x, y) => canonical(x) === canonical(y))}`
        : `${o.tool} (${inWords(o.args)}) → ${r.tool} (${inWords(r.args)})`;
    out.push({
      kind: "action",
      detail: `a different action: ${what}`,
      original: clip(o.args),
      replay: clip(r.args),
    });
  }
  if (o.ok !== r.ok) {
    const detail = o.ok
      ? `the action failed in the replay: ${errorText(r.error)}`
      : `the action succeeded in the replay; it failed in the original: ${errorText(o.error)}`;
    out.push({ kind: "ok", detail, original: clip(o.ok ? o.result : o.error), replay: clip(r.ok ? r.result : r.error) });
  } else if (!o.ok && canonical(errorText(o.error), dirs.original) !== canonical(errorText(r.error), dirs.replay)) {
    out.push({
      kind: "error",
      detail: `another error: ${short(errorText(o.error))} → ${short(errorText(r.error))}`,
      original: clip(o.error),
      replay: clip(r.error),
    });
  } else if (o.ok && canonical(o.result, dirs.original) !== canonical(r.result, dirs.replay)) {
    out.push({ kind: "result", detail: `another result: ${changeInWords(o.result, r.result, same)}`, original: clip(o.result), replay: clip(r.result) });
  }
  const oe = { nodes: o.evaluation?.nodes ?? {}, success: o.evaluation?.success ?? false };
  const re = { nodes: r.evaluation?.nodes ?? {}, success: r.evaluation?.success ?? false };
  if (canonical(oe) !== canonical(re))
    out.push({ kind: "evaluation", detail: `the evaluation after the step: ${evaluationChange(o, r, last)}`, original: oe, replay: re });
  if ((o.reason ?? null) !== (r.reason ?? null)) {
    out.push({
      kind: "end",
      detail: `the episode's end after the step: ${o.reason ?? "went on"} → ${r.reason ?? "went on"}`,
      original: o.reason,
      replay: r.reason,
    });
  }
  return out;
}

/** The screens before a step that differ beyond the threshold (both runs must have saved them). */
async function screenDifferences(o: AttemptRecordOnDisk, ol: TrajectoryLine, r: AttemptRecordOnDisk, rl: TrajectoryLine, threshold: number) {
  const out: StepDifference[] = [];
  for (const [env, file] of Object.entries(ol.screenshots ?? {})) {
    const other = rl.screenshots?.[env];
    if (!other || !existsSync(join(o.dir, file)) || !existsSync(join(r.dir, other))) continue;
    const d = await screenDifference(join(o.dir, file), join(r.dir, other));
    if (d.fraction <= threshold) continue;
    const what = d.sizes ? `its size differs (${d.sizes.original} → ${d.sizes.replay})` : `${(d.fraction * 100).toFixed(2)}% of its pixels differ`;
    out.push({ kind: "screen", env, fraction: d.fraction, detail: `the screen of ${env} before the step: ${what}`, original: file, replay: other });
  }
  return out;
}

const stepsOf = (lines: readonly TrajectoryLine[]) => new Map(lines.filter((l) => typeof l.step === "number").map((l) => [l.step!, l]));

/** Every step of the two attempts with what differs at it, the steps that agree left out. */
async function divergingSteps(o: AttemptRecordOnDisk, r: AttemptRecordOnDisk, threshold: number): Promise<StepComparison[]> {
  const os = stepsOf(o.trajectory);
  const rs = stepsOf(r.trajectory);
  const numbers = [...new Set([...os.keys(), ...rs.keys()])].sort((a, b) => a - b);
  const out: StepComparison[] = [];
  const lastO = o.trajectory.findLast((l) => l.evaluation?.nodes);
  const lastR = r.trajectory.findLast((l) => l.evaluation?.nodes);
  for (const step of numbers) {
    const ol = os.get(step);
    const rl = rs.get(step);
    let differences: StepDifference[];
    if (!rl)
      differences = [
        { kind: "missing", detail: `the replay ended before this step (${r.summary.results.state}, ${r.summary.results.end_reason ?? "no end reason"})` },
      ];
    else if (!ol)
      differences = [
        { kind: "extra", detail: `the original ended before this step (${o.summary.results.state}, ${o.summary.results.end_reason ?? "no end reason"})` },
      ];
    else {
      const last = { original: ol === lastO, replay: rl === lastR };
      differences = [...lineDifferences(ol, rl, { original: o.dir, replay: r.dir }, last), ...(await screenDifferences(o, ol, r, rl, threshold))];
    }
    if (differences.length > 0) out.push({ step, tool: (ol ?? rl)!.tool ?? "", differences });
  }
  return out;
}

function compared(a: AttemptRecordOnDisk): ComparedAttempt {
  const r = a.summary.results;
  return { attempt: a.attempt, score: r.score, state: r.state, steps: r.steps, dir: a.relDir };
}

/** A task's replay beside its original: the outcome and every step where they differ. */
export async function compareTask(
  task: string,
  original: AttemptRecordOnDisk,
  replay: AttemptRecordOnDisk | undefined,
  meta: { waits: ReplayTiming; changed: boolean },
  opts: CompareOptions = {},
): Promise<TaskComparison> {
  const base = { task, original: compared(original), waits: meta.waits, task_changed: meta.changed };
  if (!replay) {
    return {
      ...base,
      replay: null,
      outcome: "different",
      outcome_differences: ["the replay has no finished attempt"],
      first_divergence: null,
      diverging_steps: [],
    };
  }
  const o = original.summary.results;
  const r = replay.summary.results;
  const outcome: string[] = [];
  if (o.score !== r.score) outcome.push(`score ${o.score} → ${r.score}`);
  if (o.state !== r.state) outcome.push(`state ${o.state} → ${r.state}`);
  const steps = await divergingSteps(original, replay, opts.screenThreshold ?? DEFAULT_SCREEN_THRESHOLD);
  return {
    ...base,
    replay: compared(replay),
    outcome: outcome.length > 0 ? "different" : "same",
    outcome_differences: outcome,
    first_divergence: steps[0] ?? null,
    diverging_steps: steps,
  };
}

/** replay.json: a replay beside the run it replays, task by task. */
export interface ReplayReport {
  run_id: string;
  replay_of: { run_id: string; run_dir: string };
  created_at: string;
  /** A screen differs when more than this fraction of its pixels differ. */
  screen_threshold: number;
  tasks: number;
  /** Tasks whose replay reached the same score and state. */
  same_outcome: number;
  /** Tasks where something differs at some step (outcome alike or not). */
  diverged: number;
  warnings: string[];
  per_task: TaskComparison[];
}
