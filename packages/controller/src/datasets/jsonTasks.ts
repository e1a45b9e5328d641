import { basename, dirname, join } from "node:path";
import { z } from "zod";
import { didYouMean } from "@pincer/shared";
import { action } from "../actions/action.js";
import { evaluator, type AnyEvaluator } from "../evaluators/evaluator.js";
import { createTask, type ActionCall, type Task } from "../tasks/task.js";
import { defineDatasetFormat, type DatasetTask, type FormatBuildInput, type FormatContext, type TaskFile } from "./format.js";
import { localFileProblem } from "../env/localRoot.js";
import { TASK_FOLDER, type ConfigRegistry, type EvaluationRegistry, type TaskFunctionContext } from "./taskFunctions.js";
import { argumentIssueText } from "./functionReference.js";
import { evaluationCalls, isGraphEvaluation, jsonPath, jsonTaskSchema, translateLegacySpelling, type FunctionCall, type JsonTask } from "./jsonFormat.js";
import { buildEvaluationGraph, checkGraphStructure, writtenEvaluationCalls } from "./jsonGraph.js";
import { checkSolutionSteps } from "./solutionCheck.js";
import { loadSolution } from "./solutions.js";
import { NOT_JSON, readJson, toolOf, type DatasetProblem } from "./taskFiles.js";
import { weakChecks } from "./weakChecks.js";

/** A task of the JSON task format (`<tool>/<id>/<id>.json`). */
export interface JsonDatasetTask extends DatasetTask {
  kind: "json";
  json: JsonTask;
}

/** "desktop" and the environments its config entries and evaluation (each node of a graph) name. */
function environmentsOfJson(json: {
  config?: ReadonlyArray<{ env?: string | undefined }>;
  evaluation?: ReadonlyArray<{ env?: string | undefined }>;
}): string[] {
  const named = [...(json.config ?? []), ...(json.evaluation ?? [])].map((c) => c.env).filter((e): e is string => !!e);
  return [...new Set(["desktop", ...named])];
}

interface CheckContext {
  file: string;
  dir: string;
  problems: DatasetProblem[];
  evaluations?: EvaluationRegistry;
}

/** Arguments that name a file of the task folder: `local_*`, and `eval_script` (the published tasks' spelling). */
function isLocalPathArgument(key: string): boolean {
  return key.startsWith("local_") || key === "eval_script";
}

/** Checks one `{func, arguments}` entry: a known function, arguments that fit it, `local_*` files that exist, nested parts. */
function checkFunctionCall(call: FunctionCall, path: string, registry: ConfigRegistry | EvaluationRegistry, ctx: CheckContext): void {
  const fn = registry.get(call.func);
  if (!fn) {
    ctx.problems.push({
      file: ctx.file,
      path: `${path}.func`,
      message: `unknown ${registry.kind} ${JSON.stringify(call.func)}${didYouMean(call.func, registry.names())}; known: ${registry.names().join(", ")}`,
      severity: "error",
    });
    return;
  }
  const parsed = fn.args.safeParse(call.arguments);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const where = jsonPath([...path.split("."), "arguments", ...issue.path]);
      ctx.problems.push({ file: ctx.file, path: where, message: argumentIssueText(call.func, fn.args, issue), severity: "error" });
    }
  }
  for (const [key, value] of Object.entries(call.arguments)) {
    if (!isLocalPathArgument(key)) continue;
    for (const [i, p] of (Array.isArray(value) ? value : [value]).entries()) {
      if (typeof p !== "string") continue;
      const where = `${path}.arguments.${key}${Array.isArray(value) ? `[${i}]` : ""}`;
      // The same jail the run opens it through: relative, inside the task folder, no symlink out.
      const problem = localFileProblem(ctx.dir, p, { field: where, what: TASK_FOLDER });
      if (!problem) continue;
      const message = problem.missing ? `local file ${p} does not exist (looked in ${ctx.dir})` : problem.message.replace(`${where}: `, "");
      ctx.problems.push({ file: ctx.file, path: where, message, severity: "error" });
    }
  }
  // all/any name their parts in `evaluators`: check those too.
  const parts = (call.arguments as { evaluators?: unknown }).evaluators;
  if (ctx.evaluations && Array.isArray(parts)) {
    parts.forEach((part, i) => {
      const p = functionCallShape.safeParse(part);
      if (p.success) checkFunctionCall(p.data, `${path}.arguments.evaluators[${i}]`, ctx.evaluations!, ctx);
    });
  }
}

