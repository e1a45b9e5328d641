import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { codeBlocks, ROOT, testedPages } from "./markdown.js";
import { snippetModules, sourceOf, typeCheck } from "./snippets.js";

// Inside the repository (and git-ignored), so the snippets resolve @pincer/controller and zod as a user's files would.
const SCRATCH = join(ROOT, ".tmp", `docs-snippets-${process.pid}`);
afterAll(() => rmSync(SCRATCH, { recursive: true, force: true }));

const blocks = testedPages().flatMap((page) => codeBlocks(page, readFileSync(join(ROOT, page), "utf8")));
const modulesByPage = testedPages().map((page) => snippetModules(blocks.filter((b) => b.page === page)));
const modules = modulesByPage.flat();

describe("the ```ts blocks of the README and the manual", () => {
  test("are many, and the README and the manual both have them", () => {
    const ts = blocks.filter((b) => b.lang === "ts");
    expect(ts.length).toBeGreaterThan(10);
    expect(ts.some((b) => b.page === "README.md")).toBe(true);
    expect(ts.some((b) => b.page.startsWith("docs/"))).toBe(true);
    // A typo in the language (```typescript, ```TS) would leave a block out of the check.
    expect(blocks.filter((b) => /^(typescript|tsx?|TS|js|javascript|mts)$/.test(b.lang) && b.lang !== "ts").map((b) => `${b.page}:${b.line}`)).toEqual([]);
  });

  test("each type-checks with the project's compiler settings, as a user's module that imports @pincer/controller", () => {
    // One broken module goes along, to show the check reports an error at its page and line.
    const broken = snippetModules([{ page: "docs/made-up.md", lang: "ts", line: 10, code: 'import { connect } from "@pincer/controller";\nconnect(42);\n' }]);
    const errors = typeCheck([...modules, ...broken], SCRATCH);
    expect(errors.filter((e) => e.startsWith("docs/made-up.md:"))).toEqual([
      expect.stringMatching(/^docs\/made-up\.md:12: Argument of type 'number' is not assignable to parameter of type 'string'/),
    ]);
    expect(errors.filter((e) => !e.startsWith("docs/made-up.md:"))).toEqual([]);
  }, 180_000);

  test("a block marked as a file is that file from its first import on", () => {
    const files = modules.filter((m) => m.file);
    expect(files.length).toBeGreaterThan(0);
    for (const m of files) {
      const text = readFileSync(join(ROOT, m.file!), "utf8");
      expect(m.text, `${sourceOf(m, 0)} shows ${m.file}`).toBe(text.slice(text.search(/^import /m)));
    }
  });

  test("every ```json block parses, and one marked as a file is that file", () => {
    const json = blocks.filter((b) => b.lang === "json");
    expect(json.length).toBeGreaterThan(2);
    const where = (b: (typeof json)[number]) => `${b.page}:${b.line}`;
    const unparsed = json.flatMap((b) => {
      try {
        JSON.parse(b.code);
        return [];
      } catch (err) {
        return [`${where(b)}: ${(err as Error).message}`];
      }
    });
    expect(unparsed).toEqual([]);
    const files = json.filter((b) => b.marker?.startsWith("file "));
    expect(files.length).toBeGreaterThan(0);
    for (const b of files) expect(JSON.parse(b.code), where(b)).toEqual(JSON.parse(readFileSync(join(ROOT, b.marker!.slice(5)), "utf8")));
  });

  test("a block that continues another is checked with it, and its errors point at its own lines", () => {
    const page = "docs/made-up.md";
    const [m] = snippetModules([
      { page, lang: "ts", line: 3, code: "const a = 1;\n" },
      { page, lang: "ts", line: 8, code: "const b = a + 1;\nconsole.log(b);\n", marker: "after the block above" },
    ]);
    expect(m!.text).toBe("const a = 1;\nconst b = a + 1;\nconsole.log(b);\n");
    expect([sourceOf(m!, 0), sourceOf(m!, 1), sourceOf(m!, 2)]).toEqual([`${page}:4`, `${page}:9`, `${page}:10`]);
    expect(() => snippetModules([{ page, lang: "ts", line: 1, code: "", marker: "continues" }])).toThrow(/write "file PATH", "after PATH"/);
  });
});
