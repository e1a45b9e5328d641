/**
 * `@pincer/controller/agents`: what decides the next action. The scripted agent replays a
 * solution; model agents call OpenAI-compatible or Anthropic APIs (their SDKs load with this entry).
 */
export { ScriptedAgent } from "./agents/scripted.js";
export type { Agent, AgentObservation, AgentTaskContext, AgentTool, AgentTurn, TokenUsage } from "./agents/types.js";
export { OpenAIAgent } from "./agents/openai.js";
export type { OpenAIAgentOptions } from "./agents/openai.js";
export { OpenAIResponsesAgent } from "./agents/openaiResponses.js";
export type { OpenAIResponsesAgentOptions } from "./agents/openaiResponses.js";
export { ANTHROPIC_COMPUTER_TOOLS, AnthropicAgent } from "./agents/anthropic.js";
export type { AnthropicAgentOptions } from "./agents/anthropic.js";
export type { ProviderAgentOptions } from "./agents/common.js";
export { agentFactory, createProviderAgent, isProviderAgent, parseMaxHistory, PROVIDER_AGENTS } from "./agents/factory.js";
export type { AgentChoice, ProviderAgentKind } from "./agents/factory.js";
export type { HistoryOptions } from "./agents/history.js";
export { costUsd, parsePrice, priceOf } from "./agents/pricing.js";
export type { ModelPrice, PriceTable } from "./agents/pricing.js";
export type { RetryOptions } from "./agents/common.js";
export { createComputerAction } from "./agents/computerUse.js";
export type { ComputerActionOptions, ComputerActionResult, ComputerRunOptions } from "./agents/computerUse.js";
export type { DisplaySetting } from "./agents/computerDisplay.js";
