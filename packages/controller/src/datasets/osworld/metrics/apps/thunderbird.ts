import { z } from "zod";
import { defineMetric, type MetricResult, type OsworldMetric } from "../../metric.js";
import { fail } from "../../../../evaluators/verdict.js";
import { filePath, rulesObject, show } from "../common/outcome.js";
import { readText } from "./common.js";
import { pyLines } from "../../../pycompat/pyStr.js";
import { pyEqual } from "../../../pycompat/pyValues.js";
import { plainJson, pyJsonParse } from "../../../pycompat/pyJson.js";
import { matchValueToRule } from "./matchRule.js";

/** OSWorld's `_pref_pattern`: `user_pref("key", value);` on a stripped line. */
const PREF = /^user_pref\("((?:[^"]|\\")+)", (.+)\);$/;

/**
 * `check_thunderbird_prefs`: in prefs.js, every key of `rules.expect` is set (its last setting
 * wins) to a value matching its `{method, ref}`, and no key of `rules.unexpect` (that is not also
 * in `expect`) is ever set to a matching value. Values are read as JSON, as OSWorld does.
 */
const checkThunderbirdPrefs = defineMetric({
  name: "check_thunderbird_prefs",
  options: z.strictObject({}),
  async run(result, expected): Promise<MetricResult> {
    const rule = rulesObject("check_thunderbird_prefs", expected);
    const expect = (rule.expect ?? {}) as Record<string, unknown>;
    const unexpect = (rule.unexpect ?? {}) as Record<string, unknown>;
    const path = filePath(result);
    const text = path === undefined ? null : await readText(path);
    if (text === null) return fail("no prefs.js file");
    const seen = new Map<string, { ok: boolean; value: unknown }>();
    const violations: string[] = [];
    for (const line of pyLines(text)) {
      const m = PREF.exec(line.trim());
      if (!m) continue;
      const key = m[1]!;
      let value: unknown;
      try {
        // OSWorld parses every pref's value, wanted or not: one that is not JSON fails the metric.
        value = plainJson(pyJsonParse(m[2]!));
      } catch {
        return fail(`the value of ${key} is not JSON (OSWorld raises): ${show(m[2])}`);
      }
      if (!Object.hasOwn(expect, key) && !Object.hasOwn(unexpect, key)) continue;
      try {
        if (Object.hasOwn(expect, key)) seen.set(key, { ok: matchValueToRule(value, expect[key]), value });
        else if (matchValueToRule(value, unexpect[key])) violations.push(`${key} is ${show(value)}, which it must not be (${show(unexpect[key])})`);
      } catch (err) {
        if (!(err instanceof TypeError)) throw err;
        return fail(`${key}: ${err.message} (OSWorld raises)`);
      }
    }
    const reasons = Object.keys(expect).flatMap((key) => {
      const s = seen.get(key);
      if (s === undefined) return [`${key} is not set`];
      return s.ok ? [] : [`${key} is ${show(s.value)}, expected ${show(expect[key])}`];
    });
    reasons.push(...violations);
    return reasons.length === 0 ? 1 : fail(reasons.join("; "));
  },
});

/** `_value_processor`: `\"` → `"`, then `\\` → `\`. */
function unescapeValue(v: string): string {
  return v.replaceAll('\\"', '"').replaceAll("\\\\", "\\");
}

/** OSWorld's `_condition_pattern` (findall): each `AND|OR (field,op,value)` term, or `ALL`; `\w` and `\b` Unicode-aware as in Python. */
const CONDITION =
  /(?<![\p{L}\p{N}_])(?:AND|OR) \((?:[\p{L}\p{N}_ ]+),(?:[\p{L}\p{N}_ ']+),(?:"(?:(?:[^"]|")+)"|(?:[^)]+))\)|(?<![\p{L}\p{N}_])ALL(?![\p{L}\p{N}_])/gu;

type Filter = Record<string, string | string[]>;

/** The filters of a msgFilterRules.dat, read as OSWorld does (a filter counts once its `condition=` line is read). */
function parseFilters(text: string): Filter[] | string {
  const filters: Filter[] = [];
  let current: Filter | null = null;
  const fields: [string, string, number][] = [
    ["enabled=", "enabled", 9],
    ["type=", "type", 6],
    ["action=", "action", 8],
    ["actionValue=", "actionValue", 13],
  ];
  for (const l of pyLines(text)) {
    // l[n:-2]: the value between `key="` and `"\n` (Python slices, so a last line without `\n` loses a character).
    const value = (n: number) => unescapeValue(l.slice(n, Math.max(n, l.length - 2)));
    if (l.startsWith("name=")) {
      current = { name: value(6) };
      continue;
    }
    const field = fields.find(([prefix]) => l.startsWith(prefix));
    if (!field && !l.startsWith("condition=")) continue;
    if (current === null) return `${show(l.trim())} comes before any name= line (OSWorld raises)`;
    if (field) {
      current[field[1]] = value(field[2]);
      continue;
    }
    current.condition = [...value(11).matchAll(CONDITION)].map((m) => m[0]);
    filters.push(current);
  }
  return filters;
}

/** OSWorld's `_match_record`: every key of the pattern is in the record with an equal value. */
function matchRecord(pattern: unknown, record: Filter): boolean {
  return Object.entries(pattern as Record<string, unknown>).every(([k, v]) => Object.hasOwn(record, k) && pyEqual(record[k], v));
}

/** `check_thunderbird_filter`: every pattern of `rules.expect` matches some filter, and no pattern of `rules.unexpect` matches any. */
const checkThunderbirdFilter = defineMetric({
  name: "check_thunderbird_filter",
  options: z.strictObject({}),
  async run(result, expected): Promise<MetricResult> {
    const rules = rulesObject("check_thunderbird_filter", expected);
    const expect = (rules.expect ?? []) as unknown[];
    const unexpect = (rules.unexpect ?? []) as unknown[];
    const path = filePath(result);
    const text = path === undefined ? null : await readText(path);
    if (text === null) return fail("no msgFilterRules.dat file");
    const filters = parseFilters(text);
    if (typeof filters === "string") return fail(filters);
    const reasons = [
      ...expect.filter((r) => !filters.some((f) => matchRecord(r, f))).map((r) => `no filter matches ${show(r, 200)}`),
      ...unexpect.filter((r) => filters.some((f) => matchRecord(r, f))).map((r) => `a filter matches ${show(r, 200)}`),
    ];
    return reasons.length === 0 ? 1 : fail(`${reasons.join("; ")} (${filters.length} filters)`);
  },
});

/** OSWorld's Thunderbird prefs and filter metrics (`thunderbird.py`). */
export const thunderbirdMetrics: OsworldMetric[] = [checkThunderbirdPrefs, checkThunderbirdFilter];
