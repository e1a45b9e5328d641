import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { matchValueToRule } from "../../../packages/controller/src/datasets/osworld/metrics/common/matchRule.js";
import { pyEqual, pyStr } from "../../../packages/controller/src/datasets/pycompat/pyValues.js";
import { pySplitlines } from "../../../packages/controller/src/datasets/pycompat/pyStr.js";
import { PyFloat, plainJson, pyJsonParse } from "../../../packages/controller/src/datasets/pycompat/pyJson.js";
import { pyRegex } from "../../../packages/controller/src/datasets/pycompat/pyRegex.js";
import { fuzzRatio, sequenceRatio } from "../../../packages/controller/src/datasets/pycompat/similarity.js";
import { generalMetrics } from "../../../packages/controller/src/datasets/osworld/metrics/general.js";
import { metricRunner } from "./metricRunner.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "osworld-json-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, content: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

const run = metricRunner(generalMetrics);

describe("check_json", () => {
  const rules = {
    expect: [
      { key: ["name"], method: "eq", ref: "happy-extension" },
      { key: ["background", "scripts"], method: "eq", ref: ["background_script.js"] },
      { key: ["browser_action", "default_icon"], method: "eq", ref: { "64": "icons/icon.png" } },
    ],
    unexpect: [{ key: ["permissions"], method: "eq", ref: null }],
  };
  const good = { name: "happy-extension", background: { scripts: ["background_script.js"] }, browser_action: { default_icon: { "64": "icons/icon.png" } } };
  test("passes when the values at the keys match", async () => {
    expect((await run("check_json", await file("m.json", JSON.stringify({ ...good, permissions: [] })), rules)).score).toBe(1);
  });
  test("fails on a wrong value, on a missing key, on an unexpect match, and on bad JSON", async () => {
    const wrong = await run("check_json", await file("w.json", JSON.stringify({ ...good, name: "sad", permissions: [] })), rules);
    expect(wrong.reason).toContain('key ["name"] = "sad" does not match eq "happy-extension"');
    const missing = await run("check_json", await file("k.json", JSON.stringify({ name: "happy-extension", permissions: [] })), rules);
    expect(missing.reason).toContain('no "background"');
    // A missing key reads as None for unexpect rules, and None == null matches.
    expect((await run("check_json", await file("u.json", JSON.stringify(good)), rules)).reason).toContain("matches eq null");
    expect((await run("check_json", await file("bad.json", "{name: 1}"), rules)).reason).toContain("not valid JSON");
    expect((await run("check_json", null, rules)).score).toBe(0);
  });
  test("YAML with is_yaml, and regex rules with flags", async () => {
    const yaml = await file("c.yml", "name: Test Account\nauthor:\n  name: Test Account\n  email: Test@gmail.com\n");
    const yrules = { expect: [{ key: ["author", "email"], method: "re.I", ref: "^test@GMAIL\\.com$" }] };
    expect((await run("check_json", yaml, yrules, { is_yaml: true })).score).toBe(1);
    expect((await run("check_json", yaml, { expect: [{ key: ["author", "email"], method: "re", ref: "^test@" }] }, { is_yaml: true })).score).toBe(0);
    expect((await run("check_json", await file("e.yml", ""), yrules, { is_yaml: true })).reason).toContain("empty");
  });
});

