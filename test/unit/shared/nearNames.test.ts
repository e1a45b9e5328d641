import { describe, expect, test } from "vitest";
import { didYouMean, editDistance, nearNames } from "@pincer/shared";

describe("did you mean", () => {
  test("edit distance counts insertions, deletions and substitutions", () => {
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("same", "same")).toBe(0);
  });

  test("names within a few edits or sharing a start or an end, nearest first; nothing for a name unlike all", () => {
    const known = ["check_file_exists", "check_include_exclude", "check_window_exists", "compare_text_file"];
    expect(nearNames("check_file_exist", known)).toEqual(["check_file_exists"]);
    expect(nearNames("CHECK_FILE_EXISTS", known)).toEqual(["check_file_exists"]);
    expect(nearNames("compare_txt_file", known)).toEqual(["compare_text_file"]);
    expect(nearNames("text_file", known)).toEqual(["compare_text_file"]);
    expect(nearNames("screenshot", known)).toEqual([]);
    expect(didYouMean("clik", ["click", "double_click", "key"])).toBe(' (did you mean "click"?)');
    expect(didYouMean("zzz", ["click"])).toBe("");
  });
});
