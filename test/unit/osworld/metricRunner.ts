import { scoreOf, type OsworldMetric } from "../../../packages/controller/src/datasets/osworld/metric.js";

/**
 * Runs metrics of `list` by name as OSWorld's evaluator does: the options parsed with their
 * defaults, the result as a score and a reason.
 */
export function metricRunner(list: readonly OsworldMetric[]) {
  return async (name: string, result: unknown, expected: unknown, options: unknown = {}) => {
    const metric = list.find((m) => m.name === name);
    if (!metric) throw new Error(`no metric ${name}`);
    return scoreOf(await metric.run(result, expected, metric.options.parse(options)));
  };
}
