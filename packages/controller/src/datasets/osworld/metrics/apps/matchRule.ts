import { matchValueToRule as pyMatch, type ValueRule } from "../common/matchRule.js";
import { show } from "../common/outcome.js";

/**
 * OSWorld's `_match_value_to_rule(value, {method, ref})` for the Thunderbird checks: the port in
 * common/matchRule.ts. Where Python raises (a regex on a non-string, an ordering across types) it
 * throws a TypeError, for the metric to score 0 with the reason; an unknown method throws
 * NotImplementedError, as OSWorld raises it (the task is wrong).
 */
export function matchValueToRule(value: unknown, rule: unknown): boolean {
  const { method } = (rule ?? {}) as { method?: unknown };
  if (typeof method !== "string") throw new Error(`rule without a method: ${show(rule)}`);
  return pyMatch(value, rule as ValueRule);
}
