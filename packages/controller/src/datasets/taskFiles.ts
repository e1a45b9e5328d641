import { readdir, readFile, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative } from "node:path";

/**
 * Finding a dataset's task files and reading JSON with located errors: what the loader and its
 * format readers share.
 */

/** One thing wrong (or worth knowing) about a dataset, located by file and JSON path. */
export interface DatasetProblem {
  file: string;
  /** JSON path inside the file (`config[1].arguments.local_path`), empty for the whole file. */
  path: string;
  message: string;
  severity: "error" | "warning";
}

/** The endings of task module files (`*.task.ts` …), which the module format claims. */
export const MODULE_SUFFIXES: readonly string[] = [".task.ts", ".task.mts", ".task.js", ".task.mjs"];
const SKIP_DIRS = new Set(["node_modules", ".git", "results", "dist"]);

/** Largest JSON file looked into for an OSWorld task (task files are a few kB). */
const MAX_TASK_JSON_BYTES = 2 * 1024 * 1024;

/**
 * Finds task files under `root`: `<id>/<id>.json` folders, `*.task.{ts,js}` modules, and JSON files
 * in a folder of their own kind, as OSWorld lays them out (`<app>/<uuid>.json`: read to see that
 * they are tasks, with an `evaluator` or an `evaluation`).
 */
export async function findTaskFiles(root: string): Promise<string[]> {
  const st = await stat(root);
  if (st.isFile()) return [root];
  const found: string[] = [];
  const walk = async (dir: string, depth: number) => {
    if (depth > 6) return;
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    const ownTask = entries.some((e) => e.isFile() && e.name === `${basename(dir)}.json`);
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !e.name.startsWith(".")) await walk(path, depth + 1);
      } else if (e.name === `${basename(dir)}.json` || MODULE_SUFFIXES.some((s) => e.name.endsWith(s))) {
        found.push(path);
      } else if (!ownTask && depth > 0 && e.name.endsWith(".json") && (await isFlatTaskFile(path))) {
        found.push(path);
      }
    }
  };
  await walk(root, 0);
  return found;
}

/** A JSON file outside a task folder that is a task: OSWorld's, or one of the JSON task format not in its own folder. */
async function isFlatTaskFile(path: string): Promise<boolean> {
  if ((await stat(path)).size > MAX_TASK_JSON_BYTES) return false;
  try {
    const v = JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>;
    return typeof v === "object" && v !== null && typeof v.instruction === "string" && ("evaluator" in v || "evaluation" in v);
  } catch {
    return false;
  }
}

/**
 * The group a task's results go under: the first folder below `root` on the way to `groupDir`, else
 * (`groupDir` is `root` itself or above it, as when one task file or folder is given) the name of
 * `groupDir`, else "tasks". Never empty and never `..`, so results stay inside the run folder.
 */
export function groupOf(root: string, groupDir: string): string {
  const rel = relative(root, groupDir);
  if (rel && !rel.startsWith("..") && !isAbsolute(rel)) return rel.split(/[\\/]/)[0]!;
  return basename(groupDir) || "tasks";
}

/** examples/<tool>/<id>/<id>.json → <tool>; a task folder given directly → its parent's name. */
export function toolOf(root: string, taskDir: string): string {
  return groupOf(root, dirname(taskDir));
}

export const NOT_JSON = Symbol("not JSON");

/** "line L, column C" of a character offset in `text` (both 1-based). */
function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return `line ${line}, column ${offset - before.lastIndexOf("\n")}`;
}

/** Parses a JSON file, or records why it is not JSON, with the line and column. */
export async function readJson(file: string, problems: DatasetProblem[]): Promise<unknown> {
  const text = await readFile(file, "utf8");
  try {
    return JSON.parse(text);
  } catch (err) {
    const message = (err as Error).message;
    const at = /at position (\d+)/.exec(message);
    const where = at ? lineColumn(text, Number(at[1])) : /Unexpected end of JSON input/.test(message) ? lineColumn(text, text.length) : undefined;
    const what = message.replace(/ in JSON at position \d+.*$/, "").replace(/^JSON\.parse: /, "");
    problems.push({ file, path: where ?? "", message: `not valid JSON${where ? ` at ${where}` : ""}: ${what}`, severity: "error" });
    return NOT_JSON;
  }
}
