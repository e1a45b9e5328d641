import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve } from "node:path";
import { findTaskFiles, groupOf, NOT_JSON, readJson, toolOf, type DatasetProblem } from "./taskFiles.js";
import { checkOsworldArguments, looksLikeOsworld, missingFunctions, osworldTaskSchema, type OsworldFunction, type OsworldTaskJson } from "./osworldFormat.js";
import { hasPyFloat, pyJsonParse } from "./osworld/metrics/common/pyJson.js";
import { checkSolutionSteps, type TaskEnvironments } from "./solutionCheck.js";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import type { StepCall } from "../benchmark/types.js";
import { jsonPath, jsonTaskSchema, translateLegacySpelling, type HelperCall, type JsonTask } from "./jsonFormat.js";
import type { TaskModule } from "./moduleTask.js";
import type { ConfigRegistry, EvaluationRegistry } from "./helpers.js";

export type { DatasetProblem } from "./taskFiles.js";

interface LoadedBase {
  id: string;
  /** The group folder (`examples/<tool>/<id>/`), used in result paths and reports. */
  tool: string;
  /** The task's folder; `local_*` paths resolve against it. */
  dir: string;
  file: string;
  instruction: string;
  tags: string[];
  relatedApps: string[];
  actionNumber?: number;
  counterpart?: string;
  solution?: StepCall[];
}

/** A task from a JSON file of the dataset format. */
export interface JsonDatasetTask extends LoadedBase {
  kind: "json";
  json: JsonTask;
}

/** A task from a `*.task.ts` module. */
export interface ModuleDatasetTask extends LoadedBase {
  kind: "module";
  module: TaskModule;
}

/** A task of OSWorld's format (`<app>/<uuid>.json`) whose every function Pincer implements. */
export interface OsworldDatasetTask extends LoadedBase {
  kind: "osworld";
  json: OsworldTaskJson;
}

/** A task of a dataset, from a JSON file (Pincer's or OSWorld's format) or a task module; `kind` tells which. */
export type DatasetTask = JsonDatasetTask | ModuleDatasetTask | OsworldDatasetTask;

/** Options of {@link loadDataset}. */
export interface LoadDatasetOptions {
  /**
   * Imports a task module file. The `pincer` CLI passes one that first lets Node import TypeScript
   * and resolve `@pincer/controller` and zod from any folder. @default the file's `import()`
   */
  importModule?: (file: string) => Promise<unknown>;
}

/** A loaded dataset: the tasks that are valid, and the problems found in all of them. */
export interface Dataset {
  /** The folder (or single task file) loaded, as an absolute path. */
  root: string;
  /** The valid tasks Pincer can run. */
  tasks: DatasetTask[];
  /** Valid tasks that name functions Pincer does not implement yet: left out of runs, never skipped silently. */
  unsupported: UnsupportedTask[];
  problems: DatasetProblem[];
}

/** A valid task Pincer cannot run yet, and what it needs. */
export interface UnsupportedTask {
  file: string;
  id: string;
  tool: string;
  /** The dataset format it is written in. */
  format: "osworld";
  needs: OsworldFunction[];
}

const solutionCallSchema = z.union([
  z.object({ tool: z.string().min(1), args: z.record(z.string(), z.unknown()).optional() }).strict(),
  z.object({ env: z.string().min(1), action: z.string().min(1), args: z.record(z.string(), z.unknown()).optional() }).strict(),
]);
const solutionSchema = z.array(solutionCallSchema);

/** Reads a solution: `solution.json` in a task's folder, or the file given. */
async function loadSolution(dirOrFile: string, problems: DatasetProblem[]): Promise<StepCall[] | undefined> {
  const file = dirOrFile.endsWith(".json") ? dirOrFile : join(dirOrFile, "solution.json");
  if (!existsSync(file)) return undefined;
  const raw = await readJson(file, problems);
  if (raw === NOT_JSON) return undefined;
  const parsed = solutionSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      problems.push({
        file,
        path: jsonPath(issue.path),
        message: `${issue.message}; a solution is a list of {"tool": "env__action", "args": {...}}`,
        severity: "error",
      });
    }
    return undefined;
  }
  return parsed.data;
}

