import { z } from "zod";
import type { Agent } from "../agents/types.js";
import { type AccessibilityMode, DEFAULT_SETTLE, type ScreenObservationOptions } from "../benchmark/screenObservation.js";
import type { DatasetTask } from "../datasets/format.js";
import type { SettleOptions } from "../env/index.js";

/**
 * A run's settings: what every attempt of every task of a run uses. One type from the flags of
 * `pincer run` to `runTasks`, into a queue's job (a job carries it whole, with the agent it names),
 * into each attempt. Adding a setting touches this file (the type, its default and its bounds in
 * {@link runSettingsSchema}), the flag that sets it, and the code that uses it.
 */
export interface RunSettings {
  /** Attempts per task (per rollout); only infrastructure errors are retried. @default 1 */
  attempts: number;
  /**
   * Independent rollouts of every task, each its own unit of work on a clean machine, for pass@k and
   * best-of-N; with more than one, each rollout's attempts go to `<tool>/<id>/rollout-<r>/`. @default 1
   */
  rollouts: number;
  /** A number, or "auto": 2 × action_number + 5 (50 when the task has none), at most 200. @default "auto" */
  maxSteps: number | "auto";
  /** Wall-clock limit of the agent's part of a task (its model's time included), in ms. @default 600_000 */
  taskTimeoutMs: number;
  /** Save a screenshot per environment before each turn. @default true */
  screenshots: boolean;
  /**
   * Before each turn's screenshots, wait for each screen to stop changing (`env.screen.waitForSettle`)
   * with these options, or not at all (false). "auto": DEFAULT_SETTLE for agents that look at
   * screenshots, no wait for those that do not (a scripted agent). @default "auto"
   */
  settle: SettleOptions | false | "auto";
  /** Send each environment's accessibility tree with each observation: as text, or also as numbered boxes on the screenshots. @default undefined: not sent */
  accessibility?: AccessibilityMode;
  /** Record each machine's screen while the agent works (ffmpeg on the machine), into each attempt's `recording-<env>.mp4`. @default false */
  record: boolean;
}

/** The defaults of {@link RunSettings}: the one place they are written. */
export const DEFAULT_RUN_SETTINGS: Readonly<RunSettings> = {
  attempts: 1,
  rollouts: 1,
  maxSteps: "auto",
  taskTimeoutMs: 600_000,
  screenshots: true,
  settle: "auto",
  record: false,
};

/** The run settings given, the defaults for the rest; an `undefined` value counts as not given. */
export function runSettings(given: Partial<RunSettings> = {}): RunSettings {
  const set = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as Partial<RunSettings>;
  return { ...DEFAULT_RUN_SETTINGS, ...set };
}

/** The run settings among `options` (e.g. RunnerOptions), with the defaults for those not given. */
export function runSettingsOf(options: Partial<RunSettings>): RunSettings {
  // The schema's fields are the settings' names: a setting added there is picked here.
  const names = Object.keys(runSettingsSchema.shape) as (keyof RunSettings)[];
  return runSettings(Object.fromEntries(names.map((n) => [n, options[n]])) as Partial<RunSettings>);
}

/** The documented max-steps rule: the task's step limit under the run's `maxSteps`, and the rule as summary.json states it. */
export function maxStepsFor(task: Pick<DatasetTask, "actionNumber">, rule: number | "auto"): { maxSteps: number; rule: string } {
  if (rule !== "auto") return { maxSteps: rule, rule: `fixed ${rule}` };
  if (task.actionNumber === undefined) return { maxSteps: 50, rule: "auto: no action_number, 50" };
  const maxSteps = Math.min(200, 2 * task.actionNumber + 5);
  return { maxSteps, rule: `auto: 2 × action_number (${task.actionNumber}) + 5` };
}

/**
 * What each environment shows before each turn: the screen observation when the agent looks or
 * screenshots are saved (settled for agents that look, under "auto"), else nothing.
 */
export function observationFor(
  settings: Pick<RunSettings, "screenshots" | "settle" | "accessibility">,
  agent: Pick<Agent, "wantsScreenshots">,
): ScreenObservationOptions | false {
  if (!settings.screenshots && !agent.wantsScreenshots) return false;
  const settle = settings.settle === "auto" ? agent.wantsScreenshots && DEFAULT_SETTLE : settings.settle;
  return { settle, ...(settings.accessibility ? { accessibility: settings.accessibility } : {}) };
}

const settleSchema = z.strictObject({
  region: z.strictObject({ x: z.number().int(), y: z.number().int(), width: z.number().int().positive(), height: z.number().int().positive() }).optional(),
  quietMs: z.number().int().min(0).max(60_000).optional(),
  maxMs: z.number().int().min(0).max(600_000).optional(),
  initialQuietMs: z.number().int().min(0).max(60_000).optional(),
  intervalMs: z.number().int().min(1).max(10_000).optional(),
  sinceLastWait: z.boolean().optional(),
});

/**
 * {@link RunSettings} as a queue's job carries them, with the bounds a worker accepts (unknown fields
 * are refused). Kept beside the type: a setting added there is added here.
 */
export const runSettingsSchema = z.strictObject({
  attempts: z.number().int().min(1).max(100),
  // A job of a coordinator that names none: one rollout.
  rollouts: z.number().int().min(1).max(1_000).default(1),
  maxSteps: z.union([z.number().int().min(1).max(100_000), z.literal("auto")]),
  taskTimeoutMs: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 3600 * 1000),
  screenshots: z.boolean(),
  settle: z.union([settleSchema, z.literal(false), z.literal("auto")]),
  accessibility: z.enum(["text", "marks"]).optional(),
  record: z.boolean(),
}) satisfies z.ZodType<RunSettings>;

/** A camelCase name in snake_case, as the run folder's files spell their fields. */
type SnakeCase<S extends string> = S extends `${infer H}${infer T}` ? `${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}${SnakeCase<T>}` : S;

/** {@link RunSettings} as manifest.json records them: snake_case names, a setting not given as null. */
export type RunSettingsRecord = {
  -readonly [K in keyof RunSettings as SnakeCase<K>]-?: Exclude<RunSettings[K], undefined> | (undefined extends RunSettings[K] ? null : never);
};

/** The settings as manifest.json records them (every setting, by the schema's names: a setting added there is recorded). */
export function runSettingsRecord(settings: RunSettings): RunSettingsRecord {
  const names = Object.keys(runSettingsSchema.shape) as (keyof RunSettings)[];
  const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return Object.fromEntries(names.map((n) => [snake(n), settings[n] ?? null])) as RunSettingsRecord;
}
