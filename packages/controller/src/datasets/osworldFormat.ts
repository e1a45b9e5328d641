import { z } from "zod";

/**
 * OSWorld's task format (xlang-ai/OSWorld, `evaluation_examples/examples/<app>/<uuid>.json`): a
 * sibling of the GUI-OS format. Setup is `config: [{type, parameters}]` (its current spelling, not
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
}

/**
 * The config types, getters and metrics Pincer implements with OSWorld's semantics. A task runs
 * only when every one it names is here.
 */
export const OSWORLD_FUNCTIONS: Readonly<Record<OsworldFunction["kind"], ReadonlySet<string>>> = {
  "config type": new Set(),
  getter: new Set(),
  metric: new Set(),
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

/** What a task names that Pincer does not implement yet. */
export function missingFunctions(task: OsworldTaskJson): OsworldFunction[] {
  return functionsOf(task).filter((f) => !OSWORLD_FUNCTIONS[f.kind].has(f.name));
}

/** Whether a parsed JSON file is written in OSWorld's format (it has an `evaluator`). */
export function looksLikeOsworld(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && "evaluator" in value && !("evaluation" in value);
}
