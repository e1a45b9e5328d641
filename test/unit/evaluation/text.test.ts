import { describe, expect, test } from "vitest";
import { checkRules, compareText, ruleSchema } from "../../../packages/controller/src/datasets/evaluationHelpers/index.js";
import { fixture } from "./fixtures.js";

describe("compareText", () => {
  const expected = fixture("text/expected.txt");

  test("passes on the same lines with CRLF line ends and no final line break", () => {
    expect(compareText(expected, fixture("text/result-pass.txt"))).toEqual({ score: 1, reason: "the 4 line(s) match" });
  });

  test("fails naming the first differing line", () => {
    expect(compareText(expected, fixture("text/result-fail.txt"))).toEqual({
      score: 0,
      reason: 'line 2: expected "Items: apples, pears", got "Items: apples, plums"',
    });
  });

  test("ignore_blanks and ignore_case: each is needed for the loose result", () => {
    const loose = fixture("text/result-pass-blanks-case.txt");
    expect(compareText(expected, loose, { ignoreBlanks: true, ignoreCase: true }).score).toBe(1);
    expect(compareText(expected, loose, { ignoreBlanks: true })).toEqual({ score: 0, reason: 'line 1: expected "Total: 42", got "  total:   42"' });
    expect(compareText(expected, loose, { ignoreCase: true }).reason).toBe('line 1: expected "Total: 42", got "  total:   42"');
  });

  test("blank lines are skipped with ignore_blanks, and the reason gives both line numbers", () => {
    expect(compareText("a\nb\nc", "a\n\n\nB", { ignoreBlanks: true })).toEqual({ score: 0, reason: 'line 4 (expected line 2): expected "b", got "B"' });
  });

  test("a result that is too short or too long", () => {
    expect(compareText("a\nb\n", "a\n")).toEqual({ score: 0, reason: 'the result ends after 1 line(s); expected line 2: "b"' });
    expect(compareText("a\n", "a\nb\nc\n")).toEqual({ score: 0, reason: 'the result has 2 extra line(s), from line 2: "b"' });
    expect(compareText("", "")).toMatchObject({ score: 1 });
  });

  test("whitespace inside lines counts unless ignore_blanks", () => {
    expect(compareText("a b", "a  b").score).toBe(0);
    expect(compareText("a b", "a\tb ", { ignoreBlanks: true }).score).toBe(1);
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
