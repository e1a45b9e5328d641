import { readdirSync, readFileSync, statSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, test } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const CONTROLLER = join(ROOT, "packages/controller/src");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "generated" ? [] : sources(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/** Every module a source names: static imports, `export … from`, type imports and dynamic imports. */
function importsOf(text: string): string[] {
  return [...text.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)].map((m) => m[1]!);
}

/** The modules a file loads when it is loaded: its static imports (an `import()` in a function waits for its call). */
function staticImportsOf(text: string): string[] {
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|(?:^|\n)\s*import\s*["']([^"']+)["']/g)].map((m) => (m[1] ?? m[2])!);
}

/** The file a relative import names, from the importing file. */
function resolveRelative(from: string, spec: string): string {
  return resolve(dirname(from), spec).replace(/\.js$/, ".ts");
}

/**
 * The controller's layers, lowest first, and the folders each may import (in the spirit of
 * Playwright's DEPS lists). Entry files at the top of src/ (index.ts, agents.ts, …) and cli/ may
 * import anything. A folder missing here is an error: a new folder says where it sits.
 */
const CONTROLLER_DEPS: Record<string, readonly string[]> = {
  env: [],
  actions: ["env"],
  evaluators: ["env", "actions"],
  tasks: ["env", "actions", "evaluators"],
  benchmark: ["env", "actions", "evaluators", "tasks"],
  agents: ["env", "actions", "benchmark"],
  datasets: ["env", "actions", "evaluators", "tasks", "benchmark"],
  machines: ["env"],
  runFolder: ["env", "benchmark"],
  reports: ["runFolder"],
  runner: ["env", "actions", "evaluators", "tasks", "benchmark", "agents", "datasets", "machines", "runFolder", "reports"],
  replay: ["env", "actions", "evaluators", "tasks", "benchmark", "agents", "datasets", "machines", "runFolder", "reports", "runner"],
  health: ["env", "actions", "evaluators", "tasks", "benchmark", "agents", "datasets", "machines", "runFolder", "reports", "runner"],
  episodes: ["env", "actions", "evaluators", "tasks", "benchmark", "agents", "datasets", "machines", "runFolder", "reports", "runner"],
  mcp: ["env", "actions", "agents"],
  live: ["env", "actions", "runFolder", "runner", "episodes"],
  queue: ["env", "actions", "evaluators", "tasks", "benchmark", "agents", "datasets", "machines", "runFolder", "reports", "runner", "health"],
};

/** Where a controller file sits: its top folder under src/, or "" for an entry file. */
function layerOf(file: string): string {
  const parts = relative(CONTROLLER, file).split("/");
  return parts.length === 1 ? "" : parts[0]!;
}

const DATASETS = join(CONTROLLER, "datasets");

/**
 * The folders under datasets/ and the ones each may import ("" is a file at the top of datasets/).
 * pycompat, the Python-compatibility code the formats share, imports nothing of the controller
 * outside itself; OSWorld's format and the JSON format's evaluation functions do not import each
 * other. A folder missing here is an error.
 */
const DATASET_DEPS: Record<string, readonly string[]> = {
  pycompat: [],
  "": ["configFunctions", "evaluationFunctions"],
  configFunctions: [""],
  evaluationFunctions: ["", "pycompat"],
  osworld: ["", "pycompat"],
};

/** Where a datasets/ file sits: its folder under datasets/, "" for a file at its top, undefined outside datasets/. */
function datasetFolderOf(file: string): string | undefined {
  const rel = relative(DATASETS, file);
  if (rel.startsWith("..")) return undefined;
  const parts = rel.split("/");
  return parts.length === 1 ? "" : parts[0]!;
}

/** Imports between datasets/ folders that DATASET_DEPS does not allow (and any import out of pycompat), as "file: import" lines. */
function datasetViolations(files: ReadonlyMap<string, string>, deps: Record<string, readonly string[]>): string[] {
  const out: string[] = [];
  for (const [file, text] of files) {
    const from = datasetFolderOf(file);
    if (from === undefined) continue;
    const allowed = deps[from];
    if (!allowed) {
      out.push(`${relative(ROOT, file)}: folder datasets/${from} has no entry in DATASET_DEPS`);
      continue;
    }
    for (const spec of importsOf(text).filter((s) => s.startsWith("."))) {
      const to = datasetFolderOf(resolveRelative(file, spec));
      const name = (f: string | undefined) => (f === undefined ? "the controller outside datasets/" : f === "" ? "datasets/" : `datasets/${f}`);
      const leaf = from === "pycompat" && to !== "pycompat";
      if (leaf || (to !== undefined && to !== from && !allowed.includes(to)))
        out.push(`${relative(ROOT, file)}: ${spec} (${name(from)} may not import ${name(to)})`);
    }
  }
  return out;
}

