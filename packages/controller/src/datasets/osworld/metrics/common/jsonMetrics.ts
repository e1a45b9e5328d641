import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { defineMetric, type MetricResult } from "../../metric.js";
import { matchValueToRule, ruleUnsupported, type ValueRule } from "./matchRule.js";
import { fail } from "../../../../evaluators/verdict.js";
import { errorText, filePath, rulesObject, show } from "./outcome.js";
import { pyContains, pyEqual, pySorted, pyTypeName } from "../../../pycompat/pyValues.js";
import { pyStrip, readPyText } from "../../../pycompat/pyStr.js";
import { plainJson, pyJsonParse } from "../../../pycompat/pyJson.js";

/**
 * The JSON metrics: general.py's `check_json` and `check_direct_json_object`, vscode.py's
 * `compare_config`.
 */

/** Python's `value[k]` on a parsed JSON/YAML value: the item, or why Python raises (`KeyError`, `TypeError`, `IndexError`). */
function subscript(value: unknown, k: unknown, yaml: boolean): { ok: true; value: unknown } | { ok: false; error: "key" | "type" | "index" } {
  if (Array.isArray(value) || typeof value === "string") {
    if (typeof k !== "number" || !Number.isInteger(k)) return { ok: false, error: "type" };
    const items = typeof value === "string" ? Array.from(value) : value;
    const i = k < 0 ? items.length + k : k;
    return i >= 0 && i < items.length ? { ok: true, value: items[i] } : { ok: false, error: "index" };
  }
  if (typeof value === "object" && value !== null && !(value instanceof Date)) {
    const key = typeof k === "string" ? k : yaml && typeof k === "number" ? String(k) : undefined;
    if (key === undefined || !Object.hasOwn(value, key)) return { ok: false, error: "key" };
    return { ok: true, value: (value as Record<string, unknown>)[key] };
  }
  return { ok: false, error: "type" };
}

/** A check_json rule: the key path, the method and its reference. */
type JsonRule = ValueRule & { key: unknown[] };

function jsonRules(rules: Record<string, unknown>, name: "expect" | "unexpect"): JsonRule[] {
  const list = rules[name] ?? [];
  if (!Array.isArray(list)) throw new Error(`check_json: rules.${name} must be a list, got ${show(list)}`);
  for (const r of list) {
    if (typeof r !== "object" || r === null || !Array.isArray(r.key) || typeof r.method !== "string") {
      throw new Error(`check_json: a rule needs a "key" list and a "method": ${show(r)}`);
    }
    if (ruleUnsupported(r)) throw new Error(`check_json: rule method ${r.method} is not supported`);
  }
  return list as JsonRule[];
}

/** Loads the file as check_json does, or gives the failing result. */
async function loadData(path: string, isYaml: boolean): Promise<{ data: unknown } | MetricResult> {
  let text: string;
  try {
    text = await readPyText(path);
  } catch (e) {
    return fail(`cannot read ${path}: ${errorText(e)}`);
  }
  try {
    const data: unknown = isYaml ? parseYaml(text, { version: "1.1", uniqueKeys: false }) : plainJson(pyJsonParse(text));
    if (isYaml && (data === null || data === undefined)) return fail(`the YAML file ${path} is empty`);
    return { data };
  } catch (e) {
    return fail(`${path} is not valid ${isYaml ? "YAML" : "JSON"}: ${errorText(e)}`);
  }
}

/** One rule against the data: undefined when it holds as check_json wants, else why not. */
function ruleFailure(data: unknown, r: JsonRule, isYaml: boolean, unexpected: boolean): string | undefined {
  let value = data;
  for (const k of r.key) {
    const s = subscript(value, k, isYaml);
    if (s.ok) value = s.value;
    else if (s.error === "index" || !unexpected) return `key ${show(r.key)}: ${s.error === "index" ? "index out of range" : `no ${show(k)}`}`;
    else {
      value = null;
      break;
    }
  }
  try {
    const matched = matchValueToRule(value, r);
    if (matched === unexpected) return `key ${show(r.key)} = ${show(value)} ${unexpected ? "matches" : "does not match"} ${r.method} ${show(r.ref)}`;
  } catch (e) {
    return `key ${show(r.key)} = ${show(value)}: ${errorText(e)}`;
  }
  return undefined;
}

/** general.py's `check_json`: the JSON (or YAML) file's values at the given keys match the `expect` rules and none of the `unexpect` ones. */
export const checkJson = defineMetric({
  name: "check_json",
  options: z.strictObject({ is_yaml: z.boolean().default(false) }),
  async run(result, rules, o) {
    const r = rulesObject("check_json", rules);
    const [expect, unexpect] = [jsonRules(r, "expect"), jsonRules(r, "unexpect")];
    const path = filePath(result);
    if (!path) return fail("the result file is missing");
    const loaded = await loadData(path, o.is_yaml);
    if (typeof loaded === "number" || !("data" in loaded)) return loaded;
    for (const [list, unexpected] of [
      [expect, false],
      [unexpect, true],
    ] as const) {
      for (const rule of list) {
        const why = ruleFailure(loaded.data, rule, o.is_yaml, unexpected);
        if (why) return fail(why);
      }
    }
    return 1;
  },
});