function checkHelperCall(
  call: HelperCall,
  path: string,
  registry: ConfigRegistry | EvaluationRegistry,
  ctx: { file: string; dir: string; problems: DatasetProblem[]; evaluations?: EvaluationRegistry },
): void {
  const helper = registry.get(call.func);
  if (!helper) {
    ctx.problems.push({
      file: ctx.file,
      path: `${path}.func`,
      message: `unknown ${registry.kind} function ${JSON.stringify(call.func)}; known: ${registry.names().join(", ")}`,
      severity: "error",
    });
    return;
  }
  const parsed = helper.args.safeParse(call.arguments);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const where = jsonPath([...path.split("."), "arguments", ...issue.path]);
      ctx.problems.push({ file: ctx.file, path: where, message: `${call.func}: ${issue.message}`, severity: "error" });
    }
  }
  for (const [key, value] of Object.entries(call.arguments)) {
    if (!key.startsWith("local_")) continue;
    for (const [i, p] of (Array.isArray(value) ? value : [value]).entries()) {
      if (typeof p === "string" && !existsSync(resolve(ctx.dir, p))) {
        const where = `${path}.arguments.${key}${Array.isArray(value) ? `[${i}]` : ""}`;
        ctx.problems.push({ file: ctx.file, path: where, message: `local file ${p} does not exist (looked in ${ctx.dir})`, severity: "error" });
      }
    }
  }
  // all/any name their parts in `evaluators`: check those too.
  const parts = (call.arguments as { evaluators?: unknown }).evaluators;
  if (ctx.evaluations && Array.isArray(parts)) {
    parts.forEach((part, i) => {
      const p = z.object({ func: z.string(), arguments: z.record(z.string(), z.unknown()).default({}) }).safeParse(part);
      if (p.success) checkHelperCall(p.data, `${path}.arguments.evaluators[${i}]`, ctx.evaluations!, ctx);
    });
  }
}

async function loadJsonTask(
  file: string,
  root: string,
  registries: { configs: ConfigRegistry; evaluations: EvaluationRegistry },
  problems: DatasetProblem[],
): Promise<JsonDatasetTask | undefined> {
  const dir = dirname(file);
  const raw = await readJson(file, problems);
  if (raw === NOT_JSON) return undefined;
  const { value, translated } = translateLegacySpelling(raw);
  for (const path of translated) {
    problems.push({
      file,
      path,
      message: 'old {"type", "parameters"} spelling, read as {"func", "arguments"}; rewrite it to the current spelling',
      severity: "warning",
    });
  }
  const parsed = jsonTaskSchema.safeParse(value);
  const ctx = { file, dir, problems, evaluations: registries.evaluations };
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push({ file, path: jsonPath(issue.path), message: issue.message, severity: "error" });
    // Every other problem too, at once: the parts that have the right shape are checked as usual.
    checkParts(value, file, registries, ctx);
    const solution = await loadSolution(dir, problems);
    if (solution) checkSolutionSteps(partialTask(value, dir), solution, join(dir, "solution.json"), problems);
    return undefined;
  }
  const json = parsed.data;
  checkParts(json, file, registries, ctx);
  const task: JsonDatasetTask = {
    kind: "json",
    id: json.id,
    tool: toolOf(root, dir),
    dir,
    file,
    instruction: json.instruction,
    tags: json.tags,
    relatedApps: json.related_apps,
    ...(json.action_number !== undefined ? { actionNumber: json.action_number } : {}),
    ...(json.counterpart !== undefined ? { counterpart: json.counterpart } : {}),
    ...(await loadSolution(dir, problems).then((s) => (s ? { solution: s } : {}))),
    json,
  };
  if (task.solution) checkSolutionSteps(task, task.solution, join(dir, "solution.json"), problems);
  return task;
}

/**
 * A task file outside a folder of its own: an OSWorld task (validated; runnable when Pincer has
 * every function it names, else listed with what it needs; its solution is `<uuid>.solution.json`
 * beside it), or a GUI-OS task in the wrong place (an error saying where it goes).
 */