/** Imports that cross a layer the DEPS list does not allow, as "file: import" lines. */
function layeringViolations(files: ReadonlyMap<string, string>, deps: Record<string, readonly string[]>): string[] {
  const out: string[] = [];
  for (const [file, text] of files) {
    const from = layerOf(file);
    if (from === "" || from === "cli") continue;
    const allowed = deps[from];
    if (!allowed) {
      out.push(`${relative(ROOT, file)}: folder ${from} has no entry in CONTROLLER_DEPS`);
      continue;
    }
    for (const spec of importsOf(text).filter((s) => s.startsWith("."))) {
      const to = layerOf(resolveRelative(file, spec));
      if (to !== from && !allowed.includes(to)) out.push(`${relative(ROOT, file)}: ${spec} (${from} may not import ${to || "an entry file"})`);
    }
  }
  return out;
}

/** Import cycles among the files (type-only imports count), each as a list of files. */
function importCycles(files: ReadonlyMap<string, string>): string[][] {
  const edges = new Map<string, string[]>();
  for (const [file, text] of files) {
    edges.set(
      file,
      importsOf(text)
        .filter((s) => s.startsWith("."))
        .map((s) => resolveRelative(file, s))
        .filter((t) => files.has(t)),
    );
  }
  const cycles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, "open");
    stack.push(f);
    for (const t of edges.get(f) ?? []) {
      if (state.get(t) === "open") cycles.push(stack.slice(stack.indexOf(t)).map((x) => relative(ROOT, x)));
      else if (!state.has(t)) visit(t);
    }
    stack.pop();
    state.set(f, "done");
  };
  for (const f of files.keys()) if (!state.has(f)) visit(f);
  return cycles;
}

const controllerFiles = () => new Map(sources(CONTROLLER).map((f) => [f, readFileSync(f, "utf8")]));

describe("package boundaries", () => {
  test.each([
    ["controller", ["@pincer/daemon", "/daemon/"]],
    ["daemon", ["@pincer/controller", "/controller/"]],
    ["shared", ["@pincer/daemon", "@pincer/controller", "/daemon/", "/controller/"]],
  ])("%s imports neither side it must not know", (pkg, forbidden) => {
    const files = sources(join(ROOT, "packages", pkg, "src"));
    expect(files.length).toBeGreaterThan(0);
    const offending = files.flatMap((f) =>
      importsOf(readFileSync(f, "utf8"))
        .filter((i) => forbidden.some((x) => i.includes(x)))
        .map((i) => `${f}: ${i}`),
    );
    expect(offending).toEqual([]);
  });

  test("only daemon drivers import nut-js, sharp, execa, x11 or screenshot-desktop (but for the exceptions named)", () => {
    const native = ["@nut-tree-fork/nut-js", "sharp", "execa", "x11", "screenshot-desktop"];
    // The compare_images evaluation function decodes images on the controller, and set-of-marks draws
    // on screenshots there, and a replay compares two runs' screenshots; each loads sharp on first use.
    const drawers = ["/controller/src/datasets/evaluationFunctions/images.ts", "/controller/src/benchmark/marks.ts", "/controller/src/replay/screenDiff.ts"];
    // Image builds and the container and qemu providers run host tools (mmdebstrap, tar, qemu-img, podman);
    // an agent program (pincer run --agent command) is a program of the controller's host.
    const hostTools = ["/controller/src/machines/images/", "/controller/src/machines/", "/controller/src/agents/program.ts"];
    // The Python-compatibility code decodes images as Pillow does, for OSWorld's image metrics.
    const imageMetrics = "/controller/src/datasets/pycompat/";
    const allowed = (f: string, i: string) =>
      (i === "sharp" && (drawers.some((d) => f.endsWith(d)) || f.includes(imageMetrics))) || (i === "execa" && hostTools.some((d) => f.includes(d)));
    const offending = ["shared", "daemon", "controller"].flatMap((pkg) =>
      sources(join(ROOT, "packages", pkg, "src"))
        .filter((f) => !f.includes("/daemon/src/drivers/"))
        .flatMap((f) =>
          importsOf(readFileSync(f, "utf8"))
            .filter((i) => native.includes(i) && !allowed(f, i))
            .map((i) => `${f}: ${i}`),
        ),
    );
    expect(offending).toEqual([]);
  });
});

