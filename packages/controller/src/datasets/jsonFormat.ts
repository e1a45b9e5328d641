import { z } from "zod";

/** One `{func, arguments}` entry of a task file. `env` (a Pincer extension) names the machine. */
export const functionCallSchema = z
  .object({
    func: z.string().min(1),
    arguments: z.record(z.string(), z.unknown()).default({}),
    env: z.string().min(1).optional(),
  })
  .strict();

/** One `{func, arguments}` entry of a task file: a config step or the evaluation. */
export type FunctionCall = z.infer<typeof functionCallSchema>;

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
    evaluation: functionCallSchema,
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
