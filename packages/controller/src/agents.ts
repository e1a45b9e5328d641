/**
 * `@pincer/controller/agents`: what decides the next action. The scripted agent replays a
 * solution; model agents call OpenAI-compatible or Anthropic APIs (their SDKs load with this entry);
 * an agent program is any MCP client, run per attempt.
 */
export { ScriptedAgent } from "./agents/scripted.js";
export type { Agent, AgentAttempt, AgentFinish, AgentObservation, AgentTaskContext, AgentTool, AgentTurn, TokenUsage } from "./agents/types.js";
export { ProgramAgent } from "./agents/program.js";
export type { ProgramAgentOptions } from "./agents/program.js";
export { OpenAIAgent } from "./agents/openai.js";
export type { OpenAIAgentOptions } from "./agents/openai.js";
export { OpenAIResponsesAgent } from "./agents/openaiResponses.js";
export type { OpenAIResponsesAgentOptions } from "./agents/openaiResponses.js";
export { AnthropicAgent } from "./agents/anthropic.js";
export type { AnthropicAgentOptions } from "./agents/anthropic.js";
export type { ProviderAgentOptions } from "./agents/common.js";
export { agentFactory, createProviderAgent, parseMaxHistory, PROGRAM_AGENT, PROVIDER_AGENTS } from "./agents/factory.js";
export type { AgentChoice, ProviderAgentKind } from "./agents/factory.js";
export type { HistoryOptions } from "./agents/history.js";
export { costUsd, parsePrice, priceOf } from "./agents/pricing.js";
export type { ModelPrice, PriceTable } from "./agents/pricing.js";
export type { RetryOptions } from "./agents/common.js";
export { createComputerAction } from "./agents/computerUse.js";
export type { ComputerActionOptions, ComputerActionResult, ComputerRunOptions } from "./agents/computerUse.js";
export type { DisplaySetting } from "./agents/computerDisplay.js";
/** Tool names and tool schemas as model APIs take them (an action's `toolSchema(provider)`). */
export { decodeToolName, encodeToolName, TOOL_SEPARATOR } from "./actions/names.js";
export type { AnthropicTool, GeminiFunctionDeclaration, McpTool, OpenAITool, ToolSource } from "./actions/toolSchemas.js";
/** Key chords as models write them ("ctrl+shift+t"), resolved to the daemon's key names. */
export { parseChord, resolveKey } from "@pincer/shared";