describe("controller layering", () => {
  test("every folder imports only the layers below it", () => {
    expect(layeringViolations(controllerFiles(), CONTROLLER_DEPS)).toEqual([]);
  });

  test("a planted back-edge is caught: env importing benchmark, and a folder with no DEPS entry", () => {
    const files = controllerFiles();
    const planted = new Map(files);
    const envFile = join(CONTROLLER, "env/mouse.ts");
    planted.set(envFile, `${files.get(envFile)}\nimport type { Benchmark } from "../benchmark/benchmark.js";\n`);
    planted.set(join(CONTROLLER, "newLayer/thing.ts"), `import { connect } from "../env/index.js";\n`);
    expect(layeringViolations(planted, CONTROLLER_DEPS)).toEqual([
      "packages/controller/src/env/mouse.ts: ../benchmark/benchmark.js (env may not import benchmark)",
      "packages/controller/src/newLayer/thing.ts: folder newLayer has no entry in CONTROLLER_DEPS",
    ]);
  });

  test("the dataset formats share the Python-compatibility code and import not each other", () => {
    expect(datasetViolations(controllerFiles(), DATASET_DEPS)).toEqual([]);
  });

  test("planted dataset imports are caught: pycompat importing OSWorld or the controller, OSWorld importing the JSON format's functions, a new folder", () => {
    const files = controllerFiles();
    const planted = new Map(files);
    const regex = join(DATASETS, "pycompat/pyRegex.ts");
    planted.set(regex, `${files.get(regex)}\nimport { show } from "../osworld/metrics/common/outcome.js";\nimport type { Env } from "../../env/index.js";\n`);
    const metric = join(DATASETS, "osworld/metric.ts");
    planted.set(metric, `${files.get(metric)}\nimport { compareCsv } from "../evaluationFunctions/csv.js";\n`);
    planted.set(join(DATASETS, "newFormat/thing.ts"), `import { pyStrip } from "../pycompat/pyStr.js";\n`);
    expect(datasetViolations(planted, DATASET_DEPS)).toEqual([
      "packages/controller/src/datasets/osworld/metric.ts: ../evaluationFunctions/csv.js (datasets/osworld may not import datasets/evaluationFunctions)",
      "packages/controller/src/datasets/pycompat/pyRegex.ts: ../osworld/metrics/common/outcome.js (datasets/pycompat may not import datasets/osworld)",
      "packages/controller/src/datasets/pycompat/pyRegex.ts: ../../env/index.js (datasets/pycompat may not import the controller outside datasets/)",
      "packages/controller/src/datasets/newFormat/thing.ts: folder datasets/newFormat has no entry in DATASET_DEPS",
    ]);
  });

  test.each(["controller", "daemon", "shared"])("no import cycles between the %s package's files (type-only imports included)", (pkg) => {
    const dir = join(ROOT, "packages", pkg, "src");
    const files = new Map(sources(dir).map((f) => [f, readFileSync(f, "utf8")]));
    expect(files.size).toBeGreaterThan(10);
    expect(importCycles(files)).toEqual([]);
  });

  test("a planted cycle is caught", () => {
    const files = new Map([
      [join(CONTROLLER, "agents/a.ts"), `import type { B } from "./b.js";`],
      [join(CONTROLLER, "agents/b.ts"), `import type { A } from "./a.js";`],
    ]);
    expect(importCycles(files)).toEqual([["packages/controller/src/agents/a.ts", "packages/controller/src/agents/b.ts"]]);
  });

  test("the core entry (what `connect` loads) loads no model SDK, MCP SDK or image library (set-of-marks loads sharp when it draws)", () => {
    const heavy = ["openai", "@anthropic-ai/sdk", "@modelcontextprotocol/sdk", "sharp"];
    const files = controllerFiles();
    const seen = new Set<string>();
    const reached: string[] = [];
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const spec of staticImportsOf(files.get(file) ?? "")) {
        if (spec.startsWith(".")) walk(resolveRelative(file, spec));
        else if (heavy.some((h) => spec === h || spec.startsWith(`${h}/`))) reached.push(`${relative(ROOT, file)}: ${spec}`);
      }
    };
    walk(join(CONTROLLER, "index.ts"));
    expect(seen.size).toBeGreaterThan(20);
    expect(reached).toEqual([]);
  });
});