const functionCallShape = z.object({ func: z.string(), arguments: z.record(z.string(), z.unknown()).default({}) });

/** The id against the file name, and each config entry and the evaluation that has the shape of a function call. */
function checkParts(value: unknown, registries: FormatContext["registries"], ctx: CheckContext): void {
  const v = (value ?? {}) as { id?: unknown; config?: unknown; evaluation?: unknown };
  if (typeof v.id === "string" && v.id !== basename(ctx.file, ".json")) {
    ctx.problems.push({
      file: ctx.file,
      path: "id",
      message: `id ${JSON.stringify(v.id)} differs from the file name; name the file <id>.json in a folder <id>/`,
      severity: "error",
    });
  }
  if (Array.isArray(v.config)) {
    v.config.forEach((c, i) => {
      const call = functionCallShape.safeParse(c);
      if (call.success) checkFunctionCall(call.data, `config[${i}]`, registries.configs, ctx);
    });
  }
  for (const { path, value: entry } of writtenEvaluationCalls(v.evaluation)) {
    const call = functionCallShape.safeParse(entry);
    if (call.success) checkFunctionCall(call.data, path, registries.evaluations, ctx);
  }
  checkGraphStructure(v.evaluation, ctx.file, ctx.problems);
}

/** The environments a task that does not fit the schema names, as far as its solution's check needs them. */
function partialEnvironments(value: unknown): string[] {
  const v = (value ?? {}) as { config?: unknown; evaluation?: unknown };
  const envOf = (c: unknown) => (c && typeof c === "object" && typeof (c as { env?: unknown }).env === "string" ? (c as { env: string }).env : undefined);
  const config = (Array.isArray(v.config) ? v.config : []).map((c) => ({ env: envOf(c) }));
  return environmentsOfJson({ config, evaluation: writtenEvaluationCalls(v.evaluation).map((e) => ({ env: envOf(e.value) })) });
}

/** Whether a parsed JSON value reads as a task of this format (an instruction and an evaluation). */
function looksLikeJsonTask(v: unknown): boolean {
  return typeof v === "object" && v !== null && !Array.isArray(v) && "instruction" in v && "evaluation" in v;
}

async function loadJsonTask(file: TaskFile, ctx: FormatContext): Promise<JsonDatasetTask | undefined> {
  const dir = dirname(file.path);
  if (basename(file.path) !== `${basename(dir)}.json`) {
    const id = basename(file.path, ".json");
    ctx.problems.push({
      file: file.path,
      path: "",
      message: `a task of the JSON task format goes in a folder of its own: move it to ${join(dir, id, `${id}.json`)} with its files`,
      severity: "error",
    });
    return undefined;
  }
  const raw = await readJson(file.path, ctx.problems);
  if (raw === NOT_JSON) return undefined;
  const { value, translated } = translateLegacySpelling(raw);
  for (const path of translated) {
    ctx.problems.push({
      file: file.path,
      path,
      message: 'old {"type", "parameters"} spelling, read as {"func", "arguments"}; rewrite it to the current spelling',
      severity: "warning",
    });
  }
  const check: CheckContext = { file: file.path, dir, problems: ctx.problems, evaluations: ctx.registries.evaluations };
  const parsed = jsonTaskSchema.safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.problems.push({ file: file.path, path: jsonPath(issue.path), message: issue.message, severity: "error" });
  }
  // Every other problem too, at once: the parts that have the right shape are checked as usual.
  checkParts(parsed.success ? parsed.data : value, ctx.registries, check);
  const solution = await loadSolution(dir, ctx.problems);
  const environments = parsed.success
    ? environmentsOfJson({ config: parsed.data.config, evaluation: evaluationCalls(parsed.data.evaluation).map((e) => e.call) })
    : partialEnvironments(value);
  if (solution) checkSolutionSteps({ environments, dir }, solution, join(dir, "solution.json"), ctx.problems);
  if (!parsed.success) return undefined;
  const json = parsed.data;
  for (const { path, call } of evaluationCalls(json.evaluation)) {
    for (const w of weakChecks(call)) ctx.problems.push({ file: file.path, path, message: w, severity: "warning" });
  }
  return {
    kind: "json",
    id: json.id,
    tool: toolOf(file.root, dir),
    dir,
    file: file.path,
    instruction: json.instruction,
    tags: json.tags,
    relatedApps: json.related_apps,
    environments,
    ...(json.action_number !== undefined ? { actionNumber: json.action_number } : {}),
    ...(json.counterpart !== undefined ? { counterpart: json.counterpart } : {}),
    ...(solution ? { solution } : {}),
    fields: json,
    json,
  };
}

