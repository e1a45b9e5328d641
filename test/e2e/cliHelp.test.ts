import { describe, expect, test } from "vitest";
import { runPincer } from "../fixtures/cli.js";

// Every command's help: one width (100 columns, wrapped, terminal or not), an example, and no
// "(default: [])" for options that start empty.

const COMMANDS = ["run", "validate", "check", "report", "replay", "record", "image", "machine", "cache", "mcp", "worker", "serve"];

/** The help pages' width, in columns. */
const WIDTH = 100;

/**
 * The lines of a help page wider than {@link WIDTH}, counted in characters and in UTF-8 bytes: the
 * tools that check a width (awk, cut, many editors' rulers) count bytes, so a "…" or "→" in a full
 * line takes it past 100 for them.
 */
const tooWide = (text: string) => text.split("\n").filter((l) => [...l].length > WIDTH || Buffer.byteLength(l) > WIDTH);

/** The subcommands a help page lists under "Commands:" (help left out). */
function subcommands(help: string): string[] {
  const section = help.split("\nCommands:\n")[1]?.split("\n\n")[0] ?? "";
  return [...section.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((m) => m[1]!).filter((c) => c !== "help");
}

describe("pincer help pages", () => {
  test.each(COMMANDS)("%s --help: wrapped at 100 columns, with examples, without (default: [])", async (cmd) => {
    const r = await runPincer([cmd, "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`\\nExamples:\\n {2}pincer ${cmd} `));
    expect(r.stdout).not.toContain("(default: [])");
    expect(tooWide(r.stdout)).toEqual([]);
  });

  test("pincer --help and every subcommand's help (image build, cache add, …) fit 100 columns too", async () => {
    const top = await runPincer(["--help"]);
    expect(top.code).toBe(0);
    expect(subcommands(top.stdout)).toEqual(COMMANDS);
    const pages = [top.stdout];
    for (const cmd of COMMANDS) {
      const subs = subcommands((await runPincer([cmd, "--help"])).stdout);
      for (const sub of subs) {
        const r = await runPincer([cmd, sub, "--help"]);
        expect(r.code, `${cmd} ${sub} --help`).toBe(0);
        pages.push(r.stdout);
      }
    }
    expect(pages.length).toBeGreaterThan(5);
    expect(pages.flatMap(tooWide)).toEqual([]);
  }, 120_000);
});