async function loadFlatTask(file: string, root: string, problems: DatasetProblem[]): Promise<OsworldDatasetTask | UnsupportedTask | undefined> {
  const raw = await readJson(file, problems);
  if (raw === NOT_JSON) return undefined;
  if (!looksLikeOsworld(raw)) {
    const id = basename(file, ".json");
    problems.push({
      file,
      path: "",
      message: `a task in Pincer's format goes in a folder of its own: move it to ${join(dirname(file), id, `${id}.json`)} with its files`,
      severity: "error",
    });
    return undefined;
  }
  const parsed = osworldTaskSchema.safeParse(withPythonRules(raw, await readFile(file, "utf8")));
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push({ file, path: jsonPath(issue.path), message: issue.message, severity: "error" });
    return undefined;
  }
  const json = parsed.data;
  if (!osworldFileNameFits(basename(file, ".json"), json.id)) {
    problems.push({
      file,
      path: "id",
      message: `id ${JSON.stringify(json.id)} differs from the file name; name the file <id>.json (or <id>-<suffix>.json)`,
      severity: "error",
    });
    return undefined;
  }
  const args = checkOsworldArguments(json);
  for (const p of args.problems) problems.push({ file, path: p.path, message: p.message, severity: "error" });
  for (const p of args.warnings) problems.push({ file, path: p.path, message: p.message, severity: "warning" });
  if (args.problems.length > 0) return undefined;
  const tool = groupOf(root, dirname(file));
  const needs = missingFunctions(json, args.needs);
  if (needs.length > 0) return { file, id: json.id, tool, format: "osworld", needs };
  const solutionFile = file.replace(/\.json$/, ".solution.json");
  const solution = await loadSolution(solutionFile, problems);
  const task: OsworldDatasetTask = {
    kind: "osworld",
    id: json.id,
    tool,
    dir: dirname(file),
    file,
    instruction: json.instruction,
    tags: [],
    relatedApps: json.related_apps,
    ...(solution ? { solution } : {}),
    json,
  };
  if (solution) checkSolutionSteps(task, solution, solutionFile, problems);
  return task;
}

/**
 * The task with its `rule` getters' rules as Python's json reads them (a whole float such as `5.0`
 * stays a float, which metrics like literal_match tell from an int); the rest as JSON.parse reads it.
 */
function withPythonRules(raw: unknown, text: string): unknown {
  const py = pyJsonParse(text) as { evaluator?: Record<string, unknown> };
  const ev = (raw as { evaluator?: Record<string, unknown> }).evaluator;
  if (!ev || typeof ev !== "object" || !py.evaluator) return raw;
  const out = { ...ev };
  for (const key of ["result", "expected"] as const) {
    const keep = (g: unknown, p: unknown) =>
      g && typeof g === "object" && (g as { type?: unknown }).type === "rule" && hasPyFloat((p as { rules?: unknown }).rules)
        ? { ...g, rules: (p as { rules: unknown }).rules }
        : g;
    const v = ev[key];
    const p = py.evaluator[key];
    out[key] = Array.isArray(v) ? v.map((g, i) => keep(g, (p as unknown[])[i])) : keep(v, p);
  }
  return { ...(raw as object), evaluator: out };
}

/**
 * An OSWorld task file is named after its id, possibly with a suffix after a separator: OSWorld's
 * variants of one task (`<uuid>-win.json` for Windows) keep the task's id.
 */
function osworldFileNameFits(name: string, id: string): boolean {
  return name === id || (name.startsWith(id) && /^[-_.]./.test(name.slice(id.length)));
}

/** As much of a JSON task as its solution's check needs (its folder and environment names), from a task that does not fit the schema. */
function partialTask(value: unknown, dir: string): TaskEnvironments {
  const v = (value ?? {}) as { config?: unknown; evaluation?: unknown };
  const envOf = (c: unknown) => (c && typeof c === "object" && typeof (c as { env?: unknown }).env === "string" ? (c as { env: string }).env : undefined);
  const config = (Array.isArray(v.config) ? v.config : []).map((c) => ({ env: envOf(c) }));
  return { kind: "json", dir, json: { config, evaluation: { env: envOf(v.evaluation) } } };
}

const helperCallShape = z.object({ func: z.string(), arguments: z.record(z.string(), z.unknown()).default({}) });

