/**
 * The API reports: for each entry point of @pincer/controller and @pincer/shared, the names it
 * exports with their declaration signatures, written to `packages/<pkg>/api/<entry>.api.md` from
 * the TypeScript sources (no build needed). `npm run api` rewrites them; `--check` fails when one
 * is stale (test/unit/apiReport.test.ts checks the same).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";

const ROOT = resolve(import.meta.dirname, "..");

/** One entry point: the package's subpath, its source file and the report it gets. */
export interface ApiEntry {
  /** The import specifier a user writes, e.g. "@pincer/controller/agents". */
  specifier: string;
  /** The entry's source, relative to the repository root. */
  source: string;
  /** The report, relative to the repository root. */
  report: string;
}

const CONTROLLER_SUBPATHS = ["agents", "datasets", "osworld", "machines", "runner", "queue", "mcp"];

/** Every entry point of the published packages, with its report. */
export const API_ENTRIES: readonly ApiEntry[] = [
  { specifier: "@pincer/shared", source: "packages/shared/src/index.ts", report: "packages/shared/api/index.api.md" },
  { specifier: "@pincer/controller", source: "packages/controller/src/index.ts", report: "packages/controller/api/index.api.md" },
  ...CONTROLLER_SUBPATHS.map((s) => ({
    specifier: `@pincer/controller/${s}`,
    source: `packages/controller/src/${s}.ts`,
    report: `packages/controller/api/${s}.api.md`,
  })),
];

/** The project's compiler options (the root tsconfig.json), checking only. */
function compilerOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(join(ROOT, "tsconfig.json"), ts.sys.readFile);
  const { options, errors } = ts.convertCompilerOptionsFromJson(config.config.compilerOptions, ROOT);
  if (errors.length) throw new Error(ts.flattenDiagnosticMessageText(errors[0]!.messageText, "\n"));
  return { ...options, noEmit: true, composite: false, declaration: false, sourceMap: false, incremental: false, allowJs: true };
}

const TYPE_FLAGS = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType;
const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

/** A declaration as source text without comments, whitespace runs folded to one space. */
function printed(node: ts.Node): string {
  return printer.printNode(ts.EmitHint.Unspecified, node, node.getSourceFile()).replace(/\s+/g, " ").trim();
}

/** Whether a class member is part of the public surface (not private, protected or `#name`). */
function isPublicMember(m: ts.ClassElement): boolean {
  if (m.name && ts.isPrivateIdentifier(m.name)) return false;
  const flags = ts.getCombinedModifierFlags(m as unknown as ts.Declaration);
  return !(flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected));
}

/** A class's signature: its heading and its public members, bodies left out. */
function classLines(checker: ts.TypeChecker, name: string, decl: ts.ClassDeclaration): string[] {
  const heading = printed(ts.factory.updateClassDeclaration(decl, decl.modifiers, decl.name, decl.typeParameters, decl.heritageClauses, []));
  const lines = [heading.replace(/\s*\{\s*\}$/, "").replace(/^export (default )?/, "")];
  if (decl.name && decl.name.text !== name) lines[0] = lines[0]!.replace(`class ${decl.name.text}`, `class ${name}`);
  for (const m of decl.members) {
    if (!isPublicMember(m) || ts.isClassStaticBlockDeclaration(m) || ts.isSemicolonClassElement(m)) continue;
    const isStatic = ts.getCombinedModifierFlags(m as unknown as ts.Declaration) & ts.ModifierFlags.Static ? "static " : "";
    if (ts.isConstructorDeclaration(m)) {
      const sig = checker.getSignatureFromDeclaration(m);
      if (sig) lines.push(`  constructor${checker.signatureToString(sig, undefined, TYPE_FLAGS)}`);
    } else if (ts.isMethodDeclaration(m) || ts.isGetAccessor(m) || ts.isSetAccessor(m)) {
      const sig = checker.getSignatureFromDeclaration(m);
      const prefix = ts.isGetAccessor(m) ? "get " : ts.isSetAccessor(m) ? "set " : "";
      if (sig) lines.push(`  ${isStatic}${prefix}${m.name.getText()}${checker.signatureToString(sig, undefined, TYPE_FLAGS)}`);
    } else if (ts.isPropertyDeclaration(m)) {
      const readonly = ts.getCombinedModifierFlags(m) & ts.ModifierFlags.Readonly ? "readonly " : "";
      const type = checker.typeToString(checker.getTypeAtLocation(m), undefined, TYPE_FLAGS);
      lines.push(`  ${isStatic}${readonly}${m.name.getText()}${m.questionToken ? "?" : ""}: ${type}`);
    }
  }
  return lines;
}

