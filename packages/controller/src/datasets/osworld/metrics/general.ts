import { z } from "zod";
import { defineMetric, type MetricResult, type OsworldMetric } from "../metric.js";
import { parseCsvRecords } from "../../pycompat/csvRecords.js";
import { checkDirectJsonObject, checkJson, compareConfig } from "./common/jsonMetrics.js";
import { fail } from "../../../evaluators/verdict.js";
import { errorText, filePath, ruleKey, rulesObject, show } from "./common/outcome.js";
import { collapseBlanks, pyLines, pySplitlines, readPyText } from "../../pycompat/pyStr.js";
import { pyInt } from "../../pycompat/pyNumbers.js";
import { pyContains, pyEqual, pyStr } from "../../pycompat/pyValues.js";
import { pyRegex } from "../../pycompat/pyRegex.js";
import { fuzzRatio, sequenceRatio } from "../../pycompat/similarity.js";
import { PyFloat } from "../../pycompat/pyJson.js";

/**
 * OSWorld's general-purpose metrics (`metrics/general.py`) and VS Code's text ones
 * (`metrics/vscode.py`), ported with their semantics: Python's `==` and `in`, text read as Python
 * reads it (strict UTF-8, universal newlines), regexes with Python's meaning.
 */

const noOptions = z.strictObject({});

/** A rules object's list (`rules.get(key, [])`); throws when the task wrote something else. */
function ruleList(metric: string, rules: unknown, key: string): unknown[] {
  const v = rulesObject(metric, rules)[key] ?? [];
  if (!Array.isArray(v)) throw new Error(`${metric}: rules.${key} must be a list, got ${show(v)}`);
  return v;
}

/** A reason listing what is missing and what should not be there. */
function explain(missingLabel: string, missing: unknown[], foundLabel: string, found: unknown[]): string {
  const list = (items: unknown[]) => items.map((r) => show(r, 80)).join(", ");
  return [missing.length ? `${missingLabel} ${list(missing)}` : "", found.length ? `${foundLabel} ${list(found)}` : ""].filter(Boolean).join("; ");
}

/** Reads a result file as Python would, or gives the failing result. */
async function readResult(path: string, what = "result file"): Promise<string | MetricResult> {
  try {
    return await readPyText(path);
  } catch (e) {
    return fail(`cannot read the ${what} ${path}: ${errorText(e)}`);
  }
}

const checkIncludeExclude = defineMetric({
  name: "check_include_exclude",
  options: noOptions,
  async run(result, rules) {
    if (result === null || result === undefined) return fail("no result");
    const include = ruleList("check_include_exclude", rules, "include");
    const exclude = ruleList("check_include_exclude", rules, "exclude");
    try {
      const missing = include.filter((r) => !pyContains(result, r));
      const found = exclude.filter((r) => pyContains(result, r));
      if (!missing.length && !found.length) return 1;
      return fail(`${explain("missing", missing, "contains", found)} in ${show(result, 200)}`);
    } catch (e) {
      return fail(`cannot check ${show(result)}: ${errorText(e)}`);
    }
  },
});

const exactMatch = defineMetric({
  name: "exact_match",
  options: noOptions,
  async run(result, rules) {
    const expected = ruleKey("exact_match", rules, "expected");
    return pyEqual(result, expected) ? 1 : fail(`expected ${show(expected)}, got ${show(result)}`);
  },
});

const matchInList = defineMetric({
  name: "match_in_list",
  options: noOptions,
  async run(result, rules) {
    const expected = ruleKey("match_in_list", rules, "expected");
    try {
      return pyContains(expected, result) ? 1 : fail(`${show(result)} is not one of ${show(expected)}`);
    } catch (e) {
      return fail(`cannot look ${show(result)} up in ${show(expected)}: ${errorText(e)}`);
    }
  },
});

const isInList = defineMetric({
  name: "is_in_list",
  options: noOptions,
  async run(result, rules) {
    const expected = ruleKey("is_in_list", rules, "expected");
    try {
      return pyContains(result, expected) ? 1 : fail(`${show(expected)} is not in ${show(result)}`);
    } catch (e) {
      return fail(`cannot look ${show(expected)} up in ${show(result)}: ${errorText(e)}`);
    }
  },
});

