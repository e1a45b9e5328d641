import { expect, test } from "vitest";
import { matchValueToRule } from "../../../packages/controller/src/datasets/osworld/metrics/table/match.js";

// compare_table's check_cell, zoom and data_validation rules: OSWorld's _match_value_to_rule with
// Python's re and Python's string order.
test("regex rules are Python's re: named groups, \\Z and re.U work; a pattern that only JavaScript would match does not", () => {
  expect(matchValueToRule("2024-05", { method: "re", ref: "(?P<year>\\d{4})-(?P=year)?05\\Z" })).toBe(true);
  expect(matchValueToRule("a-b", { method: "re.U", ref: "a\\-b" })).toBe(true);
  // Python's $ also matches before a final newline; not before a newline in the middle.
  expect(matchValueToRule("total\n", { method: "re", ref: "total$" })).toBe(true);
  expect(matchValueToRule("total\nmore", { method: "re", ref: "total$" })).toBe(false);
});

test("strings order by code point, as in Python; a range method other than range.[et][et] is an error", () => {
  // U+FF5E sorts before U+1F600 by code point, after it by UTF-16 unit.
  expect(matchValueToRule("\uff5e", { method: "lt", ref: "\u{1f600}" })).toBe(true);
  expect(matchValueToRule(5, { method: "range.te", ref: [1, 5] })).toBe(true);
  expect(matchValueToRule(1, { method: "range.te", ref: [1, 5] })).toBe(false);
  expect(() => matchValueToRule(3, { method: "range.xt", ref: [1, 5] })).toThrow(/unknown rule method/);
  expect(matchValueToRule("1_000", { method: "approx:0.5", ref: 1000 })).toBe(true);
  expect(matchValueToRule("1__000", { method: "approx:0.5", ref: 1000 })).toBe(false);
});
