import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { type CodeBlock, ROOT } from "./markdown.js";

/*
 * The ```ts blocks of the README and the manual as TypeScript modules a user would write. A block
 * is a module of its own, unless the HTML comment on the line before its fence says otherwise:
 *
 *   <!-- ts: file examples/x.ts -->        the block is that file, from its first import on (checked)
 *   <!-- ts: after examples/x.ts -->       the block continues that file (its names are in scope)
 *   <!-- ts: after the block above -->     the block continues the page's previous ```ts block
 */

/** Where a module's lines come from: `lines` lines from `start` (0-based, in the module) are `page`'s from `line` (1-based). */
export interface Segment {
  page: string;
  line: number;
  start: number;
  lines: number;
}

/** A snippet module: its text and where each part of it is written. */
export interface SnippetModule {
  text: string;
  segments: Segment[];
  /** For a `file` block: the file it must equal from its first import on. */
  file?: string;
}

const lineCount = (text: string) => text.split("\n").length - 1;

function append(m: SnippetModule, page: string, line: number, text: string): SnippetModule {
  const start = lineCount(m.text);
  return { ...m, text: m.text + text, segments: [...m.segments, { page, line, start, lines: lineCount(text) }] };
}

const EMPTY: SnippetModule = { text: "", segments: [] };

/** The modules of the ```ts blocks of one page, in order (a block that continues the one above extends its module). */
export function snippetModules(blocks: readonly CodeBlock[], readFile = (path: string) => readFileSync(join(ROOT, path), "utf8")): SnippetModule[] {
  const modules: SnippetModule[] = [];
  for (const b of blocks.filter((x) => x.lang === "ts")) {
    const first = b.line + 1;
    const marker = b.marker;
    if (marker === undefined) modules.push(append(EMPTY, b.page, first, b.code));
    else if (marker === "after the block above") {
      const previous = modules.pop();
      if (!previous) throw new Error(`${b.page}:${b.line}: "after the block above", but no \`\`\`ts block is above it`);
      modules.push(append(previous, b.page, first, b.code));
    } else if (marker.startsWith("file ")) {
      modules.push({ ...append(EMPTY, b.page, first, b.code), file: marker.slice(5) });
    } else if (marker.startsWith("after ")) {
      const path = marker.slice(6);
      modules.push(append(append(EMPTY, path, 1, `${readFile(path)}\n`), b.page, first, b.code));
    } else {
      throw new Error(`${b.page}:${b.line}: <!-- ts: ${marker} -->: write "file PATH", "after PATH" or "after the block above"`);
    }
  }
  return modules;
}

/** Where line `index` (0-based) of a module is written, as `page:line`. */
export function sourceOf(m: SnippetModule, index: number): string {
  const s = m.segments.find((x) => index >= x.start && index < x.start + x.lines) ?? m.segments.at(-1)!;
  return `${s.page}:${s.line + index - s.start}`;
}

/** The project's compiler options (the root tsconfig.json), checking only. */
function compilerOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(join(ROOT, "tsconfig.json"), ts.sys.readFile);
  const { options, errors } = ts.convertCompilerOptionsFromJson(config.config.compilerOptions, ROOT);
  if (errors.length) throw new Error(ts.flattenDiagnosticMessageText(errors[0]!.messageText, "\n"));
  return { ...options, noEmit: true, composite: false, declaration: false, sourceMap: false, incremental: false };
}

/**
 * Type-checks the modules as files of the repository (under `dir`, inside it so that
 * `@pincer/controller` and `zod` resolve as they do for a user's files), with the project's
 * compiler options. Returns each error as "page:line: message".
 */
export function typeCheck(modules: readonly SnippetModule[], dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const files = modules.map((m, i) => {
    const file = join(dir, `snippet-${i}.ts`);
    writeFileSync(file, m.text);
    return file;
  });
  const program = ts.createProgram(files, compilerOptions());
  return files.flatMap((file, i) => {
    const source = program.getSourceFile(file)!;
    return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) => {
      const line = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line;
      return `${sourceOf(modules[i]!, line)}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
    });
  });
}
