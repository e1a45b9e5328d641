import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { docsPages, ROOT } from "./markdown.js";

/** The flags a commander program's source defines: `new Option("--x …")`, `.option("--x …")`, `.requiredOption("--x …")`. */
function flagsDefinedIn(source: string): string[] {
  return [...new Set([...source.matchAll(/(?:Option|option)\(\s*"(--[a-z0-9-]+)/g)].map((m) => m[1]!))].sort();
}

const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
/** The flags a page names in inline code (`--x`, `--x VALUE`, `--x=…`). */
const flagsNamedIn = (text: string) => new Set([...text.matchAll(/`(--[a-z0-9-]+)/g)].map((m) => m[1]!));

describe("the manual names every flag", () => {
  test("of pincer-daemon, on docs/daemon.md", () => {
    const defined = flagsDefinedIn(read("packages/daemon/src/main.ts"));
    expect(defined).toContain("--max-unauthenticated-connections");
    expect(defined.length).toBeGreaterThan(25);
    const named = flagsNamedIn(read("docs/daemon.md"));
    expect(defined.filter((f) => !named.has(f))).toEqual([]);
  });

  test("of the pincer CLI, on some page of docs/", () => {
    const cli = join(ROOT, "packages/controller/src/cli");
    const defined = [...new Set(readdirSync(cli).flatMap((f) => flagsDefinedIn(readFileSync(join(cli, f), "utf8"))))];
    expect(defined).toEqual(expect.arrayContaining(["--a11y", "--settle", "--apt-source", "--format", "--local-root", "--provider"]));
    const named = new Set(docsPages().flatMap((p) => [...flagsNamedIn(read(p))]));
    expect(defined.filter((f) => !named.has(f))).toEqual([]);
  });

  test("the flag finder reads options split over lines", () => {
    expect(flagsDefinedIn('.addOption(\n  new Option(\n    "--a11y [mode]",\n  ))\n.option("--out <dir>")')).toEqual(["--a11y", "--out"]);
  });
});

describe("npm run pincer in the manual", () => {
  test("every command line carries the -- that hands pincer its flags (without it npm takes them)", () => {
    const pages = ["README.md", ...docsPages()];
    const lines = pages.flatMap((p) =>
      read(p)
        .split("\n")
        .map((l, i) => ({ where: `${p}:${i + 1}`, line: l.trim() }))
        .filter(({ line }) => /^npm run (pincer|demo)\b/.test(line)),
    );
    expect(lines.length).toBeGreaterThan(10);
    expect(lines.filter(({ line }) => /^npm run \S+ +(?!--(\s|$))\S/.test(line)).map((l) => `${l.where}: ${l.line}`)).toEqual([]);
  });
});