describe("check_direct_json_object", () => {
  test("a command's output with single quotes is parsed as JSON and compared key by key", async () => {
    const rules = { expected: { "spider-man": true, toys: true, is_other_exist: false } };
    expect((await run("check_direct_json_object", "{'spider-man': true, 'toys': true, 'is_other_exist': false, 'more': 1}\n", rules)).score).toBe(1);
    const wrong = await run("check_direct_json_object", { "spider-man": true, toys: false, is_other_exist: false }, rules);
    expect(wrong.reason).toBe('"toys": expected true, got false');
    expect((await run("check_direct_json_object", "not json", rules)).reason).toContain("not JSON");
    expect((await run("check_direct_json_object", null, rules)).score).toBe(0);
  });
  test("list order matters unless expected.ignore_list_order (rules.ignore_list_order is not read, as in OSWorld)", async () => {
    const result = { modelList: ["b", "a"] };
    expect((await run("check_direct_json_object", result, { expected: { modelList: ["a", "b"] }, ignore_list_order: true })).score).toBe(0);
    const inner = { expected: { modelList: ["a", "b"], ignore_list_order: true } };
    expect((await run("check_direct_json_object", { ...result, ignore_list_order: true }, inner)).score).toBe(0); // sorted(True) raises
  });
  test("expect_in_result: strings are contained, lists share an item", async () => {
    const rules = { expected: { q: "coffee", toStation: ["STO", "ARN"] }, expect_in_result: true };
    expect((await run("check_direct_json_object", { q: "drip coffee maker", toStation: ["ARN"] }, rules)).score).toBe(1);
    expect((await run("check_direct_json_object", { q: "drip coffee maker", toStation: "ARN" }, rules)).score).toBe(1);
    expect((await run("check_direct_json_object", { q: "tea", toStation: ["ARN"] }, rules)).reason).toContain('"coffee" is not in "tea"');
    expect((await run("check_direct_json_object", { q: "coffee", toStation: ["BOM"] }, rules)).reason).toContain("holds none of");
    expect((await run("check_direct_json_object", { toStation: ["ARN"] }, rules)).score).toBe(0);
  });
  test("an expected value marked __EVALUATION_FAILED__ fails", async () => {
    expect((await run("check_direct_json_object", { time: "x" }, { expected: { time: "__EVALUATION_FAILED__" } })).score).toBe(0);
  });
});

describe("compare_config", () => {
  test("containment: JSON subset, or a substring when not JSON", async () => {
    const settings = await file("settings.json", '{"workbench.colorTheme": "Visual Studio Dark", "editor.fontSize": 14}');
    expect((await run("compare_config", settings, { expected: '{"workbench.colorTheme": "Visual Studio Dark"}\n' }, { containment_ok: true })).score).toBe(1);
    expect((await run("compare_config", settings, { expected: '{"workbench.colorTheme": "Default Dark"}' })).reason).toContain("(as JSON)");
    const project = await file("OpenProject.txt", "/home/user/project\n");
    expect((await run("compare_config", project, { expected: "project" })).score).toBe(1);
    expect((await run("compare_config", project, { expected: "other" })).score).toBe(0);
    expect((await run("compare_config", null, { expected: "project" })).score).toBe(0);
  });
  test("strict: equal text or equal JSON", async () => {
    const path = await file("strict.json", '{"a": 1, "b": 2}');
    expect((await run("compare_config", path, { expected: '{"b":2,"a":1}' }, { containment_ok: false })).score).toBe(1);
    expect((await run("compare_config", path, { expected: '{"a":1}' }, { containment_ok: false })).score).toBe(0);
  });
});