/** Every file a package ships code in: src/ (generated code included), bin/ and native/ scripts. */
function packageCode(pkgDir: string): Map<string, string> {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return e.name === "build" ? [] : walk(path);
      return /\.(?:[cm]?ts|[cm]?js)$/.test(e.name) ? [path] : [];
    });
  const dirs = ["src", "bin", "native"].map((d) => join(pkgDir, d)).filter((d) => statSync(d, { throwIfNoEntry: false })?.isDirectory());
  return new Map(dirs.flatMap(walk).map((f) => [f, readFileSync(f, "utf8")]));
}

/**
 * The packages a file needs at run time or for its types: imports, exports and `import()`
 * (TypeScript's own scanner), `require("name")` and modules found with `….resolve("name")`. Not
 * `X.require("xtest")`: the x11 client's extensions are not packages.
 */
function packagesNamedBy(text: string): string[] {
  const specs = ts.preProcessFile(text, true, false).importedFiles.map((f) => f.fileName);
  for (const m of text.matchAll(/(?<![\w.$])require(?:\.resolve)?\(\s*["']([^"']+)["']|\.resolve\(\s*["']([^"'.][^"']*)["']/g)) specs.push((m[1] ?? m[2])!);
  return specs.filter((s) => !s.startsWith(".") && !s.startsWith("/") && !isBuiltin(s)).map(packageName);
}

/** The package a module specifier names: `@scope/name` or `name`, without a subpath. */
function packageName(spec: string): string {
  const parts = spec.split("/");
  return (spec.startsWith("@") ? parts.slice(0, 2) : parts.slice(0, 1)).join("/");
}

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/**
 * What a package's code uses and its package.json does not declare (devDependencies do not count:
 * an installed package has none), as "name (file…)" lines, and what it declares and no file uses.
 */
function dependencyProblems(manifest: Manifest, code: ReadonlyMap<string, string>): { undeclared: string[]; unused: string[] } {
  const declared = new Set(Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies }));
  const users = new Map<string, string[]>();
  for (const [file, text] of code) {
    for (const name of new Set(packagesNamedBy(text))) {
      if (name !== manifest.name) users.set(name, [...(users.get(name) ?? []), relative(ROOT, file)]);
    }
  }
  const undeclared = [...users]
    .filter(([name]) => !declared.has(name))
    .map(([name, files]) => `${name} (${files[0]}${files.length > 1 ? ` and ${files.length - 1} more` : ""})`);
  return { undeclared, unused: [...declared].filter((d) => !users.has(d)) };
}

const manifestOf = (pkg: string) => JSON.parse(readFileSync(join(ROOT, "packages", pkg, "package.json"), "utf8")) as Manifest;

describe("package dependencies", () => {
  test.each(["shared", "daemon", "controller"])("@pincer/%s declares every package its code imports, and nothing it does not", (pkg) => {
    const code = packageCode(join(ROOT, "packages", pkg));
    expect(code.size).toBeGreaterThan(5);
    expect(dependencyProblems(manifestOf(pkg), code)).toEqual({ undeclared: [], unused: [] });
  });

  test("planted undeclared imports (a type import, import(), require, a resolved path) are caught, and an unused dependency", () => {
    const manifest: Manifest = { name: "@pincer/planted", dependencies: { "@grpc/grpc-js": "1.14.7", "left-pad": "^1.3.0" }, peerDependencies: { zod: "^4" } };
    const code = new Map([
      [
        join(ROOT, "packages/planted/src/a.ts"),
        'import type { Options } from "@sindresorhus/is/types";\nimport * as grpc from "@grpc/grpc-js";\nexport const z = await import("zod");\n',
      ],
      [join(ROOT, "packages/planted/src/b.ts"), 'export * from "@pincer/planted/sub";\nexport { x } from "./a.js";\nimport "node:fs";\nimport "fs";\n'],
      [
        join(ROOT, "packages/planted/bin/c.js"),
        'createRequire(import.meta.url).resolve("@pincer/daemon/package.json");\nrequire("x11");\nX.require("xtest", cb);\n',
      ],
      [join(ROOT, "packages/planted/bin/d.js"), 'const x11 = require("x11/lib/stdatoms");\n'],
    ]);
    expect(dependencyProblems(manifest, code)).toEqual({
      undeclared: ["@sindresorhus/is (packages/planted/src/a.ts)", "@pincer/daemon (packages/planted/bin/c.js)", "x11 (packages/planted/bin/c.js and 1 more)"],
      unused: ["left-pad"],
    });
  });
});
