import { z } from "zod";
import { OSWORLD_CONFIG_TYPES } from "./allConfigTypes.js";
import { OSWORLD_GETTERS } from "./allGetters.js";
import { ignoredOptionKeys } from "./metric.js";
import { OSWORLD_METRICS } from "./metrics/index.js";

/**
 * OSWorld's task format (xlang-ai/OSWorld, `evaluation_examples/examples/<app>/<uuid>.json`): a
 * sibling of the JSON task format. Setup is `config: [{type, parameters}]` (its current spelling, not
 * an old one); the check is `evaluator: {func, result, expected, options, conj, postconfig}`, where
 * `result` and `expected` are getters (`{type, ...}`: what to fetch from the machine or the task's
 * files) and `func` is a metric or a list of them combined with `conj` ("and" unless "or"). Every
 * other field of a task is kept as written.
 *
 * Pincer reads the format and says what a task needs; running a task needs every config type,
 * getter and metric it names, and {@link OSWORLD_FUNCTIONS} lists those Pincer has.
 */

const stepSchema = z.looseObject({
  type: z.string().min(1, "name the config type"),
  parameters: z.record(z.string(), z.unknown()).default({}),
});
const getterSchema = z.looseObject({ type: z.string().min(1, "name the getter type") });
/** In a list, `{}` or null stands for "no getter" where that metric takes none. */
const getterSlot = z.union([getterSchema, z.strictObject({}), z.null()]);
const optionsSchema = z.record(z.string(), z.unknown());

const evaluatorSchema = z
  .looseObject({
    func: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)], { error: "func is a metric's name or a list of them" }),
    result: z.union([getterSchema, z.array(getterSlot)]).optional(),
    expected: z
      .union([getterSchema, z.array(getterSlot)])
      .nullable()
      .optional(),
    options: z.union([optionsSchema, z.array(optionsSchema)]).optional(),
    conj: z.enum(["and", "or"]).optional(),
    postconfig: z.array(stepSchema).default([]),
  })
  .superRefine((e, ctx) => {
    const funcs = Array.isArray(e.func) ? e.func : [e.func];
    const needsResult = funcs.some((f) => f !== "infeasible");
    if (needsResult && e.result === undefined) ctx.addIssue({ code: "custom", path: ["result"], message: "give the result getter the metric judges" });
    if (!Array.isArray(e.func)) return;
    // Lists line up: the i-th metric judges the i-th result against the i-th expected value.
    for (const key of ["result", "expected", "options"] as const) {
      const v = e[key];
      if (v !== undefined && v !== null && !Array.isArray(v) && key !== "options") {
        ctx.addIssue({ code: "custom", path: [key], message: `func is a list of ${funcs.length}: give ${key} as a list of the same length` });
      } else if (Array.isArray(v) && v.length !== funcs.length) {
        ctx.addIssue({ code: "custom", path: [key], message: `func lists ${funcs.length} metric(s) but ${key} has ${v.length}` });
      }
    }
  });

/** An OSWorld task as written; fields Pincer does not use are kept. */
export const osworldTaskSchema = z.looseObject({
  id: z.string().min(1),
  instruction: z.string().min(1),
  snapshot: z.string().optional(),
  source: z
    .union([z.string(), z.array(z.string())])
    .nullable()
    .optional(),
  config: z.array(stepSchema).default([]),
  related_apps: z.array(z.string()).default([]),
  evaluator: evaluatorSchema,
});

/** An OSWorld task file's content, validated. */
export type OsworldTaskJson = z.infer<typeof osworldTaskSchema>;

/** What an OSWorld task names: a config type (setup or postconfig), a getter type, or a metric. */
export interface OsworldFunction {
  kind: "config type" | "getter" | "metric";
  name: string;
  /** Why Pincer does not run it, for one it knows but cannot run on its machines (it needs an account, say). */
  reason?: string;
}

/** The functions Pincer knows but does not run, with the reason (what they need that Pincer does not have or do). */
export const OSWORLD_NOT_RUN: ReadonlyMap<string, string> = new Map([
  // OSWorld signs in with the credentials of its own settings files (evaluation_examples/settings/googledrive).
  ["config type:googledrive", "needs a Google account"],
  ["config type:login", "needs a Google account"],
  ["getter:googledrive_file", "needs a Google account"],
]);

/**
 * The config types, getters and metrics Pincer implements with OSWorld's semantics. A task runs
 * only when every one it names is here (`infeasible` is judged by the runner itself).
 */
export const OSWORLD_FUNCTIONS: Readonly<Record<OsworldFunction["kind"], ReadonlySet<string>>> = {
  "config type": new Set(OSWORLD_CONFIG_TYPES.keys()),
  getter: new Set(OSWORLD_GETTERS.keys()),
  metric: new Set([...OSWORLD_METRICS.keys(), "infeasible"]),
};

/** Every config type, getter and metric a task names, once each. */
export function functionsOf(task: OsworldTaskJson): OsworldFunction[] {
  const e = task.evaluator;
  const list = <T>(v: T | T[] | null | undefined): T[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);
  const out = new Map<string, OsworldFunction>();
  const add = (kind: OsworldFunction["kind"], name: string) => out.set(`${kind}:${name}`, { kind, name });
  for (const s of [...task.config, ...e.postconfig]) add("config type", s.type);
  for (const g of [...list(e.result), ...list(e.expected)]) if (g && "type" in g && typeof g.type === "string") add("getter", g.type);
  for (const f of list(e.func)) add("metric", f);
  return [...out.values()];
}