const literalMatch = defineMetric({
  name: "literal_match",
  // literal_match(result, expected, **options): other keys are ignored.
  options: z.object({ type: z.enum(["str", "list"]).default("str"), ignore_case: z.boolean().default(false) }),
  // str(5.0) is "5.0".
  pythonFloats: true,
  async run(result, expected, o) {
    const norm = (v: unknown) => (o.ignore_case ? pyStr(v).toLowerCase() : pyStr(v));
    if (o.type === "str") return norm(result) === norm(expected) ? 1 : fail(`expected ${show(pyStr(expected))}, got ${show(pyStr(result))}`);
    if (!Array.isArray(result) || !Array.isArray(expected)) return fail(`expected two lists, got ${show(result)} and ${show(expected)}`);
    if (result.length !== expected.length) return fail(`expected ${expected.length} items, got ${result.length}: ${show(result)}`);
    const i = result.findIndex((r, k) => norm(r) !== norm(expected[k]));
    return i < 0 ? 1 : fail(`item ${i}: expected ${show(pyStr(expected[i]))}, got ${show(pyStr(result[i]))}`);
  },
});

/** A list element rapidfuzz can hash: not a list or an object (dict). */
const hashable = (v: unknown) => v === null || typeof v !== "object" || v instanceof PyFloat;

const fuzzyMatch = defineMetric({
  name: "fuzzy_match",
  options: noOptions,
  async run(result, rules) {
    const expected = ruleKey("fuzzy_match", rules, "expected");
    if (result === null || result === undefined || expected === null || expected === undefined) return fail("no result");
    // rapidfuzz reads a string or a list of hashable elements, the result first: anything else
    // raises TypeError (KeyError for a dict), the agent's fault in the result, the task's in `expected`.
    const seq = (v: unknown) => (typeof v === "string" || (Array.isArray(v) && v.every(hashable)) ? v : undefined);
    const [a, b] = [seq(result), seq(expected)];
    if (a === undefined) return fail(`cannot compare ${show(result)} with ${show(expected)}: rapidfuzz raises`);
    if (b === undefined) throw new Error(`fuzzy_match: rules.expected must be a string or a list of hashable values, got ${show(expected)}`);
    const score = fuzzRatio(a, b) / 100;
    return score >= 1 ? 1 : fail(`similarity ${score.toFixed(4)} between ${show(result)} and ${show(expected)}`, score);
  },
});

const diffTextFile = defineMetric({
  name: "diff_text_file",
  options: noOptions,
  async run(result, expected) {
    if (result === null || result === undefined) return fail("the result file is missing");
    const actual = await readResult(String(result));
    if (typeof actual !== "string") return actual;
    const gold = await readResult(String(expected), "expected file");
    if (typeof gold !== "string") return gold;
    const score = sequenceRatio(pySplitlines(actual), pySplitlines(gold));
    return score >= 1 ? 1 : fail(`line similarity ${score.toFixed(4)} with the expected file`, score);
  },
});

const checkCsv = defineMetric({
  name: "check_csv",
  options: noOptions,
  async run(result, rules) {
    const path = result === null || result === undefined ? undefined : String(result);
    if (!path) return fail("the result file is missing");
    const expect = ruleList("check_csv", rules, "expect") as Array<Record<string, unknown>>;
    const unexpect = ruleList("check_csv", rules, "unexpect") as Array<Record<string, unknown>>;
    const text = await readResult(path);
    if (typeof text !== "string") return text;
    let records: Array<Map<string | null, unknown>>;
    try {
      records = parseCsvRecords(text);
    } catch (e) {
      return fail(`cannot parse the CSV ${path}: ${errorText(e)}`);
    }
    const matches = (pattern: Record<string, unknown>, rec: Map<string | null, unknown>) =>
      Object.entries(pattern).every(([k, v]) => rec.has(k) && pyEqual(rec.get(k), v));
    const absent = expect.filter((p) => !records.some((r) => matches(p, r)));
    const present = unexpect.filter((p) => records.some((r) => matches(p, r)));
    if (!absent.length && !present.length) return 1;
    return fail(explain("no row matches", absent, "a row matches", present));
  },
});