/** A value's signature: a function's overloads, or a constant's type. */
function valueLines(checker: ts.TypeChecker, name: string, symbol: ts.Symbol, decl: ts.Declaration): string[] {
  const type = checker.getTypeOfSymbolAtLocation(symbol, decl);
  if (ts.isFunctionDeclaration(decl)) {
    return type.getCallSignatures().map((sig) => `function ${name}${checker.signatureToString(sig, undefined, TYPE_FLAGS)}`);
  }
  return [`const ${name}: ${checker.typeToString(type, undefined, TYPE_FLAGS)}`];
}

/** The lines one exported name gets in a report. */
function symbolLines(checker: ts.TypeChecker, exported: ts.Symbol): string[] {
  const name = exported.getName();
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const lines: string[] = [];
  for (const decl of symbol.declarations ?? []) {
    if (ts.isClassDeclaration(decl)) lines.push(...classLines(checker, name, decl));
    else if (ts.isInterfaceDeclaration(decl) || ts.isTypeAliasDeclaration(decl) || ts.isEnumDeclaration(decl)) {
      lines.push(printed(decl).replace(/^export (declare )?/, ""));
    } else if (ts.isModuleDeclaration(decl) || ts.isSourceFile(decl)) {
      const names = checker.getExportsOfModule(symbol).map((s) => s.getName());
      lines.push(`namespace ${name} { ${names.sort().join(", ")} }`);
      break;
    } else if (ts.isFunctionDeclaration(decl) || ts.isVariableDeclaration(decl)) {
      if (ts.isFunctionDeclaration(decl) && lines.some((l) => l.startsWith(`function ${name}`))) continue;
      lines.push(...valueLines(checker, name, symbol, decl));
    } else {
      lines.push(`${ts.SyntaxKind[decl.kind]} ${name}`);
    }
  }
  return lines;
}

/** Where a declaration is, for the reader: "src/file.ts". */
function declaredIn(checker: ts.TypeChecker, exported: ts.Symbol, pkgRoot: string): string {
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const file = symbol.declarations?.[0]?.getSourceFile().fileName;
  return file ? relative(pkgRoot, file) : "?";
}

/** One entry's report text. */
function reportOf(program: ts.Program, entry: ApiEntry): string {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(join(ROOT, entry.source));
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`${entry.source}: not a module the compiler can read`);
  const pkgRoot = join(ROOT, entry.source, "../..");
  const exports = checker.getExportsOfModule(moduleSymbol).sort((a, b) => (a.getName() < b.getName() ? -1 : a.getName() > b.getName() ? 1 : 0));
  const blocks = exports.map((s) => [`// ${s.getName()} (${declaredIn(checker, s, pkgRoot)})`, ...symbolLines(checker, s)].join("\n"));
  return [
    `# API report: \`${entry.specifier}\``,
    "",
    `Generated from \`${entry.source}\` by \`npm run api\` (scripts/apiReport.ts); do not edit. ${exports.length} names.`,
    "",
    "```ts",
    blocks.join("\n\n"),
    "```",
    "",
  ].join("\n");
}

/** Every entry's report, by report path (relative to the repository root). */
export function apiReports(entries: readonly ApiEntry[] = API_ENTRIES): Map<string, string> {
  const program = ts.createProgram(
    entries.map((e) => join(ROOT, e.source)),
    compilerOptions(),
  );
  return new Map(entries.map((e) => [e.report, reportOf(program, e)]));
}

/** The reports whose committed text differs from what the sources give. */
export function staleReports(reports: Map<string, string> = apiReports()): string[] {
  return [...reports]
    .filter(([path, text]) => {
      try {
        return readFileSync(join(ROOT, path), "utf8") !== text;
      } catch {
        return true;
      }
    })
    .map(([path]) => path);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const reports = apiReports();
  if (process.argv.includes("--check")) {
    const stale = staleReports(reports);
    if (stale.length) {
      process.stderr.write(`stale API reports: ${stale.join(", ")}: run npm run api\n`);
      process.exit(1);
    }
  } else {
    for (const [path, text] of reports) writeFileSync(join(ROOT, path), text);
  }
}
