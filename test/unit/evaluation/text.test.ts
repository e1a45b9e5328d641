import { describe, expect, test } from "vitest";
import { checkRules, compareText, ruleSchema } from "../../../packages/controller/src/datasets/evaluationFunctions/index.js";
import { fixture } from "./fixtures.js";

// Verdicts as the GUI-OS dataset's own compare_text_file gives them on the same files (checked
// against it): the whole text compares, line endings aside.
describe("compareText, as the dataset's evaluator", () => {
  const expected = fixture("text/expected.txt");

  test("passes on the same text with CRLF line ends", () => {
    expect(compareText(expected, fixture("text/result-pass.txt"))).toEqual({ score: 1, reason: "the texts match (4 line(s))" });
  });

  test("fails naming the first differing line, a missing final line break, or a split line", () => {
    expect(compareText(expected, fixture("text/result-fail.txt"))).toEqual({
      score: 0,
      reason: 'line 2: expected "Items: apples, pears", got "Items: apples, plums"',
    });
    expect(compareText(expected, fixture("text/result-fail-no-final-break.txt"))).toEqual({
      score: 0,
      reason: "the expected text ends with a line break, the result does not",
    });
    expect(compareText(expected, fixture("text/result-fail-split.txt")).reason).toBe('line 1: expected "Total: 42", got "Total: 42 Items:"');
  });

  test("ignore_blanks turns line breaks and tabs into spaces: a joined or split line, or a missing blank line, still passes", () => {
    for (const f of ["result-fail-no-final-break.txt", "result-fail-split.txt"]) {
      expect(compareText(expected, fixture(`text/${f}`), { ignoreBlanks: true }), f).toEqual({ score: 1, reason: "the texts match (blanks collapsed)" });
    }
    expect(compareText(expected, fixture("text/result-fail.txt"), { ignoreBlanks: true, ignoreCase: true })).toEqual({
      score: 0,
      reason: 'with blanks collapsed, expected "total: 42 items: apples, pears done.", got "total: 42 items: apples, plums done."',
    });
  });

  test("ignore_blanks and ignore_case: each is needed for the loose result", () => {
    const loose = fixture("text/result-pass-blanks-case.txt");
    expect(compareText(expected, loose, { ignoreBlanks: true, ignoreCase: true }).score).toBe(1);
    expect(compareText(expected, loose, { ignoreBlanks: true }).score).toBe(0);
    expect(compareText(expected, loose, { ignoreCase: true })).toEqual({ score: 0, reason: 'line 1: expected "total: 42", got "  total:   42"' });
  });

  test("too short, too long, empty", () => {
    expect(compareText("a\nb\n", "a\n")).toEqual({ score: 0, reason: 'the result ends after line 1; expected line 2: "b"' });
    expect(compareText("a\n", "a\nb\nc\n")).toEqual({ score: 0, reason: 'the result has 2 extra line(s), from line 2: "b"' });
    expect(compareText("", "")).toMatchObject({ score: 1 });
    expect(compareText("a b", "a  b").score).toBe(0);
  });
});

describe("include/exclude rules", () => {
  const log = "running 3 tests\ntests: 3 passed, 0 failed\nwarning: option --legacy is deprecated\n";

  test("substrings and regexes; ^ and $ match at line breaks by default", () => {
    expect(
      checkRules(log, {
        include: ["3 passed", { regex: "^tests: \\d+ passed" }],
        exclude: ["FAILED", { regex: "[1-9]\\d* failed" }],
        ignoreCase: false,
        subject: "log",
      }),
    ).toEqual({
      score: 1,
      reason: "log: all 2 include rule(s) found, none of 2 exclude rule(s)",
    });
  });

  test("the reason names the missing and the excluded rules", () => {
    const r = checkRules(log, { include: ["4 passed", "running"], exclude: [{ regex: "^warning:" }], ignoreCase: false, subject: "log" });
    expect(r).toEqual({ score: 0, reason: 'log: missing "4 passed"; contains excluded /^warning:/m' });
  });

  test("ignore_case applies to strings and to regexes without flags", () => {
    expect(checkRules(log, { include: ["RUNNING"], exclude: [], ignoreCase: false, subject: "x" }).score).toBe(0);
    expect(checkRules(log, { include: ["RUNNING", { regex: "^TESTS:" }], exclude: [], ignoreCase: true, subject: "x" }).score).toBe(1);
  });

  test("an invalid regex is rejected by the schema", () => {
    const r = ruleSchema.safeParse({ regex: "(unclosed" });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path).toEqual(["regex"]);
    expect(ruleSchema.safeParse({ regex: "a", flags: "q" }).success).toBe(false);
    expect(ruleSchema.safeParse("").success).toBe(false);
  });
});
