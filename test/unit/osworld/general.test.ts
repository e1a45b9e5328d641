import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { generalMetrics } from "../../../packages/controller/src/datasets/osworld/metrics/general.js";
import { metricRunner } from "./metricRunner.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "osworld-general-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes a fixture file and gives its path. */
async function file(name: string, content: string | Buffer): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

const run = metricRunner(generalMetrics);

describe("check_include_exclude", () => {
  const rules = { include: ["Large text enabled"], exclude: ["No text scaling enabled", "error"] };
  test("passes when every include is a substring and no exclude is", async () => {
    expect((await run("check_include_exclude", "Large text enabled\n", rules)).score).toBe(1);
  });
  test("fails on a missing include, on a present exclude, and on no result", async () => {
    const missing = await run("check_include_exclude", "nothing here", rules);
    expect(missing).toMatchObject({ score: 0 });
    expect(missing.reason).toContain('missing "Large text enabled"');
    const excluded = await run("check_include_exclude", "Large text enabled; error: x", rules);
    expect(excluded.score).toBe(0);
    expect(excluded.reason).toContain('contains "error"');
    expect((await run("check_include_exclude", null, rules)).score).toBe(0);
  });
  test("missing lists default to empty; a non-object rules is a task error", async () => {
    expect((await run("check_include_exclude", "anything", { exclude: ["Error:"] })).score).toBe(1);
    await expect(run("check_include_exclude", "x", "include")).rejects.toThrow(/rules object/);
  });
});

describe("exact_match, match_in_list, is_in_list", () => {
  test("exact_match compares with Python's ==, newline included", async () => {
    expect((await run("exact_match", "true\n", { expected: "true\n" })).score).toBe(1);
    const r = await run("exact_match", "true", { expected: "true\n" });
    expect(r.score).toBe(0);
    expect(r.reason).toBe('expected "true\\n", got "true"');
    expect((await run("exact_match", null, { expected: "1\n" })).score).toBe(0);
    await expect(run("exact_match", "x", {})).rejects.toThrow(/no "expected"/);
  });
  test("match_in_list: the result is one of the expected values", async () => {
    expect((await run("match_in_list", "Bing", { expected: ["Microsoft Bing", "Bing"] })).score).toBe(1);
    expect((await run("match_in_list", "Google", { expected: ["Microsoft Bing", "Bing"] })).score).toBe(0);
    expect((await run("match_in_list", null, { expected: ["light", "system"] })).score).toBe(0);
  });
  test("is_in_list: the expected value is in the result list", async () => {
    const expected = { expected: "/home/user/Desktop/helloExtension" };
    expect((await run("is_in_list", ["/a", "/home/user/Desktop/helloExtension"], expected)).score).toBe(1);
    expect((await run("is_in_list", ["/a"], expected)).score).toBe(0);
    const none = await run("is_in_list", null, expected);
    expect(none.score).toBe(0);
    expect(none.reason).toContain("NoneType");
  });
});

describe("literal_match", () => {
  test("list type, ignoring case, compares str() of each item", async () => {
    const o = { type: "list", ignore_case: true };
    expect((await run("literal_match", ["Yann LeCun", 1000, true], ["yann lecun", "1000", "true"], o)).score).toBe(1);
    expect((await run("literal_match", ["Yann LeCun", 999], ["yann lecun", "1000"], o)).reason).toBe('item 1: expected "1000", got "999"');
    expect((await run("literal_match", ["Yann LeCun"], ["yann lecun", "1000"], o)).score).toBe(0);
    expect((await run("literal_match", "Yann", ["Yann"], o)).score).toBe(0);
  });
  test("str type is case-sensitive by default; None prints as None", async () => {
    expect((await run("literal_match", "abc", "abc")).score).toBe(1);
    expect((await run("literal_match", "ABC", "abc")).score).toBe(0);
    expect((await run("literal_match", null, "None")).score).toBe(1);
    expect(() => generalMetrics.find((m) => m.name === "literal_match")!.options.parse({ type: "dict" })).toThrow();
  });
});

describe("fuzzy_match", () => {
  test("rapidfuzz's ratio / 100", async () => {
    expect((await run("fuzzy_match", "this is a test", { expected: "this is a test" })).score).toBe(1);
    expect((await run("fuzzy_match", "this is a test", { expected: "this is a test!" })).score).toBeCloseTo(0.9655172413793103, 14);
    expect((await run("fuzzy_match", "abc", { expected: "xyz" })).score).toBe(0);
  });
});

describe("diff_text_file", () => {
  test("difflib's line ratio", async () => {
    const gold = await file("gold.js", "a\nb\nc\nd\n");
    expect((await run("diff_text_file", await file("same.js", "a\r\nb\r\nc\r\nd"), gold)).score).toBe(1);
    const changed = await run("diff_text_file", await file("changed.js", "a\nb\nX\nd\n"), gold);
    expect(changed.score).toBe(0.75);
    expect((await run("diff_text_file", await file("empty.js", ""), gold)).score).toBe(0);
    expect((await run("diff_text_file", null, gold)).score).toBe(0);
  });
});

