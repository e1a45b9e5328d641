import { InvalidArgumentError } from "@pincer/shared";

/**
 * Joins an environment name and an action name into one tool name: `vm1__click`.
 *
 * Names of actions and environments are made of letters, digits, `-` and single `_` between them
 * (see {@link NAME_PATTERN}), so `__` never occurs inside a name and a tool name splits back into
 * its two parts at its first `__` without ambiguity.
 */
export const TOOL_SEPARATOR = "__";

/**
 * What action and environment names may be: the tool-name rule of OpenAI, Anthropic, Gemini and MCP
 * (`^[a-zA-Z0-9_-]{1,64}$`), minus `__` anywhere and `_` at either end, which
 * {@link TOOL_SEPARATOR} needs.
 */
export const NAME_PATTERN = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;

/** The tool-name rule shared by OpenAI, Anthropic, Gemini and MCP clients. */
export const PROVIDER_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** The longest tool name the providers accept, in characters. */
export const MAX_TOOL_NAME_LENGTH = 64;

/** Why `name` is not a valid action or environment name, or undefined when it is. */
export function nameProblem(name: string): string | undefined {
  if (typeof name !== "string" || name.length === 0) return "a name must be a non-empty string";
  if (name.length > MAX_TOOL_NAME_LENGTH) return `${JSON.stringify(name)} is longer than ${MAX_TOOL_NAME_LENGTH} characters`;
  if (!/^[a-zA-Z0-9_-]+$/.test(name)) {
    return `${JSON.stringify(name)} may only contain letters, digits, "_" and "-" (the rule of LLM tool names)`;
  }
  if (!NAME_PATTERN.test(name)) {
    return (
      `${JSON.stringify(name)} must not contain "${TOOL_SEPARATOR}" or start or end with "_" (tool names join environment and action with ` +
      `"${TOOL_SEPARATOR}")`
    );
  }
  return undefined;
}

/** Throws an InvalidArgumentError naming `what` when `name` breaks {@link NAME_PATTERN}. */
export function checkName(name: string, what: string): string {
  const problem = nameProblem(name);
  if (problem) throw new InvalidArgumentError(`${what}: ${problem}`);
  return name;
}

/** `vm1` + `click` → `vm1__click`. Throws when the joined name is longer than 64 characters. */
export function encodeToolName(environment: string, action: string): string {
  const tool = `${environment}${TOOL_SEPARATOR}${action}`;
  if (tool.length > MAX_TOOL_NAME_LENGTH) {
    throw new InvalidArgumentError(
      `tool name ${JSON.stringify(tool)} is longer than ${MAX_TOOL_NAME_LENGTH} characters; shorten the environment or action name`,
    );
  }
  return tool;
}

/** `vm1__click` → `{ environment: "vm1", action: "click" }`; undefined when it is not a tool name. */
export function decodeToolName(tool: string): { environment: string; action: string } | undefined {
  const at = tool.indexOf(TOOL_SEPARATOR);
  if (at <= 0) return undefined;
  const environment = tool.slice(0, at);
  const action = tool.slice(at + TOOL_SEPARATOR.length);
  if (nameProblem(environment) || nameProblem(action)) return undefined;
  return { environment, action };
}

/**
 * A readable name for a composition (`a_and_b`, `a_to_b`) that still obeys {@link NAME_PATTERN}.
 */
export function composeName(parts: string[], joiner: string): string {
  return fitName(parts.join(`_${joiner}_`));
}

/** `name` itself when it fits 64 characters; else cut, ending in a short hash so it stays unique. */
export function fitName(name: string): string {
  if (name.length <= MAX_TOOL_NAME_LENGTH) return name;
  let hash = 0;
  for (const ch of name) hash = (Math.imul(hash, 31) + ch.codePointAt(0)!) >>> 0;
  return `${name.slice(0, MAX_TOOL_NAME_LENGTH - 8).replace(/_+$/, "")}_${hash.toString(36).padStart(7, "0").slice(0, 7)}`;
}