describe("Python semantics", () => {
  test("regexes: $ before a final newline, . excludes only \\n, (?P<name>), \\Z and inline flags", () => {
    expect(pyRegex("^junk$").test("junk\n")).toBe(true);
    expect(pyRegex("^junk$").test("junk\n\n")).toBe(false);
    expect(pyRegex("a.b").test("a\rb")).toBe(true);
    expect(pyRegex("a.b").test("a\nb")).toBe(false);
    expect(pyRegex("(?P<x>ab)(?P=x)").test("abab")).toBe(true);
    expect(pyRegex("b\\Z").test("ab\n")).toBe(false);
    expect(pyRegex("(?i)ABC").test("xabc")).toBe(true);
    expect(pyRegex("^b", { multiline: true }).test("a\rb")).toBe(false);
    expect(pyRegex("^b", { multiline: true }).test("a\nb")).toBe(true);
  });
  test("regexes on non-ASCII text: \\w, \\d, \\b and \\s are Unicode-aware, as Python's are for str; re.A keeps them ASCII", () => {
    // Each expectation is what Python 3.11's re.search gives.
    expect(pyRegex("^\\w+$").test("Ádám")).toBe(true);
    expect(pyRegex("^\\w+$").test("A\u0301")).toBe(false);
    expect(pyRegex("^\\d+$").test("١٢٣")).toBe(true);
    expect(pyRegex("\\bé").test("café")).toBe(false);
    expect(pyRegex("\\s").test("\u00a0")).toBe(true);
    expect(pyRegex("\\s").test("\ufeff")).toBe(false);
    expect(pyRegex("^ZOË$", { ignoreCase: true }).test("Zoë")).toBe(true);
    expect(pyRegex("^\\w+$", { ascii: true }).test("é")).toBe(false);
    expect(pyRegex("(?a)\\d").test("٣")).toBe(false);
    expect(pyRegex("^.$").test("😀")).toBe(true);
    // Escapes and braces Python reads as literals, which JavaScript's Unicode mode refuses.
    expect(pyRegex('a\\-b\\"c').test('a-b"c')).toBe(true);
    expect(pyRegex("{foo}").test("{foo}")).toBe(true);
    expect(pyRegex("x{,2}y").test("xxy")).toBe(true);
    expect(pyRegex("\\U0001F600").test("😀")).toBe(true);
    expect(pyRegex("[^\\W]").test("é")).toBe(true);
  });
  test("JSON as Python's json.loads reads it: NaN and Infinity, whole floats kept as floats, the last of duplicate keys", () => {
    const v = pyJsonParse('{"a": 5.0, "b": 5, "c": 1e2, "d": 0.5, "e": [NaN, -Infinity], "a": 6.0, "__proto__": 1}') as Record<string, unknown>;
    expect(v.a).toBeInstanceOf(PyFloat);
    expect(pyStr(v.a)).toBe("6.0");
    expect(pyStr(v.b)).toBe("5");
    expect(pyStr(v.c)).toBe("100.0");
    expect(pyStr([v.d, v.b, v.c])).toBe("[0.5, 5, 100.0]");
    expect(pyEqual(v.a, 6)).toBe(true);
    expect(plainJson(v)).toEqual({ a: 6, b: 5, c: 100, d: 0.5, e: [Number.NaN, -Infinity], ["__proto__"]: 1 });
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(() => pyJsonParse("{'a': 1}")).toThrow(/property name/);
    expect(() => pyJsonParse("[1] x")).toThrow(/Extra data/);
    expect(() => pyJsonParse("nan")).toThrow(/Expecting value/);
  });
  test("rules, values and text helpers", () => {
    expect(matchValueToRule("3.5", { method: "approx:0.1", ref: 3.55 })).toBe(true);
    expect(matchValueToRule(2, { method: "range.te", ref: [0, 2] })).toBe(true);
    expect(matchValueToRule(0, { method: "range.te", ref: [0, 2] })).toBe(false);
    expect(matchValueToRule(3, { method: "gt", ref: 2 })).toBe(true);
    expect(() => matchValueToRule(3, { method: "re", ref: "3" })).toThrow(/string/);
    expect(pyEqual(true, 1)).toBe(true);
    expect(pyEqual({ a: [1, 2] }, { a: [1, 2.0] })).toBe(true);
    expect(pyStr([1, "a", null, 0.5, 1e-7])).toBe("[1, 'a', None, 0.5, 1e-07]");
    expect(pySplitlines("a\nb\r\nc\n")).toEqual(["a", "b", "c"]);
    expect(fuzzRatio("", "")).toBe(100);
    expect(fuzzRatio("😀a", "a")).toBeCloseTo((2 / 3) * 100, 12);
    expect(sequenceRatio(["a", "b"], ["b", "a"])).toBe(0.5);
  });
});