/** The id against the file name, and each config entry and the evaluation that has the shape of a helper call. */
function checkParts(
  value: unknown,
  file: string,
  registries: { configs: ConfigRegistry; evaluations: EvaluationRegistry },
  ctx: Parameters<typeof checkHelperCall>[3],
): void {
  const v = (value ?? {}) as { id?: unknown; config?: unknown; evaluation?: unknown };
  if (typeof v.id === "string" && v.id !== basename(file, ".json")) {
    ctx.problems.push({
      file,
      path: "id",
      message: `id ${JSON.stringify(v.id)} differs from the file name; name the file <id>.json in a folder <id>/`,
      severity: "error",
    });
  }
  if (Array.isArray(v.config)) {
    v.config.forEach((c, i) => {
      const call = helperCallShape.safeParse(c);
      if (call.success) checkHelperCall(call.data, `config[${i}]`, registries.configs, ctx);
    });
  }
  const evaluation = helperCallShape.safeParse(v.evaluation);
  if (evaluation.success) checkHelperCall(evaluation.data, "evaluation", registries.evaluations, ctx);
}

const importFile = (file: string): Promise<unknown> => import(pathToFileURL(file).href);

async function loadModuleTask(
  file: string,
  root: string,
  problems: DatasetProblem[],
  importModule: (file: string) => Promise<unknown>,
): Promise<ModuleDatasetTask | undefined> {
  let mod: { default?: TaskModule };
  try {
    mod = (await importModule(file)) as { default?: TaskModule };
  } catch (err) {
    const hint =
      importModule === importFile && file.endsWith("ts") ? " (TypeScript task modules need a loader: run with node --import tsx, or use the pincer CLI)" : "";
    problems.push({ file, path: "", message: `cannot load: ${(err as Error).message}${hint}`, severity: "error" });
    return undefined;
  }
  const m = mod.default;
  if (!m || typeof m.id !== "string" || typeof m.instruction !== "string" || typeof m.build !== "function") {
    problems.push({ file, path: "", message: "the default export must be defineTask({ id, instruction, build, ... })", severity: "error" });
    return undefined;
  }
  const solution = m.solution ? solutionSchema.safeParse(m.solution) : undefined;
  if (solution && !solution.success) {
    for (const issue of solution.error.issues)
      problems.push({ file, path: `solution${jsonPath(issue.path) ? `.${jsonPath(issue.path)}` : ""}`, message: issue.message, severity: "error" });
  }
  const dir = dirname(file);
  const task: ModuleDatasetTask = {
    kind: "module",
    id: m.id,
    // examples/<tool>/x.task.ts → <tool>; a module in the folder given, or given itself → its folder's name.
    tool: groupOf(root, dir),
    dir,
    file,
    instruction: m.instruction,
    tags: m.tags ?? [],
    relatedApps: m.related_apps ?? [],
    ...(m.action_number !== undefined ? { actionNumber: m.action_number } : {}),
    ...(m.counterpart !== undefined ? { counterpart: m.counterpart } : {}),
    ...(m.solution ? { solution: m.solution } : {}),
    module: m,
  };
  if (solution?.success) {
    const found: DatasetProblem[] = [];
    checkSolutionSteps(task, solution.data, file, found);
    problems.push(...found.map((p) => ({ ...p, path: `solution${p.path}` })));
  }
  return task;
}

/**
 * Loads and validates every task under `root`. Problems do not stop loading: each is reported with
 * its file and JSON path, and tasks with errors are left out of `tasks`.
 */
