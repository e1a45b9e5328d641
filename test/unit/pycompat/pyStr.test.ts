import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import {
  decodePyText,
  expandTabs,
  isPyDigit,
  pyLines,
  pyRstrip,
  pySplit,
  pySplitlines,
  pyStrip,
  readPyText,
  stripChars,
} from "../../../packages/controller/src/datasets/pycompat/pyStr.js";

// The expected strings are what CPython 3.11.7 gives for the same calls.

// U+001C-U+001F and U+0085 are whitespace to Python and not to JavaScript; U+FEFF and U+200B are the reverse or neither.
const S = ["\u2003 a b\x1c\x85", "\ufeffx\ufeff", "\t line \x0b\x0c\r\n", "\u200b zero-width \u200b", "a\x1fb c\u3000d"];

describe("Python's str methods", () => {
  test("strip(), rstrip() and split() use Python's whitespace", () => {
    expect(S.map(pyStrip)).toEqual(["a b", "\ufeffx\ufeff", "line", "\u200b zero-width \u200b", "a\x1fb c\u3000d"]);
    expect(S.map(pyRstrip)).toEqual(["\u2003 a b", "\ufeffx\ufeff", "\t line", "\u200b zero-width \u200b", "a\x1fb c\u3000d"]);
    expect(S.map(pySplit)).toEqual([["a", "b"], ["\ufeffx\ufeff"], ["line"], ["\u200b", "zero-width", "\u200b"], ["a", "b", "c", "d"]]);
  });

  test("lstrip(chars) and rstrip(chars) by code point", () => {
    expect(stripChars("xxyxabcx", "xy", "left")).toBe("abcx");
    expect(stripChars("ab\u{1F600}\u{1F600}", "\u{1F600}", "right")).toBe("ab");
  });

  test("splitlines() breaks at every line boundary Python knows, and leaves no trailing empty line", () => {
    expect(pySplitlines("a\nb\r\nc\rd\x0be\x0cf\x1cg\x1dh\x1ei\x85j\u2028k\u2029l\n")).toEqual(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"]);
    expect(pySplitlines("\n\nx")).toEqual(["", "", "x"]);
    expect(pySplitlines("")).toEqual([]);
    expect(pySplitlines("x\r\n\r\n")).toEqual(["x", ""]);
    expect(pySplitlines("\x1fkeeps")).toEqual(["\x1fkeeps"]);
  });

  test("expandtabs(4): the column restarts after \\n and \\r", () => {
    expect(["a\tb", "\t\tx", "ab\r\tc", "abcd\te", "x\ny\tz"].map((s) => expandTabs(s, 4))).toEqual([
      "a   b",
      "        x",
      "ab\r    c",
      "abcd    e",
      "x\ny   z",
    ]);
  });

  test("isdigit(): decimal digits of any script, superscripts and circled digits, not fractions", () => {
    const cases: Record<string, boolean> = {
      "7": true,
      "\u00b2": true,
      "\u0663": true,
      "\u2460": true,
      "\u1369": true,
      "\u24ea": true,
      "\u{10a40}": true,
      "\u{1f100}": true,
      "\u00bd": false,
      "\u2155": false,
      "\u216b": false,
      a: false,
    };
    for (const [c, digit] of Object.entries(cases)) expect(isPyDigit(c), c).toBe(digit);
    // CPython 3.11 counts 128 code points as digits that are not decimal digits (category Nd).
    let others = 0;
    for (let cp = 0; cp <= 0x10ffff; cp++) if (isPyDigit(String.fromCodePoint(cp)) && !/\p{Nd}/u.test(String.fromCodePoint(cp))) others++;
    expect(others).toBe(128);
  });

  test("iterating a file's lines keeps each line's \\n", () => {
    expect(pyLines("a\nb\n\nc")).toEqual(["a\n", "b\n", "\n", "c"]);
  });
});

describe("open(path, encoding='utf-8').read()", () => {
  test("a BOM is kept, \\r\\n and \\r read as \\n (or kept with newline='')", () => {
    expect(decodePyText(Buffer.from("\ufeffa\r\nb\rc\n"))).toBe("\ufeffa\nb\nc\n");
    expect(decodePyText(Buffer.from("a\r\nb"), false)).toBe("a\r\nb");
  });

  test("bytes that are not UTF-8 raise, as UnicodeDecodeError does", async () => {
    expect(() => decodePyText(Buffer.from([0x62, 0x61, 0x64, 0x20, 0xff]))).toThrow();
    const dir = mkdtempSync(join(tmpdir(), "pycompat-text-"));
    try {
      writeFileSync(join(dir, "ok.txt"), "x\r\ny");
      writeFileSync(join(dir, "bad.txt"), Buffer.from([0xc3, 0x28]));
      expect(await readPyText(join(dir, "ok.txt"))).toBe("x\ny");
      await expect(readPyText(join(dir, "bad.txt"))).rejects.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