describe("check_csv", () => {
  const rules = { expect: [{ url: "imap://a", user: "me" }], unexpect: [{ url: "imap://outlook.office365.com", user: "anonym-x2024@outlook.com" }] };
  test("passes when an expected record is present and no unexpected one", async () => {
    const csv = await file("ok.csv", 'url,user,password\nimap://a,me,"p,w"\nimap://b,you,x\n');
    expect((await run("check_csv", csv, rules)).score).toBe(1);
  });
  test("fails on a missing record and on an unexpected one", async () => {
    const none = await run("check_csv", await file("none.csv", "url,user\nimap://b,you\n"), rules);
    expect(none.reason).toContain("no row matches");
    const bad = await run("check_csv", await file("bad.csv", "url,user\nimap://a,me\nimap://outlook.office365.com,anonym-x2024@outlook.com\n"), rules);
    expect(bad).toMatchObject({ score: 0 });
    expect(bad.reason).toContain("a row matches");
    expect((await run("check_csv", join(dir, "absent.csv"), rules)).score).toBe(0);
  });
});

describe("check_list", () => {
  const rules = { expect: ["\\bCOMPANY\\.msf\\b", "openjdk-\\d+-(jre|jdk)"], unexpect: ["^junk$"] };
  test("every expect regex matches some line and no unexpect regex matches any", async () => {
    expect((await run("check_list", await file("l1.txt", "x COMPANY.msf y\nopenjdk-17-jre\n"), rules)).score).toBe(1);
  });
  test("fails on an unmatched expect and on a matched unexpect ($ matches before the line's newline, as in Python)", async () => {
    expect((await run("check_list", await file("l2.txt", "COMPANY.msf\n"), rules)).reason).toContain("no line matches");
    const junk = await run("check_list", await file("l3.txt", "COMPANY.msf\nopenjdk-11-jdk\njunk\n"), rules);
    expect(junk.reason).toBe('a line matches "^junk$"');
    expect((await run("check_list", await file("l4.txt", "x\n"), { unexpect: [".+"] })).score).toBe(0);
    expect((await run("check_list", await file("l5.txt", ""), { unexpect: [".+"] })).score).toBe(1);
  });
});

describe("file_contains and check_line_number", () => {
  test("file_contains: every expected string is in the file", async () => {
    const path = await file("speed.txt", "Ping: 10 ms\nDownload: 5\nUpload: 1\n");
    expect((await run("file_contains", path, { expected: ["Ping", "Download", "Upload"] })).score).toBe(1);
    expect((await run("file_contains", path, { expected: ["Ping", "Latency"] })).reason).toContain('lacks "Latency"');
    expect((await run("file_contains", join(dir, "nope.txt"), { expected: ["Ping"] })).score).toBe(0);
    expect((await run("file_contains", null, { expected: ["Ping"] })).score).toBe(0);
  });
  test("check_line_number: counts the lines holding a time", async () => {
    const path = await file("sar.txt", "Linux\n10:00:01 AM CPU %user\n10:00:02 AM all 1.0\n24:00:00 not a time\n");
    expect((await run("check_line_number", path, { expected: "2" })).score).toBe(1);
    expect((await run("check_line_number", path, { expected: "31" })).reason).toContain("2 line(s) hold a time");
    expect((await run("check_line_number", path, { expected: "2.0" })).score).toBe(0);
    expect((await run("check_line_number", join(dir, "missing.txt"), { expected: "2" })).score).toBe(0);
  });
});

describe("compare_text_file", () => {
  test("equal texts pass; universal newlines", async () => {
    const gold = await file("gold.txt", "Hello\nWorld\n");
    expect((await run("compare_text_file", await file("t1.txt", "Hello\r\nWorld\r\n"), gold)).score).toBe(1);
  });
  test("a different line or a different case fails unless ignored", async () => {
    const gold = await file("gold2.txt", "Hello  World\n\tfoo\n");
    const other = await run("compare_text_file", await file("t2.txt", "Hello World\nbar\n"), gold);
    expect(other.score).toBe(0);
    expect(other.reason).toContain('line 1: expected "Hello  World", got "Hello World"');
    const spaced = await file("t3.txt", "  HELLO World foo");
    expect((await run("compare_text_file", spaced, gold, { ignore_blanks: true })).score).toBe(0);
    expect((await run("compare_text_file", spaced, gold, { ignore_blanks: true, ignore_case: true })).score).toBe(1);
    expect((await run("compare_text_file", "", gold)).score).toBe(0);
  });
});
