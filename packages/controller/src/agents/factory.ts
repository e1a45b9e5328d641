import { InvalidArgumentError } from "@pincer/shared";
import { AnthropicAgent } from "./anthropic.js";
import type { ProviderAgentOptions } from "./common.js";
import type { HistoryOptions } from "./history.js";
import { OpenAIAgent } from "./openai.js";
import { OpenAIResponsesAgent } from "./openaiResponses.js";
import type { Agent } from "./types.js";

/**
 * The model-provider agents by the name `pincer run --agent` takes:
 * - `openai`: OpenAI-compatible chat completions with tool calling;
 * - `openai-json`: the same endpoint for models without tool calling (one fenced JSON object per reply);
 * - `openai-cu`: OpenAI's Responses API with its computer-use tool (computer_use_preview);
 * - `anthropic`: Anthropic Messages with the benchmark's tools;
 * - `anthropic-cu`: Anthropic's computer-use tool (computer_20250124);
 * - `anthropic-cu-20251124`: the computer_20251124 tool (adds zoom).
 */
export const PROVIDER_AGENTS = ["openai", "openai-json", "openai-cu", "anthropic", "anthropic-cu", "anthropic-cu-20251124"] as const;

/** One of {@link PROVIDER_AGENTS}. */
export type ProviderAgentKind = (typeof PROVIDER_AGENTS)[number];

/** Whether `kind` names a model-provider agent. */
export function isProviderAgent(kind: string): kind is ProviderAgentKind {
  return (PROVIDER_AGENTS as readonly string[]).includes(kind);
}

/** Creates a fresh provider agent of `kind` (one per task attempt: agents keep the conversation). */
export function createProviderAgent(kind: ProviderAgentKind, opts: ProviderAgentOptions): Agent {
  switch (kind) {
    case "openai":
      return new OpenAIAgent(opts);
    case "openai-json":
      return new OpenAIAgent({ ...opts, mode: "json" });
    case "openai-cu":
      return new OpenAIResponsesAgent(opts);
    case "anthropic":
      return new AnthropicAgent(opts);
    case "anthropic-cu":
      return new AnthropicAgent({ ...opts, mode: "computer-use" });
    case "anthropic-cu-20251124":
      return new AnthropicAgent({ ...opts, mode: "computer-use", computerTool: "computer_20251124" });
  }
}

/** Reads `--max-history TURNS[:SCREENSHOTS]`, e.g. `20` or `20:3`. */
export function parseMaxHistory(spec: string): HistoryOptions {
  const m = /^(\d+)(?::(\d+))?$/.exec(spec.trim());
  if (!m || Number(m[1]) < 1) throw new InvalidArgumentError("--max-history: write TURNS or TURNS:SCREENSHOTS, e.g. 20:3 (turns ≥ 1)");
  const maxTurns = Number(m[1]);
  return { maxTurns, keepScreenshots: m[2] !== undefined ? Number(m[2]) : Math.min(3, maxTurns) };
}
