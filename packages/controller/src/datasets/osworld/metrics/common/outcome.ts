/**
 * Small helpers for the metrics' reasons and arguments (a metric's verdict is built with
 * evaluators/verdict.ts's `pass` and `fail`).
 */

/** A value shown in a reason: strings quoted, others as JSON, cut to `max` characters. */
export function show(value: unknown, max = 120): string {
  let text: string;
  try {
    text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A getter's value as a local file path: a non-empty string, else undefined (OSWorld's `if not path: return 0`). */
export function filePath(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** The message of something thrown. */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** A `rule` getter's rules object; throws when the task wrote something else (the metric cannot run). */
export function rulesObject(metric: string, rules: unknown): Record<string, unknown> {
  if (typeof rules !== "object" || rules === null || Array.isArray(rules)) throw new Error(`${metric}: expected a rules object, got ${show(rules)}`);
  return rules as Record<string, unknown>;
}

/** `rules[key]` of a rules object, throwing (as Python's KeyError does) when it is absent. */
export function ruleKey(metric: string, rules: unknown, key: string): unknown {
  const r = rulesObject(metric, rules);
  if (!Object.hasOwn(r, key)) throw new Error(`${metric}: the rules have no "${key}"`);
  return r[key];
}
