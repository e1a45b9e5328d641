import { z } from "zod";
import { plainJson } from "../pycompat/pyJson.js";
import type { OsworldContext } from "./context.js";

/**
 * What a metric returns: a score in [0, 1] (OSWorld's metrics return floats; 1 is a pass), or the
 * score with the reason a researcher reads in the report ("cell B3: expected 4, got 5").
 */
export type MetricResult = number | { score: number; reason: string };

/**
 * One of OSWorld's metrics (`desktop_env/evaluators/metrics/`), ported with its semantics.
 *
 * OSWorld calls `metric(result, expected, **options)` when the task has an expected getter and
 * `metric(result, **options)` when it has none; here `expected` is then `undefined`. `result` and
 * `expected` are what the getters returned: a local file path (or `null` when the file was not on
 * the machine), a list of them, a command's output, or a `rule` getter's `rules` object as written.
 */
export interface OsworldMetric<O extends z.ZodType = z.ZodType> {
  /** The name in task files (`evaluator.func`). */
  name: string;
  /**
   * The options it takes (`evaluator.options`), with OSWorld's defaults. OSWorld calls the metric
   * with `**options`: a function with a fixed signature raises TypeError on a key it does not name,
   * so its schema is a `z.strictObject`; one that takes `**options` ignores the keys it does not
   * read, so its schema is a `z.object`, which drops them (see {@link ignoredOptionKeys}).
   */
  options: O;
  /**
   * Parts of these options Pincer does not implement (a `compare_table` rule type, say), each named
   * as `<metric>.<what>`; a task that uses one is counted as needing it, never run with it skipped.
   */
  unsupported?(options: z.infer<O>): string[];
  /**
   * The metric tells a whole float from an int as Python does (`str(5.0)` is "5.0"): the values it
   * is given keep the task's `5.0` as a `PyFloat` (datasets/pycompat/pyJson.ts). Other metrics get plain numbers.
   */
  pythonFloats?: boolean;
  /**
   * `machine` is the attempt's context, for the few metrics that run something on the machine
   * (check_python_file_by_test_suite runs the task's test file there); absent where there is no
   * machine (recorded cases), where such a metric fails to run.
   */
  run(result: unknown, expected: unknown, options: z.infer<O>, machine?: OsworldContext): Promise<MetricResult>;
}

/** Defines a metric; helps TypeScript infer its options' type from the schema. */
export function defineMetric<O extends z.ZodType>(m: OsworldMetric<O>): OsworldMetric<O> {
  return m;
}

/** A metric's result as a score and a reason. */
export function scoreOf(r: MetricResult): { score: number; reason: string } {
  return typeof r === "number" ? { score: r, reason: r >= 1 ? "passed" : `score ${r}` } : r;
}

/**
 * The keys of `raw` options that the metric ignores: OSWorld's function takes `**options` and never
 * reads them (a misspelt `examine_aligment` keeps the default). None for a strict schema, which
 * rejects such keys instead.
 */
export function ignoredOptionKeys(metric: OsworldMetric, raw: unknown): string[] {
  const schema = metric.options;
  if (!(schema instanceof z.ZodObject) || schema.def.catchall instanceof z.ZodNever) return [];
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return [];
  return Object.keys(raw).filter((k) => !Object.hasOwn(schema.shape, k));
}

/**
 * Runs a metric as OSWorld's evaluator calls it, `metric(result, expected, **options)`: the options
 * parsed with their defaults (keys the metric ignores dropped), the getters' values given as the
 * metric takes them (see {@link OsworldMetric.pythonFloats}); the result as a score and a reason.
 */
export async function runMetric(
  metric: OsworldMetric,
  result: unknown,
  expected: unknown,
  options: unknown,
  machine?: OsworldContext,
): Promise<{ score: number; reason: string }> {
  const values = <T>(v: T): T => (metric.pythonFloats ? v : plainJson(v));
  return scoreOf(await metric.run(values(result), values(expected), metric.options.parse(plainJson(options ?? {})), machine));
}
