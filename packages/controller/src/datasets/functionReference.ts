import { z } from "zod";
import { didYouMean } from "@pincer/shared";
import type { ConfigRegistry, EvaluationRegistry } from "./taskFunctions.js";

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
  description?: string;
  enum?: unknown[];
  const?: unknown;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  additionalProperties?: unknown;
};

/** The schema a task file's `arguments` are checked against, past any preprocessing step. */
function inputSide(schema: z.ZodType): z.ZodType {
  const def = (schema as unknown as { _zod: { def: { type: string; in?: z.ZodType; out?: z.ZodType } } })._zod.def;
  if (def.type === "pipe" && def.in && def.out) {
    const inner = (def.in as unknown as { _zod: { def: { type: string } } })._zod.def.type;
    return inputSide(inner === "transform" ? def.out : def.in);
  }
  return schema;
}

/** A JSON schema's type in a few words: `string`, `number ≥ 0`, `"a" | "b"`, `string or list of string`. */
function typeOf(s: JsonSchema): string {
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) return [...new Set(alternatives.map(typeOf))].join(" or ");
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  const t = Array.isArray(s.type) ? s.type.join(" or ") : (s.type ?? "any");
  if (t === "array") return `list of ${s.items ? typeOf(s.items) : "any"}`;
  // zod's integers carry the safe-integer bounds: not worth a reader's time.
  const max = s.maximum !== undefined && s.maximum < Number.MAX_SAFE_INTEGER ? `≤ ${s.maximum}` : "";
  const min = s.minimum !== undefined && s.minimum > Number.MIN_SAFE_INTEGER ? `≥ ${s.minimum}` : "";
  const range = [min, max].filter(Boolean).join(", ");
  return range ? `${t} ${range}` : t;
}

/** Markdown table cells may not hold a pipe or a line break. */
const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** The argument table of one schema (an object; each alternative of a union in turn). */
function argumentRows(schema: JsonSchema): string[] {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives && !schema.properties) return alternatives.flatMap((alt, i) => [`*Form ${i + 1}:*`, "", ...argumentRows(alt), ""]);
  const props = Object.entries(schema.properties ?? {});
  if (props.length === 0) return ["No arguments.", ""];
  const required = new Set(schema.required ?? []);
  const rows = props.map(([name, p]) => {
    const need = p.default !== undefined ? `default \`${JSON.stringify(p.default)}\`` : required.has(name) ? "required" : "optional";
    return `| \`${name}\` | ${cell(typeOf(p))} | ${need} | ${cell(p.description ?? "")} |`;
  });
  return ["| argument | type | | meaning |", "|---|---|---|---|", ...rows, ""];
}

/** One function's section: its name, description and arguments. */
function section(f: { name: string; description: string; args: z.ZodType }): string[] {
  let schema: JsonSchema;
  try {
    schema = z.toJSONSchema(inputSide(f.args), { io: "input", unrepresentable: "any" }) as JsonSchema;
  } catch {
    schema = {};
  }
  return [`### \`${f.name}\``, "", f.description, "", ...argumentRows(schema)];
}

/**
 * The reference page of the JSON task format's config and evaluation functions (docs/task-functions.md):
 * each function's description and its arguments as its zod schema checks them (names, types,
 * required or default, descriptions). Generated, so the page cannot drift from the schemas.
 */
export function functionReference(registries: { configs: ConfigRegistry; evaluations: EvaluationRegistry }): string {
  const byName = <T extends { name: string }>(list: T[]) => [...list].sort((a, b) => a.name.localeCompare(b.name));
  return [
    "# Functions of the JSON task format",
    "",
    "<!-- Generated from the functions' zod schemas by `npm run gen:functions`; a test fails when this page is stale. -->",
    "",
    "What a task file's `config` entries and its `evaluation` (or each node of its",
    "[graph](datasets.md#evaluation-graphs)) may name in `func`, with the `arguments` each takes, as",
    "`pincer validate` checks them ([Datasets](datasets.md#the-json-task-format)). An",
    "argument whose name starts with `local_` is a file in the task's own folder; one that starts with",
    "`vm_` is a path on the machine.",
    "",
    "## Config functions",
    "",
    ...byName(registries.configs.list()).flatMap(section),
    "## Evaluation functions",
    "",
    ...byName(registries.evaluations.list()).flatMap(section),
  ]
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trimEnd()
    .concat("\n");
}

/** The argument names a function's schema accepts (of every form, for a union). */
export function argumentNames(args: z.ZodType): string[] {
  let schema: JsonSchema;
  try {
    schema = z.toJSONSchema(inputSide(args), { io: "input", unrepresentable: "any" }) as JsonSchema;
  } catch {
    return [];
  }
  const forms = schema.anyOf ?? schema.oneOf ?? [schema];
  return [...new Set(forms.flatMap((f) => Object.keys(f.properties ?? {})))];
}

/**
 * A zod issue of a function's `arguments` in words a task author can act on: an unknown argument
 * with the one most likely meant and the ones the function takes; a missing one by name.
 */
export function argumentIssueText(func: string, args: z.ZodType, issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") {
    const known = argumentNames(args);
    const named = issue.keys.map((k) => `unknown argument ${JSON.stringify(k)}${didYouMean(k, known)}`).join(", ");
    return `${func}: ${named}; it takes ${known.join(", ")} (docs/task-functions.md)`;
  }
  if (issue.code === "invalid_type" && /received undefined$/.test(issue.message) && issue.path.length > 0) {
    return `${func}: argument ${String(issue.path.at(-1))} is missing (${issue.expected})`;
  }
  return `${func}: ${issue.message}`;
}
