import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { anchorsOf, brokenLink, docsPages, linksOf, ROOT, testedPages } from "./markdown.js";

const README = readFileSync(join(ROOT, "README.md"), "utf8");

describe("the README is the front door of the manual", () => {
  test("it is at most 200 lines", () => {
    expect(README.trimEnd().split("\n").length).toBeLessThanOrEqual(200);
  });

  test("it links every page of docs/", () => {
    const pages = docsPages();
    expect(pages.length).toBeGreaterThan(10);
    const linked = new Set(linksOf(README).map((l) => relative(ROOT, resolve(ROOT, l.target.split("#")[0]!))));
    expect(pages.filter((p) => !linked.has(p))).toEqual([]);
  });

  test("it keeps the two commands exactly", () => {
    expect(README).toContain("\nbash scripts/install-system-deps.sh && npm ci && npm run demo\n");
    expect(README).toContain("\nbash scripts/install-system-deps.sh && npm ci && npm test\n");
  });
});

describe("links", () => {
  test("every relative link of the README, the manual, the changelog and the packages' READMEs resolves, anchors included", () => {
    const broken = testedPages().flatMap((page) => {
      const text = readFileSync(join(ROOT, page), "utf8");
      return linksOf(text).flatMap((l) => brokenLink(page, l) ?? []);
    });
    expect(broken).toEqual([]);
  });

  test("the check finds a missing file, a missing anchor and a link out of the repository", () => {
    const pages: Record<string, string> = { "docs/a.md": "# A page\n\n## Its `--flag`, and more\n\n## Its `--flag`, and more\n" };
    const read = (p: string) => pages[p];
    expect([...anchorsOf(pages["docs/a.md"]!)]).toEqual(["a-page", "its---flag-and-more", "its---flag-and-more-1"]);
    const text = "See [a](a.md#its---flag-and-more-1), [b](b.md), [c](a.md#nowhere), [d](../../x.md), [e](https://example.com/#x), [f](#a-page).";
    const found = linksOf(text).map((l) => brokenLink("docs/a.md", l, read));
    expect(found).toEqual([
      undefined,
      "docs/a.md:1: b.md: there is no docs/b.md",
      "docs/a.md:1: a.md#nowhere: docs/a.md has no heading with the anchor #nowhere",
      "docs/a.md:1: ../../x.md leads out of the repository",
      undefined,
      undefined,
    ]);
    // Links inside code are not links.
    expect(linksOf("`[x](nowhere.md)`\n```\n[y](nowhere.md)\n```\n")).toEqual([]);
  });
});
