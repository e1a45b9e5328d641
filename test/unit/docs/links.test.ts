import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { anchorsOf, brokenLink, docsPages, type Link, linksOf, ROOT, testedPages } from "./markdown.js";

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
    expect(README).toContain("\nbash scripts/install-system-deps.sh test && npm ci && npm test\n");
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

/**
 * What is wrong with a relative link of a package's README as npm packs it: a target outside the
 * package, or one its `files` leave out of the tarball (npm always packs README.md and package.json).
 */
function unpackedLink(pkgDir: string, files: readonly string[], link: Link): string | undefined {
  if (/^[a-z][a-z+.-]*:/i.test(link.target) || link.target.startsWith("#")) return undefined;
  const target = relative(pkgDir, resolve(pkgDir, decodeURIComponent(link.target.split("#")[0]!)));
  if (target.startsWith("..")) return `${link.target} is outside the package`;
  const packed = ["README.md", "package.json", ...files].some((f) => target === f || target.startsWith(`${f}/`));
  return packed ? undefined : `${link.target} is not in the package's "files"`;
}

describe("the packages' READMEs, which npm packs into each tarball", () => {
  test("link nothing the tarball lacks (a link out of the package would not resolve on npm or in node_modules)", () => {
    // The npm workspaces (packages/python is a Python package, not packed by npm).
    const { workspaces } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { workspaces: string[] };
    const broken = workspaces
      .map((w) => w.replace(/^packages\//, ""))
      .flatMap((p) => {
        const dir = join(ROOT, "packages", p);
        const { files } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { files: string[] };
        return linksOf(readFileSync(join(dir, "README.md"), "utf8")).flatMap((l) => {
          const why = unpackedLink(dir, files, l);
          return why ? [`packages/${p}/README.md:${l.line}: ${why}`] : [];
        });
      });
    expect(broken).toEqual([]);
  });

  test("the check finds a link out of the package and one to a file that is not packed", () => {
    const dir = join(ROOT, "packages", "daemon");
    const found = linksOf("[a](../../docs/daemon.md) [b](native/spawner.c) [c](src/main.ts) [d](https://example.com/x.md) [e](#top)").map((l) =>
      unpackedLink(dir, ["dist", "native/spawner.c"], l),
    );
    expect(found).toEqual(["../../docs/daemon.md is outside the package", undefined, 'src/main.ts is not in the package\'s "files"', undefined, undefined]);
  });
});
