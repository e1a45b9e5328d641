import { existsSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { basename, extname, isAbsolute, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { type DatasetFormat, type DatasetTask, type FormatContext, isUnsupported, type TaskFile, type UnsupportedTask } from "./format.js";
import type { Registries } from "./registries.js";
import type { DatasetProblem } from "./taskFiles.js";

export type { DatasetFormat, DatasetTask, FormatBuildInput, FormatContext, TaskFile, UnsupportedTask } from "./format.js";
export type { JsonDatasetTask } from "./jsonTasks.js";
export type { ModuleDatasetTask } from "./moduleFormat.js";
export type { DatasetProblem } from "./taskFiles.js";

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

const SKIP_DIRS = new Set(["node_modules", ".git", "results", "dist"]);
/** Largest JSON file parsed to see whether a format claims it (task files are a few kB). */
const MAX_TASK_JSON_BYTES = 2 * 1024 * 1024;

/** Every file under `root` (or `root` itself when it is a file), folders sorted, at most 6 deep. */
async function filesUnder(root: string): Promise<string[]> {
  if ((await stat(root)).isFile()) return [root];
  const found: string[] = [];
  const walk = async (dir: string, depth: number) => {
    if (depth > 6) return;
    for (const e of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, e.name);
      if (e.isDirectory() && !SKIP_DIRS.has(e.name) && !e.name.startsWith(".")) await walk(path, depth + 1);
      else if (e.isFile()) found.push(path);
    }
  };
  await walk(root, 0);
  return found;
}

/** A file as formats see it: its JSON parsed once, on first asking, and only for a small `.json` file. */
function taskFile(path: string, root: string): TaskFile {
  let parsed: Promise<unknown> | undefined;
  const json = async () => {
    if (extname(path) !== ".json" || (await stat(path)).size > MAX_TASK_JSON_BYTES) return undefined;
    try {
      return JSON.parse(await readFile(path, "utf8"));
    } catch {
      return undefined;
    }
  };
  return { path, root, json: () => (parsed ??= json()) };
}

/** The import of a module file, with a hint for TypeScript where no loader was given. */
async function importFile(file: string): Promise<unknown> {
  try {
    return await import(pathToFileURL(file).href);
  } catch (err) {
    if (!/\.[cm]?ts$/.test(file)) throw err;
    throw new Error(`${(err as Error).message} (TypeScript task modules need a loader: run with node --import tsx, or use the pincer CLI)`, { cause: err });
  }
}

/** The first registered format that claims `file`. */
async function formatOf(file: TaskFile, formats: readonly DatasetFormat[]): Promise<DatasetFormat | undefined> {
  for (const f of formats) if (await f.claims(file)) return f;
  return undefined;
}

/**
 * Loads and validates every task under `root`, each file read by the first registered format that
 * claims it (`registries.formats`: the JSON task format, task modules, and any added). Problems do
 * not stop loading: each is reported with its file and JSON path, and tasks with errors are left
 * out of `tasks`.
 */
export async function loadDataset(root: string, registries: Registries, opts: LoadDatasetOptions = {}): Promise<Dataset> {
  const abs = resolve(root);
  const problems: DatasetProblem[] = [];
  if (!existsSync(abs)) {
    return { root: abs, tasks: [], unsupported: [], problems: [{ file: abs, path: "", message: "no such file or directory", severity: "error" }] };
  }
  const formats = registries.formats.list();
  const ctx: FormatContext = { problems, registries, importModule: opts.importModule ?? importFile };
  const loaded: DatasetTask[] = [];
  /** Ids (from their file names) of tasks left out for their errors. */
  const rejected = new Set<string>();
  const unsupported: UnsupportedTask[] = [];
  for (const path of await filesUnder(abs)) {
    const file = taskFile(path, abs);
    const format = await formatOf(file, formats);
    if (!format) continue;
    const before = problems.filter((p) => p.severity === "error").length;
    const t = await format.load(file, ctx);
    if (t === undefined || problems.filter((p) => p.severity === "error").length !== before) {
      rejected.add(basename(path).replace(/(\.task\.[cm]?[jt]s|\.json)$/, ""));
    } else if (isUnsupported(t)) unsupported.push(t);
    else loaded.push(t);
  }
  if (loaded.length === 0 && unsupported.length === 0 && problems.length === 0) {
    const kinds = formats.map((f) => f.description).join("; ");
    problems.push({ file: abs, path: "", message: `no tasks found: expected ${kinds}`, severity: "error" });
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
  missing: Array<UnsupportedTask["needs"][number] & { tasks: number }>;
}

/** Counts a loaded dataset's tasks by group, and the functions the unsupported ones need. */
export function coverageOf(dataset: Dataset): Coverage {
  const counts = new Map<string, UnsupportedTask["needs"][number] & { tasks: number }>();
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

/** A path as a person reads it: relative below `cwd`, absolute elsewhere (not ../../…). */
export function shownPath(path: string, cwd = process.cwd()): string {
  const rel = relative(cwd, path);
  return rel.startsWith("..") || isAbsolute(rel) ? resolve(cwd, path) : rel || ".";
}

/** Formats problems one per line: `file:path: severity: message`. */
export function formatProblems(problems: readonly DatasetProblem[], cwd = process.cwd()): string {
  return problems.map((p) => `${shownPath(p.file, cwd)}${p.path ? `:${p.path}` : ""}: ${p.severity}: ${p.message}`).join("\n");
}