/** A setup action that runs one config entry through its config function. */
function configAction(registry: ConfigRegistry, func: string, ctxBase: Omit<TaskFunctionContext, "env" | "signal">) {
  const fn = registry.get(func)!;
  return action({
    name: `config_${func}`.replace(/__+/g, "_").slice(0, 64),
    description: fn.description,
    params: z.object({ arguments: z.record(z.string(), z.unknown()) }),
    run: async ({ arguments: args }, { env, signal }) => fn.run(fn.args.parse(args), { ...ctxBase, env, signal }),
  });
}

/**
 * An evaluator that runs one evaluation function call on its machine (the call's `env`, else the
 * task's), telling it whether its round judges the end of the episode (`final`).
 */
function evaluationEvaluator(
  task: JsonDatasetTask,
  registry: EvaluationRegistry,
  ctxBase: Omit<TaskFunctionContext, "env" | "signal">,
  call: FunctionCall,
  name: string,
): AnyEvaluator {
  const fn = registry.get(call.func);
  if (!fn) throw new Error(`task ${task.id}: unknown evaluation function ${call.func}`);
  return evaluator({
    name,
    description: `${call.func}: ${fn.description}`,
    ...(call.env ? { env: call.env } : {}),
    run: (_params, { env, signal, episode }) => fn.run(fn.args.parse(call.arguments), { ...ctxBase, env, signal, final: episode?.ending?.() ?? true }),
  });
}

/**
 * Builds a JSON task: its `config` entries as setup actions; its `evaluation` function as the
 * evaluator (its verdict is the task's), or its graph as an evaluator graph (partial credit).
 */
function buildJsonTask(task: JsonDatasetTask, input: FormatBuildInput): Task {
  const { registries, envs } = input;
  const ctxBase = { envs, taskDir: task.dir };
  const setup: ActionCall[] = task.json.config.map((c) => ({
    action: configAction(registries.configs, c.func, ctxBase),
    args: { arguments: c.arguments },
    ...(c.env ? { env: c.env } : {}),
  }));
  const evaluation = task.json.evaluation;
  const check = isGraphEvaluation(evaluation)
    ? buildEvaluationGraph(evaluation.graph, (call) =>
        evaluationEvaluator(task, registries.evaluations, ctxBase, call, `evaluation_${call.func}`.replace(/__+/g, "_").slice(0, 64)),
      )
    : evaluationEvaluator(task, registries.evaluations, ctxBase, evaluation, "evaluation");
  return createTask({
    id: task.id,
    description: task.instruction,
    evaluator: check,
    setup,
    maxSteps: input.maxSteps,
    timeLimitMs: input.timeLimitMs,
    tags: task.tags,
  });
}

/**
 * The JSON task format (docs/datasets.md): a folder per task,
 * `<tool>/<id>/<id>.json` with `config` (setup functions) and `evaluation` (the check, or a graph of checks), the task's
 * files beside it, and `solution.json`. A task file outside a folder of its own is claimed too, to
 * say where it goes.
 */
export const jsonTaskFormat = defineDatasetFormat<JsonDatasetTask>({
  name: "json",
  description: "JSON task files in a folder of their own (<tool>/<id>/<id>.json)",
  async claims(file) {
    if (!file.path.endsWith(".json") || /(^|\/)(solution|[^/]+\.solution)\.json$/.test(file.path)) return false;
    if (basename(file.path) === `${basename(dirname(file.path))}.json`) return true;
    return looksLikeJsonTask(await file.json());
  },
  load: loadJsonTask,
  build: buildJsonTask,
});
