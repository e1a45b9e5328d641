import { describe, expect, test } from "vitest";
import { runPincer } from "../fixtures/cli.js";

// Every command's help: one width (100 columns, wrapped, terminal or not), an example, and no
// "(default: [])" for options that start empty.

const COMMANDS = ["run", "validate", "check", "report", "replay", "image", "cache", "mcp", "worker"];

describe("pincer help pages", () => {
  test.each(COMMANDS)("%s --help: wrapped at 100 columns, with examples, without (default: [])", async (cmd) => {
    const r = await runPincer([cmd, "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`\\nExamples:\\n {2}pincer ${cmd} `));
    expect(r.stdout).not.toContain("(default: [])");
    // A line past 100 columns is one commander cannot break: a single word longer than the space left.
    for (const line of r.stdout.split("\n").filter((l) => l.length > 100)) {
      expect(
        line
          .trim()
          .split(/\s{2,}/)
          .at(-1)!
          .split(" ")
          .some((w) => w.length > 40),
        line,
      ).toBe(true);
    }
  });
});
