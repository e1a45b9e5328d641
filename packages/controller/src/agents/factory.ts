import { InvalidArgumentError } from "@pincer/shared";
import { AnthropicAgent } from "./anthropic.js";
import type { ProviderAgentOptions } from "./common.js";
import type { HistoryOptions } from "./history.js";
import { OpenAIAgent } from "./openai.js";
import { OpenAIResponsesAgent } from "./openaiResponses.js";
import { parsePrice, type PriceTable } from "./pricing.js";
import { checkProgramCommand, ProgramAgent } from "./program.js";
import { ScriptedAgent } from "./scripted.js";
import type { Agent, AgentAttempt } from "./types.js";
import type { StepCall } from "../benchmark/types.js";

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

/**
 * The agents that need no model, by the name `pincer run --agent` takes: `scripted` replays each
 * task's solution; `none` takes no action at all (what `pincer check` runs to see that a task does
 * not pass by itself).
 */
export const SCRIPTED_AGENTS = ["scripted", "none"] as const;

/** The agent kind that is a program speaking MCP (`pincer run --agent command -- PROGRAM ARGS…`). */
export const PROGRAM_AGENT = "command";

/**
 * Which agent a run uses: one of {@link SCRIPTED_AGENTS}, a model agent of {@link PROVIDER_AGENTS}
 * with its model and how to reach it, or an agent program ({@link PROGRAM_AGENT}). Serializable, and holds no secret: a
 * model agent's key comes from the environment of the process that creates it (a worker host's).
 */
export interface AgentChoice {
  kind: string;
  /** With kind "command": the agent program and its arguments (see {@link ProgramAgent}). */
  command?: string[];
  /** With kind "command": names of variables of this process's environment the program gets. */
  agentEnv?: string[];
  model?: string;
  /** Model API endpoint; else OPENAI_BASE_URL / ANTHROPIC_BASE_URL, else the provider's. */
  baseUrl?: string;
  maxHistory?: HistoryOptions;
  /** USD per million input:output tokens, a JSON price file (see parsePrice), or the table such a file holds. */
  price?: string | PriceTable;
  /** Deadline of each try of a model request, in milliseconds. @default 120_000 */
  modelTimeoutMs?: number;
  /** Tries after a failed model request. @default 2 */
  modelRetries?: number;
}

/**
 * The choice checked (a known agent; a model agent's model) with its price read, so that it can
 * travel to another host (a queue's worker): throws InvalidArgumentError saying what is missing. The
 * key is not checked here: it is the agent's host's.
 */
export function portableAgentChoice(choice: AgentChoice): AgentChoice {
  const { kind } = choice;
  if ((SCRIPTED_AGENTS as readonly string[]).includes(kind)) return { kind };
  if (kind === PROGRAM_AGENT) {
    if (!choice.command?.length) throw new InvalidArgumentError("--agent command: give the agent program after --, e.g. --agent command -- python3 agent.py");
    return { kind, command: [...choice.command], agentEnv: [...(choice.agentEnv ?? [])] };
  }
  if (!isProviderAgent(kind))
    throw new InvalidArgumentError(`--agent ${kind}: use scripted, ${PROVIDER_AGENTS.join(", ")}, command (a program), or none (takes no action)`);
  if (!choice.model) throw new InvalidArgumentError(`--agent ${kind} needs --model (the model name the endpoint knows)`);
  return { ...choice, ...(typeof choice.price === "string" ? { price: parsePrice(choice.price) } : {}) };
}

/**
 * A function that makes a fresh agent per attempt, as `choice` says. Checks now (before machines
 * start) that the choice is complete and the model agent's key is set; throws InvalidArgumentError
 * saying what is missing.
 */
export function agentFactory(choice: AgentChoice): (task: { solution?: readonly StepCall[] | undefined }, at?: AgentAttempt) => Agent {
  const checked = portableAgentChoice(choice);
  if (checked.kind === PROGRAM_AGENT) {
    const command = checked.command!;
    const passEnv = checked.agentEnv ?? [];
    checkProgramCommand(command, passEnv);
    return (_task, at) => new ProgramAgent({ command, passEnv, ...(at ? { rollout: at.rollout, attempt: at.attempt } : {}) });
  }
  if (checked.kind === "scripted") return (task) => new ScriptedAgent([...(task.solution ?? [])]);
  if (checked.kind === "none") return () => new ScriptedAgent([]);
  const kind = checked.kind as ProviderAgentKind;
  const opts = {
    model: checked.model!,
    ...(checked.baseUrl ? { baseURL: checked.baseUrl } : {}),
    ...(checked.maxHistory ? { history: checked.maxHistory } : {}),
    ...(checked.price ? { prices: checked.price as PriceTable } : {}),
    ...(checked.modelTimeoutMs !== undefined ? { requestTimeoutMs: checked.modelTimeoutMs } : {}),
    ...(checked.modelRetries !== undefined ? { retry: { retries: checked.modelRetries } } : {}),
  };
  // Fails now, before machines start, when a key or setting is missing.
  createProviderAgent(kind, opts);
  return () => createProviderAgent(kind, opts);
}
