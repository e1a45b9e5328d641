import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

/** The repository's root. */
export const ROOT = resolve(import.meta.dirname, "../../..");

/** The manual's pages (`docs/*.md`), as paths from the root, sorted. */
export function docsPages(): string[] {
  return readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`);
}

/** Every Markdown page whose links and code blocks are tested: the README, the manual, the changelog and the packages' READMEs. */
export function testedPages(): string[] {
  const packages = readdirSync(join(ROOT, "packages"))
    .map((p) => `packages/${p}/README.md`)
    .filter((p) => existsSync(join(ROOT, p)));
  return ["README.md", ...docsPages(), "CHANGELOG.md", ...packages];
}

/** A fenced code block: its language, its text and the line of its opening fence (1-based). */
export interface CodeBlock {
  page: string;
  lang: string;
  code: string;
  line: number;
  /** What the `<!-- <lang>: … -->` comment on the line before the fence says (`<!-- ts: after … -->`), if there is one. */
  marker?: string;
}

/** The fenced code blocks of a page's text (fences of three backticks at the start of a line). */
export function codeBlocks(page: string, text: string): CodeBlock[] {
  const lines = text.split("\n");
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && l === "```");
    if (end < 0) throw new Error(`${page}:${i + 1}: a code block that is never closed`);
    const lang = open[1]!;
    const said = /^<!-- (\w+): (.+) -->$/.exec(lines[i - 1] ?? "");
    const marker = said?.[1] === lang ? said[2] : undefined;
    blocks.push({ page, lang, code: `${lines.slice(i + 1, end).join("\n")}\n`, line: i + 1, ...(marker ? { marker } : {}) });
    i = end;
  }
  return blocks;
}

/** The page's lines outside code blocks (code lines blanked, so line numbers hold). */
function proseLines(text: string): string[] {
  let inCode = false;
  return text.split("\n").map((line) => {
    if (line.startsWith("```")) {
      inCode = !inCode;
      return "";
    }
    return inCode ? "" : line;
  });
}

/** A link of a page's prose: its target as written and its line. */
export interface Link {
  target: string;
  line: number;
}

/** The inline links `[text](target)` of a page's prose (code blocks and inline code left out). */
export function linksOf(text: string): Link[] {
  return proseLines(text).flatMap((line, i) => [...line.replace(/`[^`]*`/g, "``").matchAll(/\]\(([^)\s]+)\)/g)].map((m) => ({ target: m[1]!, line: i + 1 })));
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of a page's headings, as GitHub makes them (a repeated one gets -1, -2, …). */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of proseLines(text)) {
    const m = /^#{1,6} (.+)$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/**
 * What is wrong with a relative link from `page`: a file that does not exist, or an anchor no
 * heading of the target page has; undefined when it resolves. Links to other sites are not
 * followed (undefined).
 */
export function brokenLink(page: string, link: Link, read: (path: string) => string | undefined = readPage): string | undefined {
  if (/^[a-z][a-z+.-]*:/i.test(link.target)) return undefined;
  const [path, anchor] = link.target.split("#") as [string, string | undefined];
  const file = path === "" ? page : relative(ROOT, resolve(ROOT, page, "..", decodeURIComponent(path)));
  if (file.startsWith("..")) return `${page}:${link.line}: ${link.target} leads out of the repository`;
  const text = read(file);
  if (text === undefined && !existsSync(join(ROOT, file))) return `${page}:${link.line}: ${link.target}: there is no ${file}`;
  if (anchor === undefined) return undefined;
  if (text === undefined) return `${page}:${link.line}: ${link.target}: an anchor into ${file}, which is not a Markdown page`;
  if (!anchorsOf(text).has(anchor)) return `${page}:${link.line}: ${link.target}: ${file} has no heading with the anchor #${anchor}`;
  return undefined;
}

/** A Markdown page's text, or undefined when `path` is not an existing .md file. */
export function readPage(path: string): string | undefined {
  const file = join(ROOT, path);
  return path.endsWith(".md") && existsSync(file) ? readFileSync(file, "utf8") : undefined;
}