/** `result.get(key)` as Python runs it on the result (a dict); throws for another type. */
function getKey(result: unknown, key: string): unknown {
  if (typeof result !== "object" || result === null || Array.isArray(result)) throw new TypeError(`'${pyTypeName(result)}' object has no attribute 'get'`);
  return Object.hasOwn(result, key) ? (result as Record<string, unknown>)[key] : null;
}

/** check_direct_json_object's comparison once the result is an object: undefined when it passes, else why not. */
function directJsonFailure(result: unknown, rules: Record<string, unknown>): string | undefined {
  const expected = rules.expected;
  if (typeof expected !== "object" || expected === null || Array.isArray(expected)) return `the rules' "expected" is not an object: ${show(expected)}`;
  const exp = expected as Record<string, unknown>;
  for (const [key, value] of Object.entries(exp))
    if (pyEqual(value, "__EVALUATION_FAILED__")) return `the expected value of ${show(key)} could not be computed`;
  for (const key of Object.keys(exp)) {
    const want = exp[key];
    const got = getKey(result, key);
    if (!rules.expect_in_result) {
      const [w, g] = exp.ignore_list_order ? [pySorted(want), pySorted(got)] : [want, got];
      if (!pyEqual(w, g)) return `${show(key)}: expected ${show(want)}, got ${show(got)}`;
    } else if (Array.isArray(want)) {
      const hit = want.some((v) => (Array.isArray(got) && pyContains(got, v)) || (typeof got === "string" && pyEqual(v, got)));
      if (!hit) return `${show(key)}: ${show(got)} holds none of ${show(want)}`;
    } else if (typeof want === "string") {
      if (!pyContains(got, want)) return `${show(key)}: ${show(want)} is not in ${show(got)}`;
    } else return `${show(key)}: expected values must be strings or lists with expect_in_result, got ${show(want)}`;
  }
  return undefined;
}

/**
 * general.py's `check_direct_json_object`: the result (an object, or a command's output parsed as
 * JSON with `'` read as `"`) has the `expected` values (`rules.expected`); with
 * `rules.expect_in_result`, a string must be contained in the result's value and a list must share
 * an item with it (or equal a string value).
 */
export const checkDirectJsonObject = defineMetric({
  name: "check_direct_json_object",
  options: z.strictObject({}),
  async run(result, rules) {
    let value = result;
    if (typeof value === "string") {
      try {
        value = plainJson(pyJsonParse(pyStrip(value).replaceAll("'", '"')));
      } catch (e) {
        return fail(`the result is not JSON: ${errorText(e)}: ${show(result)}`);
      }
    }
    if (value === null || value === undefined) return fail("no result");
    if (typeof rules !== "object" || rules === null || Array.isArray(rules)) return fail(`no rules object: ${show(rules)}`);
    try {
      const why = directJsonFailure(value, rules as Record<string, unknown>);
      return why === undefined ? 1 : fail(why);
    } catch (e) {
      return fail(`cannot compare ${show(value)}: ${errorText(e)}`);
    }
  },
});

/** vscode.py's `_is_subset`: every key of `expected` (recursively, for objects) is in `actual` with an equal value. */
function isSubset(expected: unknown, actual: unknown): boolean {
  if (typeof expected === "object" && expected !== null && !Array.isArray(expected)) {
    if (typeof actual !== "object" || actual === null || Array.isArray(actual)) return false;
    return Object.entries(expected).every(([k, v]) => Object.hasOwn(actual, k) && isSubset(v, (actual as Record<string, unknown>)[k]));
  }
  return pyEqual(expected, actual);
}

/**
 * vscode.py's `compare_config`: the file holds `rules.expected`. With `containment_ok` (the
 * default) both parse as JSON and the expected object is a subset of the file's, or (when either is
 * not JSON) the file contains the expected text, stripped; otherwise the texts or their JSON are equal.
 */
export const compareConfig = defineMetric({
  name: "compare_config",
  // compare_config(actual, rules, **options): other keys are ignored.
  options: z.object({ containment_ok: z.boolean().default(true) }),
  async run(result, rules, o) {
    const path = filePath(result);
    if (!path) return fail("the result file is missing");
    const expectedText = rulesObject("compare_config", rules).expected;
    if (!expectedText) return fail('the rules\' "expected" is empty');
    if (typeof expectedText !== "string") throw new Error(`compare_config: rules.expected must be a string, got ${show(expectedText)}`);
    let actualText: string;
    try {
      actualText = await readPyText(path);
    } catch (e) {
      return fail(`cannot read ${path}: ${errorText(e)}`);
    }
    let parsed: [unknown, unknown] | undefined;
    try {
      parsed = [plainJson(pyJsonParse(actualText)), plainJson(pyJsonParse(expectedText))];
    } catch {
      parsed = undefined;
    }
    if (o.containment_ok) {
      if (parsed) return isSubset(parsed[1], parsed[0]) ? 1 : fail(`${path} does not hold ${show(expectedText)} (as JSON)`);
      return actualText.includes(pyStrip(expectedText)) ? 1 : fail(`${path} does not contain ${show(pyStrip(expectedText))}`);
    }
    if (actualText === expectedText || (parsed && pyEqual(parsed[0], parsed[1]))) return 1;
    return fail(`${path} is not ${show(expectedText)}: ${show(actualText)}`);
  },
});