/** A problem with what a task passes to a function Pincer implements: its JSON path and what is wrong. */
export interface OsworldArgumentProblem {
  path: string;
  message: string;
}

const listOf = <T>(v: T | T[] | null | undefined): T[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);
const zodPath = (path: readonly PropertyKey[]) => path.map((k) => (typeof k === "number" ? `[${k}]` : `.${String(k)}`)).join("");

/** What {@link checkOsworldArguments} finds. */
export interface OsworldArgumentCheck {
  /** Arguments that do not fit: the task is invalid. */
  problems: OsworldArgumentProblem[];
  /** Arguments OSWorld ignores (an option its metric does not read): the task runs as it would there. */
  warnings: OsworldArgumentProblem[];
  /** Parts Pincer does not run yet. */
  needs: OsworldFunction[];
}

/**
 * Checks what a task passes to the functions Pincer implements: config parameters, getter fields and
 * metric options against their schemas (precise problems), option keys a metric ignores as OSWorld's
 * does (warnings), and parts of them Pincer does not run (a pyautogui call, a compare_table rule
 * type), which count as needs.
 */
export function checkOsworldArguments(task: OsworldTaskJson): OsworldArgumentCheck {
  const problems: OsworldArgumentProblem[] = [];
  const warnings: OsworldArgumentProblem[] = [];
  const needs: OsworldFunction[] = [];
  const e = task.evaluator;
  const steps = [...task.config.map((s, i) => [s, `config[${i}]`] as const), ...e.postconfig.map((s, i) => [s, `evaluator.postconfig[${i}]`] as const)];
  for (const [step, at] of steps) {
    const type = OSWORLD_CONFIG_TYPES.get(step.type);
    if (!type) continue;
    const p = type.parameters.safeParse(step.parameters);
    if (!p.success) for (const i of p.error.issues) problems.push({ path: `${at}.parameters${zodPath(i.path)}`, message: `${step.type}: ${i.message}` });
    else for (const name of type.unsupported?.(p.data) ?? []) needs.push({ kind: "config type", name });
  }
  const funcs = listOf(e.func);
  const at = (key: string, i: number) => (Array.isArray(e.func) ? `evaluator.${key}[${i}]` : `evaluator.${key}`);
  funcs.forEach((name, i) => {
    const slot = <T>(v: T | T[] | null | undefined): T | undefined => (Array.isArray(e.func) ? (Array.isArray(v) ? v[i] : undefined) : (v as T | undefined));
    for (const key of ["result", "expected"] as const) {
      const g = slot(e[key] as unknown) as { type?: string } | null | undefined;
      const getter = g && typeof g.type === "string" ? OSWORLD_GETTERS.get(g.type) : undefined;
      if (!getter || !g) continue;
      const { type: _t, ...fields } = g;
      const p = getter.config.safeParse(fields);
      if (!p.success)
        for (const issue of p.error.issues) problems.push({ path: `${at(key, i)}${zodPath(issue.path)}`, message: `${g.type}: ${issue.message}` });
    }
    const metric = OSWORLD_METRICS.get(name);
    if (!metric) return;
    const raw = slot(e.options) ?? {};
    const p = metric.options.safeParse(raw);
    if (!p.success)
      for (const issue of p.error.issues) problems.push({ path: `${at("options", i)}${zodPath(issue.path)}`, message: optionMessage(name, issue) });
    else for (const part of metric.unsupported?.(p.data) ?? []) needs.push({ kind: "metric", name: part });
    for (const key of ignoredOptionKeys(metric, raw)) {
      warnings.push({
        path: `${at("options", i)}.${key}`,
        message: `${name} does not take the option ${JSON.stringify(key)}: it is ignored, as OSWorld ignores it (check its spelling)`,
      });
    }
  });
  return { problems, warnings, needs };
}

/** A metric option's problem; an unknown key at the top is one OSWorld's function would reject with TypeError. */
function optionMessage(metric: string, issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys" && issue.path.length === 0) {
    const keys = issue.keys.map((k) => JSON.stringify(k)).join(", ");
    return `${metric}: unknown option ${keys}: OSWorld's ${metric} has no such parameter (Python raises TypeError); remove it`;
  }
  return `${metric}: ${issue.message}`;
}

/**
 * What a task names that Pincer does not run (functions, and `parts` of the options of those it
 * does, from {@link checkOsworldArguments}); those it knows but cannot run carry the reason.
 */
export function missingFunctions(task: OsworldTaskJson, parts = checkOsworldArguments(task).needs): OsworldFunction[] {
  const out = new Map<string, OsworldFunction>();
  for (const f of functionsOf(task).filter((f) => !OSWORLD_FUNCTIONS[f.kind].has(f.name))) out.set(`${f.kind}:${f.name}`, f);
  for (const f of parts) out.set(`${f.kind}:${f.name}`, f);
  return [...out].map(([key, f]) => (OSWORLD_NOT_RUN.has(key) ? { ...f, reason: OSWORLD_NOT_RUN.get(key)! } : f));
}

/** Whether a parsed JSON file is written in OSWorld's format (it has an `evaluator`). */
export function looksLikeOsworld(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && "evaluator" in value && !("evaluation" in value);
}
