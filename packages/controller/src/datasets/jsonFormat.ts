import { z } from "zod";

/** One `{func, arguments}` entry of a task file. `env` (a Pincer extension) names the machine. */
export const functionCallSchema = z
  .object({
    func: z.string().min(1),
    arguments: z.record(z.string(), z.unknown()).default({}),
    env: z.string().min(1).optional(),
  })
  .strict();

/** One `{func, arguments}` entry of a task file: a config step, the evaluation or a node of its graph. */
export type FunctionCall = z.infer<typeof functionCallSchema>;

/** What a node id may hold: it names the node in results and in JSON paths (`evaluation.graph.nodes.<id>`). */
const NODE_ID = /^[A-Za-z0-9_-]+$/;

/**
 * `evaluation.graph`: evaluation functions as the nodes of an evaluator graph, for partial credit.
 * `[from, to]` edges: `to` is checked once `from` has passed. The structure (edges between known
 * nodes, no cycle, one sink) is checked when the task is validated.
 */
export const evaluationGraphSchema = z.strictObject({
  nodes: z.record(z.string(), functionCallSchema).superRefine((nodes, zctx) => {
    const ids = Object.keys(nodes);
    if (ids.length === 0) zctx.addIssue({ code: "custom", message: "give at least one node: {id: {func, arguments}}" });
    for (const id of ids) {
      if (!NODE_ID.test(id)) zctx.addIssue({ code: "custom", path: [id], message: `node id ${JSON.stringify(id)}: use letters, digits, '_' and '-'` });
    }
  }),
  edges: z.array(z.tuple([z.string().min(1), z.string().min(1)])).default([]),
  /** @default "sticky": a passed node stays passed, as most graphs of task modules choose. */
  pass_policy: z.enum(["sticky", "recheck"]).default("sticky"),
});

/** The graph of a task's `evaluation: {graph: ...}`. */
export type EvaluationGraph = z.infer<typeof evaluationGraphSchema>;

/** `evaluation: {graph: ...}`: the task judged by an evaluator graph instead of one function. */
export const graphEvaluationSchema = z.strictObject({ graph: evaluationGraphSchema });

/** An evaluation written as a graph. */
export type GraphEvaluation = z.infer<typeof graphEvaluationSchema>;

/** Whether a value is written as a graph (`{graph: ...}`), so its problems are told against that form alone. */
function writtenAsGraph(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && "graph" in value;
}

/**
 * A task's `evaluation`: one function call (`{func, arguments, env}`) or a graph of them
 * (`{graph: {nodes, edges, pass_policy}}`). The form is chosen by the `graph` key, so a mistake is
 * reported against the form written, with its JSON path (a union would only say "invalid input").
 */
export const evaluationSchema = z.unknown().transform((value, zctx): FunctionCall | GraphEvaluation => {
  if (writtenAsGraph(value) && "func" in (value as object)) {
    zctx.addIssue({ code: "custom", message: "give func (one evaluation function) or graph (a graph of them), not both" });
    return z.NEVER;
  }
  const parsed = writtenAsGraph(value) ? graphEvaluationSchema.safeParse(value) : functionCallSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) zctx.addIssue({ code: "custom", path: [...issue.path], message: issue.message });
  return z.NEVER;
});

/** Whether a task's evaluation is a graph. */
export function isGraphEvaluation(evaluation: JsonTask["evaluation"]): evaluation is GraphEvaluation {
  return "graph" in evaluation;
}

/**
 * The function calls of an evaluation with their JSON paths: the one call at `evaluation`, or each
 * node of a graph at `evaluation.graph.nodes.<id>` (in the order written).
 */
export function evaluationCalls(evaluation: JsonTask["evaluation"]): Array<{ path: string; call: FunctionCall }> {
  if (!isGraphEvaluation(evaluation)) return [{ path: "evaluation", call: evaluation }];
  return Object.entries(evaluation.graph.nodes).map(([id, call]) => ({ path: `evaluation.graph.nodes.${id}`, call }));
}

/**
 * A task file of the JSON task format (`examples/<tool>/<id>/<id>.json`): the fields public
 * computer-use datasets use, with their exact names. Unknown top-level fields are kept (they are
 * copied into summary.json) but not interpreted.
 */
export const jsonTaskSchema = z
  .object({
    id: z
      .string()
      .min(1)
      .regex(/^[A-Za-z0-9._-]+$/, "use letters, digits, '.', '_' and '-' (it names a folder)"),
    snapshot: z.string().optional(),
    instruction: z.string().min(1),
    source: z.array(z.string()).default([]),
    related_apps: z.array(z.string()).default([]),
    tags: z.array(z.string()).default([]),
    action_number: z.number().int().positive().optional(),
    config: z.array(functionCallSchema).default([]),
    evaluation: evaluationSchema,
    counterpart: z.string().optional(),
  })
  .passthrough();

/** A task of the JSON task format, as parsed from `<tool>/<id>/<id>.json`. */
export type JsonTask = z.infer<typeof jsonTaskSchema>;

/**
 * Rewrites the older `{type, parameters}` spelling of config and evaluation entries into
 * `{func, arguments}`, returning the JSON paths it rewrote so validation can say so (the old
 * spelling is translated, never skipped silently).
 */
export function translateLegacySpelling(raw: unknown): { value: unknown; translated: string[] } {
  const translated: string[] = [];
  if (typeof raw !== "object" || raw === null) return { value: raw, translated };
  const task = { ...(raw as Record<string, unknown>) };
  const fix = (entry: unknown, path: string): unknown => {
    if (typeof entry !== "object" || entry === null) return entry;
    const e = entry as Record<string, unknown>;
    if ("type" in e && !("func" in e)) {
      const { type, parameters, ...rest } = e;
      translated.push(path);
      return { func: type, arguments: parameters ?? {}, ...rest };
    }
    return entry;
  };
  if (Array.isArray(task.config)) task.config = task.config.map((c, i) => fix(c, `config[${i}]`));
  if ("evaluation" in task) task.evaluation = fix(task.evaluation, "evaluation");
  return { value: task, translated };
}

/** A zod issue path as a JSON path: `config[1].arguments.local_path`. */
export function jsonPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => (typeof key === "number" ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key)), "");
}
