import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, test } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const CONTROLLER = join(ROOT, "packages/controller/src");
const MAX_FUNCTION_LINES = 80;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "generated" ? [] : sources(path);
    return path.endsWith(".ts") && !path.endsWith(".d.ts") ? [path] : [];
  });
}

/** Functions (declarations, methods, arrows with a body) longer than `max` lines, as "file:line (n lines)". */
function longFunctions(file: string, text: string, max: number): string[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = src.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = src.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (last - first + 1 > max) out.push(`${relative(ROOT, file)}:${first + 1} (${last - first + 1} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return out;
}

/** Tracked source files (TypeScript and JavaScript) outside generated code. */
function trackedSources(): string[] {
  const out = execFileSync("git", ["ls-files", "*.ts", "*.mts", "*.mjs", "*.js"], { cwd: ROOT, encoding: "utf8" });
  return out.split("\n").filter((f) => f && !f.includes("/generated/"));
}

describe("code shape", () => {
  test("no source line is longer than 160 characters (the formatter's width; it cannot break strings)", () => {
    const files = trackedSources();
    expect(files.length).toBeGreaterThan(100);
    const long = files.flatMap((f) =>
      readFileSync(join(ROOT, f), "utf8")
        .split("\n")
        .flatMap((line, i) => (line.length > 160 ? [`${f}:${i + 1} (${line.length})`] : [])),
    );
    expect(long).toEqual([]);
  });

  test(`no function in packages/controller/src is longer than ${MAX_FUNCTION_LINES} lines`, () => {
    expect(sources(CONTROLLER).flatMap((f) => longFunctions(f, readFileSync(f, "utf8"), MAX_FUNCTION_LINES))).toEqual([]);
  });

  test("the length check catches a long function", () => {
    const body = Array.from({ length: MAX_FUNCTION_LINES }, (_, i) => `  const v${i} = ${i};`).join("\n");
    expect(longFunctions(join(CONTROLLER, "x.ts"), `export function big() {\n${body}\n}\n`, MAX_FUNCTION_LINES)).toEqual([
      `packages/controller/src/x.ts:1 (${MAX_FUNCTION_LINES + 2} lines)`,
    ]);
  });

  test("every export of the controller's entry points has TSDoc", () => {
    const entries = ["index", "agents", "datasets", "osworld", "machines", "runner", "queue", "mcp"].map((n) => join(CONTROLLER, `${n}.ts`));
    const program = ts.createProgram(entries, {
      module: ts.ModuleKind.Node16,
      moduleResolution: ts.ModuleResolutionKind.Node16,
      target: ts.ScriptTarget.ES2022,
      customConditions: ["@pincer/source"],
      strict: true,
      skipLibCheck: true,
      noEmit: true,
    });
    const checker = program.getTypeChecker();
    const undocumented: string[] = [];
    for (const entry of entries) {
      const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
      const exports = checker.getExportsOfModule(module);
      expect(exports.length, entry).toBeGreaterThan(3);
      for (const symbol of exports) {
        const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
        if (target.getDocumentationComment(checker).length === 0) undocumented.push(`${relative(CONTROLLER, entry)}: ${symbol.name}`);
      }
    }
    expect(undocumented).toEqual([]);
  }, 60_000);
});