export async function loadDataset(
  root: string,
  registries: { configs: ConfigRegistry; evaluations: EvaluationRegistry },
  opts: LoadDatasetOptions = {},
): Promise<Dataset> {
  const abs = resolve(root);
  const problems: DatasetProblem[] = [];
  if (!existsSync(abs)) {
    return { root: abs, tasks: [], unsupported: [], problems: [{ file: abs, path: "", message: "no such file or directory", severity: "error" }] };
  }
  const loaded: DatasetTask[] = [];
  /** Ids (from their file names) of tasks left out for their errors. */
  const rejected = new Set<string>();
  const unsupported: UnsupportedTask[] = [];
  for (const file of await findTaskFiles(abs)) {
    const before = problems.filter((p) => p.severity === "error").length;
    if (file.endsWith(".json") && basename(file) !== `${basename(dirname(file))}.json`) {
      const t = await loadFlatTask(file, abs, problems);
      const ok = t && problems.filter((p) => p.severity === "error").length === before;
      if (ok && "kind" in t) loaded.push(t);
      else if (ok && t) unsupported.push(t as UnsupportedTask);
      else rejected.add(basename(file, ".json"));
      continue;
    }
    const task = file.endsWith(".json")
      ? await loadJsonTask(file, abs, registries, problems)
      : await loadModuleTask(file, abs, problems, opts.importModule ?? importFile);
    if (task && problems.filter((p) => p.severity === "error").length === before) loaded.push(task);
    else rejected.add(basename(file).replace(/(\.task\.[cm]?[jt]s|\.json)$/, ""));
  }
  if (loaded.length === 0 && unsupported.length === 0 && problems.length === 0) {
    problems.push({ file: abs, path: "", message: "no tasks found: expected <tool>/<id>/<id>.json folders or *.task.ts modules", severity: "error" });
  }
  // Ids are unique; counterparts point back.
  const byId = new Map<string, DatasetTask>();
  for (const t of loaded) {
    const other = byId.get(t.id);
    if (other) problems.push({ file: t.file, path: "id", message: `duplicate id ${t.id} (also in ${other.file})`, severity: "error" });
    else byId.set(t.id, t);
  }
  for (const t of loaded) checkCounterpart(t, byId, rejected, problems);
  const bad = new Set(problems.filter((p) => p.severity === "error" && p.path === "counterpart").map((p) => p.file));
  const dupes = new Set(problems.filter((p) => p.message.startsWith("duplicate id")).map((p) => p.file));
  return { root: abs, tasks: loaded.filter((t) => !bad.has(t.file) && !dupes.has(t.file)), unsupported, problems };
}

/**
 * A task's counterpart: itself is an error of that task; a partner that names itself, was
 * rejected or is missing is a warning (the task still runs); a partner that names a third task is
 * an error, since one of the two is wrong.
 */
function checkCounterpart(t: DatasetTask, byId: ReadonlyMap<string, DatasetTask>, rejected: ReadonlySet<string>, problems: DatasetProblem[]): void {
  if (!t.counterpart) return;
  const add = (message: string, severity: "error" | "warning") => problems.push({ file: t.file, path: "counterpart", message, severity });
  if (t.counterpart === t.id) {
    add("the task names itself as its counterpart: set counterpart to the id of its twin in the other instruction style, or remove it", "error");
    return;
  }
  const other = byId.get(t.counterpart);
  if (!other) {
    if (rejected.has(t.counterpart)) add(`counterpart ${t.counterpart} was rejected for its errors (listed under its file), so it will not run`, "warning");
    else add(`counterpart ${t.counterpart} is not in this dataset`, "warning");
  } else if (other.counterpart === other.id) {
    add(`counterpart ${t.counterpart} names itself as its counterpart, not this task; fix its counterpart field`, "warning");
  } else if (other.counterpart !== t.id) {
    add(`counterpart ${t.counterpart} does not point back (its counterpart is ${other.counterpart ? JSON.stringify(other.counterpart) : "unset"})`, "error");
  }
}

/** How much of a dataset Pincer can run: the three groups `validate` prints. */
export interface Coverage {
  /** Valid tasks Pincer can run. */
  supported: number;
  /** Valid tasks that need functions Pincer lacks. */
  unsupported: number;
  /** Task files with errors. */
  invalid: number;
  /** Each function Pincer lacks, with how many tasks need it, most needed first. */
  missing: Array<OsworldFunction & { tasks: number }>;
}

/** Counts a loaded dataset's tasks by group, and the functions the unsupported ones need. */
export function coverageOf(dataset: Dataset): Coverage {
  const counts = new Map<string, OsworldFunction & { tasks: number }>();
  for (const u of dataset.unsupported) {
    for (const f of u.needs) {
      const key = `${f.kind}:${f.name}`;
      counts.set(key, { ...f, tasks: (counts.get(key)?.tasks ?? 0) + 1 });
    }
  }
  const invalid = new Set(dataset.problems.filter((p) => p.severity === "error").map((p) => p.file.replace(/\/solution\.json$/, "")));
  return {
    supported: dataset.tasks.length,
    unsupported: dataset.unsupported.length,
    invalid: invalid.size,
    missing: [...counts.values()].sort((a, b) => b.tasks - a.tasks || a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name)),
  };
}

/** Formats problems one per line: `file:path: severity: message`. */
export function formatProblems(problems: readonly DatasetProblem[], cwd = process.cwd()): string {
  return problems.map((p) => `${relative(cwd, p.file) || p.file}${p.path ? `:${p.path}` : ""}: ${p.severity}: ${p.message}`).join("\n");
}