const checkList = defineMetric({
  name: "check_list",
  options: noOptions,
  async run(result, rules) {
    if (result === null || result === undefined) return fail("the result file is missing");
    const expect = ruleList("check_list", rules, "expect").map(String);
    const unexpect = ruleList("check_list", rules, "unexpect").map(String);
    const [exp, unexp] = [expect.map((p) => pyRegex(p)), unexpect.map((p) => pyRegex(p))];
    const text = await readResult(String(result));
    if (typeof text !== "string") return text;
    const lines = pyLines(text);
    const absent = expect.filter((_, i) => !lines.some((l) => exp[i]!.test(l)));
    const present = unexpect.filter((_, i) => lines.some((l) => unexp[i]!.test(l)));
    if (!absent.length && !present.length) return 1;
    return fail(explain("no line matches", absent, "a line matches", present));
  },
});

const fileContains = defineMetric({
  name: "file_contains",
  options: noOptions,
  async run(result, config) {
    const path = filePath(result);
    if (!path) return fail("the result file is missing");
    const text = await readResult(path);
    if (typeof text !== "string") return text;
    const expected = typeof config === "object" && config !== null ? (config as Record<string, unknown>).expected : undefined;
    if (typeof expected !== "string" && !Array.isArray(expected)) return fail(`the rules have no list "expected": ${show(config)}`);
    try {
      const missing = Array.from(expected).filter((t) => !pyContains(text, t));
      return missing.length ? fail(`${path} lacks ${missing.map((t) => show(t, 60)).join(", ")}`) : 1;
    } catch (e) {
      return fail(`cannot search ${path}: ${errorText(e)}`);
    }
  },
});

const TIME = /([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)/;

const checkLineNumber = defineMetric({
  name: "check_line_number",
  options: noOptions,
  async run(result, lineNumber) {
    if (result === null || result === undefined) return fail("the result file is missing");
    const text = await readResult(String(result));
    if (typeof text !== "string") return text;
    const count = pyLines(text).filter((l) => TIME.test(l)).length;
    const raw = typeof lineNumber === "object" && lineNumber !== null ? (lineNumber as Record<string, unknown>).expected : undefined;
    const expected = pyInt(raw);
    if (expected === undefined) return fail(`the rules' "expected" is not an integer: ${show(raw)}`);
    return count === expected ? 1 : fail(`${count} line(s) hold a time (HH:MM:SS), expected ${expected}`);
  },
});

const compareTextFile = defineMetric({
  name: "compare_text_file",
  // compare_text_file(actual, expected, **options): other keys are ignored.
  options: z.object({ ignore_blanks: z.boolean().default(false), ignore_case: z.boolean().default(false) }),
  async run(result, expected, o) {
    return compareTextFiles(result, expected, o);
  },
});

/** vscode.py's `compare_text_file`: the two files' texts are equal, optionally ignoring runs of blanks and case. */
export async function compareTextFiles(result: unknown, expected: unknown, o: { ignore_blanks: boolean; ignore_case: boolean }): Promise<MetricResult> {
  const path = filePath(result);
  if (!path) return fail("the result file is missing");
  let actual = await readResult(path);
  if (typeof actual !== "string") return actual;
  let gold = await readResult(String(expected), "expected file");
  if (typeof gold !== "string") return gold;
  if (o.ignore_blanks) {
    // re.sub(r"\s+", " ", re.sub(r"[\t\n]", " ", s).strip()): the blanks collapsed.
    [actual, gold] = [collapseBlanks(actual), collapseBlanks(gold)];
  }
  if (o.ignore_case) [actual, gold] = [actual.toLowerCase(), gold.toLowerCase()];
  if (actual === gold) return 1;
  const a = pySplitlines(actual);
  const g = pySplitlines(gold);
  const line = a.findIndex((l, i) => l !== g[i]);
  const at =
    line < 0 ? `the result has ${a.length} line(s), the expected file ${g.length}` : `line ${line + 1}: expected ${show(g[line] ?? "")}, got ${show(a[line])}`;
  return fail(`${path} differs from the expected text; ${at}`);
}

/** OSWorld's metrics of this family, ported. */
export const generalMetrics: OsworldMetric[] = [
  checkIncludeExclude,
  exactMatch,
  matchInList,
  isInList,
  literalMatch,
  fuzzyMatch,
  diffTextFile,
  checkCsv,
  checkList,
  fileContains,
  checkLineNumber,
  compareTextFile,
  checkJson,
  checkDirectJsonObject,
  compareConfig,
];
