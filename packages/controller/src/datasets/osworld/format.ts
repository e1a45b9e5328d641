import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { defineDatasetFormat, type DatasetTask, type FormatContext, type TaskFile, type UnsupportedTask } from "../format.js";
import { jsonPath } from "../jsonFormat.js";
import { checkSolutionSteps } from "../solutionCheck.js";
import { loadSolution } from "../solutions.js";
import { groupOf, NOT_JSON, readJson } from "../taskFiles.js";
import { hasPyFloat, pyJsonParse } from "./metrics/common/pyJson.js";
import { buildOsworldTask, FAIL_ACTION_NAME } from "./task.js";
import { checkOsworldArguments, looksLikeOsworld, missingFunctions, osworldTaskSchema, type OsworldTaskJson } from "./taskSchema.js";

/** A task of OSWorld's format (`<app>/<uuid>.json`) whose every function Pincer implements. */
export interface OsworldDatasetTask extends DatasetTask {
  kind: "osworld";
  json: OsworldTaskJson;
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

async function loadOsworldTask(file: TaskFile, ctx: FormatContext): Promise<OsworldDatasetTask | UnsupportedTask | undefined> {
  const { problems } = ctx;
  const raw = await readJson(file.path, problems);
  if (raw === NOT_JSON) return undefined;
  const parsed = osworldTaskSchema.safeParse(withPythonRules(raw, await readFile(file.path, "utf8")));
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push({ file: file.path, path: jsonPath(issue.path), message: issue.message, severity: "error" });
    return undefined;
  }
  const json = parsed.data;
  if (!osworldFileNameFits(basename(file.path, ".json"), json.id)) {
    problems.push({
      file: file.path,
      path: "id",
      message: `id ${JSON.stringify(json.id)} differs from the file name; name the file <id>.json (or <id>-<suffix>.json)`,
      severity: "error",
    });
    return undefined;
  }
  const args = checkOsworldArguments(json);
  for (const p of args.problems) problems.push({ file: file.path, path: p.path, message: p.message, severity: "error" });
  for (const w of args.warnings) problems.push({ file: file.path, path: w.path, message: w.message, severity: "warning" });
  if (args.problems.length > 0) return undefined;
  const tool = groupOf(file.root, dirname(file.path));
  const needs = missingFunctions(json, args.needs);
  if (needs.length > 0) return { file: file.path, id: json.id, tool, format: "osworld", needs };
  const solutionFile = file.path.replace(/\.json$/, ".solution.json");
  const solution = await loadSolution(solutionFile, problems);
  const task: OsworldDatasetTask = {
    kind: "osworld",
    id: json.id,
    tool,
    dir: dirname(file.path),
    file: file.path,
    instruction: json.instruction,
    tags: [],
    relatedApps: json.related_apps,
    // Its steps and evaluator run on one machine.
    environments: ["desktop"],
    ...(solution ? { solution } : {}),
    fields: json,
    json,
  };
  if (solution) checkSolutionSteps(task, solution, solutionFile, problems, { rootActions: [FAIL_ACTION_NAME] });
  return task;
}

/**
 * OSWorld's task format (xlang-ai/OSWorld's `evaluation_examples/examples/<app>/<uuid>.json`), run as
 * OSWorld runs it: config steps, getters and metrics ported with their semantics; a task's solution
 * is `<uuid>.solution.json` beside it. A valid task that names something Pincer does not run is
 * listed by `validate` with what it needs (and why, for what Pincer knows but cannot run).
 */
export const osworldFormat = defineDatasetFormat<OsworldDatasetTask>({
  name: "osworld",
  description: "OSWorld task files (<app>/<uuid>.json)",
  async claims(file) {
    if (!file.path.endsWith(".json") || file.path.endsWith(".solution.json")) return false;
    const v = await file.json();
    return looksLikeOsworld(v) && typeof (v as { instruction?: unknown }).instruction === "string";
  },
  load: loadOsworldTask,
  // Its folder is its app's, with every other task of the app: only its file and its solution.
  files: (task) => [task.file, task.file.replace(/\.json$/, ".solution.json")].filter((f) => existsSync(f)),
  build: (task, input) =>
    buildOsworldTask({
      id: task.id,
      instruction: task.instruction,
      tags: task.tags,
      json: task.json,
      maxSteps: input.maxSteps,
      timeLimitMs: input.timeLimitMs,
      dir: input.dir,
    }),
});
