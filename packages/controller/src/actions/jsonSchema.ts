import { z } from "zod";
import { ActionDefinitionError } from "./errors.js";

/** A JSON Schema document, as plain JSON. */
export type JsonSchema = { [key: string]: unknown };

/**
 * The JSON Schema of a zod schema: draft 2020-12 (or OpenAPI 3.0 for Gemini), without `$schema`,
 * and without the ±2^53 bounds zod adds to every `.int()` (noise for a model).
 * `io: "input"` describes what a caller sends (defaults make fields optional), `"output"` what a
 * parse yields. Schemas a JSON Schema cannot express (a Buffer) become `{}` only when
 * `unrepresentable` is "any"; by default they throw, because a model could never send them.
 */
export function zodToJsonSchema(
  schema: z.ZodType,
  opts: { io: "input" | "output"; target?: "draft-2020-12" | "openapi-3.0"; unrepresentable?: "throw" | "any" },
): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io: opts.io,
    target: opts.target ?? "draft-2020-12",
    unrepresentable: opts.unrepresentable ?? "throw",
  }) as JsonSchema;
  delete json.$schema;
  return stripSafeIntegerBounds(json) as JsonSchema;
}

function stripSafeIntegerBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripSafeIntegerBounds);
  if (node === null || typeof node !== "object") return node;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(node)) {
    if ((k === "maximum" && v === Number.MAX_SAFE_INTEGER) || (k === "minimum" && v === Number.MIN_SAFE_INTEGER)) continue;
    out[k] = stripSafeIntegerBounds(v);
  }
  return out;
}

/**
 * Replaces every local `$ref` (`#/$defs/X`, `#/definitions/X`) by a copy of its target and drops the
 * definitions, for providers and servers that do not follow references. A recursive schema cannot be
 * expanded and throws an ActionDefinitionError.
 */
export function inlineRefs(schema: JsonSchema): JsonSchema {
  const defs = { ...(schema.$defs as JsonSchema | undefined), ...(schema.definitions as JsonSchema | undefined) };
  const expand = (node: unknown, seen: string[]): unknown => {
    if (Array.isArray(node)) return node.map((n) => expand(n, seen));
    if (node === null || typeof node !== "object") return node;
    const obj = node as JsonSchema;
    if (typeof obj.$ref === "string") {
      const m = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(obj.$ref);
      const target = m ? defs[m[1]!] : undefined;
      if (!m || target === undefined) throw new ActionDefinitionError(`cannot resolve $ref ${obj.$ref}`);
      if (seen.includes(obj.$ref)) {
        throw new ActionDefinitionError(`recursive schema (${[...seen, obj.$ref].join(" → ")}) cannot be inlined for this provider`);
      }
      const { $ref: _ref, ...siblings } = obj;
      return { ...(expand(target, [...seen, obj.$ref]) as JsonSchema), ...(expand(siblings, seen) as JsonSchema) };
    }
    const out: JsonSchema = {};
    for (const [k, v] of Object.entries(obj)) {
      if (k === "$defs" || k === "definitions") continue;
      out[k] = expand(v, seen);
    }
    return out;
  };
  return expand(schema, []) as JsonSchema;
}

/** Keywords of the OpenAPI 3.0 subset that Gemini function declarations accept. */
const GEMINI_KEYWORDS = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "properties",
  "required",
  "items",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "anyOf",
  "minProperties",
  "maxProperties",
]);

/**
 * Rewrites an OpenAPI 3.0 schema (references already inlined) into what Gemini accepts: unknown
 * keywords dropped, `const` as a one-value `enum`, non-string enums and defaults moved into the
 * description so the model still learns them.
 */
export function toGeminiSchema(schema: JsonSchema): JsonSchema {
  const clean = (input: JsonSchema): JsonSchema => {
    const node = flattenAllOf(input);
    const out: JsonSchema = {};
    const notes: string[] = [];
    for (const [k, v] of Object.entries(node)) {
      if (k === "properties" && v && typeof v === "object") {
        out.properties = Object.fromEntries(Object.entries(v as JsonSchema).map(([p, s]) => [p, clean(s as JsonSchema)]));
      } else if (k === "items" && v && typeof v === "object" && !Array.isArray(v)) {
        out.items = clean(v as JsonSchema);
      } else if (k === "anyOf" && Array.isArray(v)) {
        out.anyOf = v.map((s) => clean(s as JsonSchema));
      } else if (k === "const") {
        if (typeof v === "string") out.enum = [v];
        else notes.push(`Must be ${JSON.stringify(v)}.`);
      } else if (k === "enum" && Array.isArray(v) && !v.every((e) => typeof e === "string")) {
        notes.push(v.length === 1 ? `Must be ${JSON.stringify(v[0])}.` : `One of: ${v.map((e) => JSON.stringify(e)).join(", ")}.`);
      } else if (k === "default") {
        notes.push(`Default: ${JSON.stringify(v)}.`);
      } else if (k === "format") {
        if (v === "date-time") out.format = v;
      } else if (GEMINI_KEYWORDS.has(k)) {
        out[k] = v;
      }
    }
    if (notes.length > 0) {
      const text = typeof out.description === "string" ? out.description.trim() : "";
      out.description = [text && !/[.!?]$/.test(text) ? `${text}.` : text, ...notes].filter(Boolean).join(" ");
    }
    return out;
  };
  return clean(schema);
}

/**
 * Merges `allOf` parts into their parent (OpenAPI output wraps a `$ref` that has a description in a
 * one-part `allOf`); the parent's own keywords win, properties and required lists are joined.
 */
function flattenAllOf(node: JsonSchema): JsonSchema {
  if (!Array.isArray(node.allOf)) return node;
  const { allOf, ...own } = node;
  let merged: JsonSchema = {};
  for (const part of allOf as JsonSchema[]) {
    const p = flattenAllOf(part);
    merged = {
      ...merged,
      ...p,
      ...(merged.properties || p.properties ? { properties: { ...(merged.properties as object), ...(p.properties as object) } } : {}),
      ...(merged.required || p.required ? { required: [...new Set([...((merged.required as string[]) ?? []), ...((p.required as string[]) ?? [])])] } : {}),
    };
  }
  return { ...merged, ...own };
}

type JsonType = "string" | "number" | "integer" | "boolean" | "object" | "array" | "null";

function typesOf(s: JsonSchema): Set<JsonType> | undefined {
  if (typeof s.type === "string") return new Set([s.type as JsonType]);
  if (Array.isArray(s.type)) return new Set(s.type as JsonType[]);
  const values = "const" in s ? [s.const] : Array.isArray(s.enum) ? s.enum : undefined;
  if (!values) return undefined;
  return new Set(values.map((v) => (v === null ? "null" : Array.isArray(v) ? "array" : (typeof v as JsonType))));
}

/**
 * Why a value described by `from` might not be accepted by `to`, or undefined when it always is.
 * Checks types, literal values, object properties and array items; ranges, lengths and patterns are
 * left to the parse at run time. Both schemas must have their references inlined.
 */
export function assignabilityProblem(from: JsonSchema, to: JsonSchema, path = "value"): string | undefined {
  if (Array.isArray(from.anyOf)) {
    for (const branch of from.anyOf as JsonSchema[]) {
      const p = assignabilityProblem(branch, to, path);
      if (p) return p;
    }
    return undefined;
  }
  if (Array.isArray(to.anyOf)) {
    const problems = (to.anyOf as JsonSchema[]).map((branch) => assignabilityProblem(from, branch, path));
    return problems.includes(undefined) ? undefined : problems[0];
  }
  const toTypes = typesOf(to);
  const fromTypes = typesOf(from);
  if (toTypes) {
    if (!fromTypes) return `${path}: may be anything, but ${[...toTypes].join(" | ")} is required`;
    for (const t of fromTypes) {
      if (!toTypes.has(t) && !(t === "integer" && toTypes.has("number"))) {
        return `${path}: ${[...fromTypes].join(" | ")} is not ${[...toTypes].join(" | ")}`;
      }
    }
  }
  const toValues = "const" in to ? [to.const] : Array.isArray(to.enum) ? to.enum : undefined;
  if (toValues) {
    const fromValues = "const" in from ? [from.const] : Array.isArray(from.enum) ? from.enum : undefined;
    const json = new Set(toValues.map((v) => JSON.stringify(v)));
    if (!fromValues?.every((v) => json.has(JSON.stringify(v)))) {
      return `${path}: must be one of ${toValues.map((v) => JSON.stringify(v)).join(", ")}`;
    }
  }
  if (to.properties && typeof to.properties === "object") {
    const fromProps = (from.properties ?? {}) as JsonSchema;
    const fromRequired = new Set((from.required as string[] | undefined) ?? []);
    for (const key of (to.required as string[] | undefined) ?? []) {
      if (!fromRequired.has(key)) return `${path}.${key}: required, but not always present`;
    }
    for (const [key, sub] of Object.entries(to.properties as JsonSchema)) {
      if (key in fromProps) {
        const p = assignabilityProblem(fromProps[key] as JsonSchema, sub as JsonSchema, `${path}.${key}`);
        if (p) return p;
      }
    }
  }
  if (to.items && typeof to.items === "object" && !Array.isArray(to.items)) {
    if (!from.items || typeof from.items !== "object" || Array.isArray(from.items)) return `${path}[]: item type unknown`;
    return assignabilityProblem(from.items as JsonSchema, to.items as JsonSchema, `${path}[]`);
  }
  return undefined;
}
