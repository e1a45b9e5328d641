import OpenAI from "openai";
import type { ChatCompletion, ChatCompletionContentPart, ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { InvalidArgumentError } from "@pincer/shared";
import { inlineRefs, type JsonSchema } from "../actions/jsonSchema.js";
import type { StepCall } from "../benchmark/types.js";
import type { Screenshot } from "../env/index.js";
import {
  callToScreen,
  dataUrl,
  NOT_RUN,
  resultText,
  accessibilityCaption,
  screenshotCaption,
  systemPrompt,
  UsageMeter,
  type PendingCall,
  type ProviderAgentOptions,
  type RejectedCall,
} from "./common.js";
import { DROPPED_SCREENSHOT_NOTE, History } from "./history.js";
import { jsonModeInstructions, JsonReplyError, parseJsonReply } from "./jsonReply.js";
import { DEFAULT_MODEL_TIMEOUT_MS, replyShapeProblem } from "./modelCall.js";
import type { Agent, AgentObservation, AgentTaskContext, AgentTurn } from "./types.js";

/**
 * The OpenAI SDK client of an agent: key and endpoint from the options or OPENAI_API_KEY /
 * OPENAI_BASE_URL (a base URL needs no key: local servers such as vLLM and Ollama take any, the SDK
 * insists on one). Its own retries are off: see {@link UsageMeter.request}.
 */
export function openaiClient(agent: string, opts: ProviderAgentOptions): OpenAI {
  const baseURL = opts.baseURL ?? process.env.OPENAI_BASE_URL;
  const apiKey = opts.apiKey ?? process.env.OPENAI_API_KEY;
  if (!apiKey && !baseURL) throw new InvalidArgumentError(`the ${agent} agent needs OPENAI_API_KEY, or --base-url for a server that needs no key`);
  return new OpenAI({
    apiKey: apiKey || "no-key",
    ...(baseURL ? { baseURL } : {}),
    // Pincer retries and times each try itself (UsageMeter.request), so that every try is counted
    // and none outlives the attempt.
    maxRetries: 0,
    timeout: opts.requestTimeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS,
  });
}

/** Options of {@link OpenAIAgent}. */
export interface OpenAIAgentOptions extends ProviderAgentOptions {
  /**
   * `"tools"`: native tool calling (`tools`, `tool_choice`, parallel calls). `"json"`: for models
   * without tool calling — the tools are described in the prompt and each reply ends with one
   * fenced JSON object naming one call; a reply that does not parse is answered with the error.
   * @default "tools"
   */
  mode?: "tools" | "json";
  /** `tool_choice`: "auto" lets the model answer without a call (that means done). @default "auto" */
  toolChoice?: "auto" | "required";
  /** Ask for parallel tool calls (several calls in one reply). @default true */
  parallelToolCalls?: boolean;
  /** Send screenshots (turn off for text-only models). @default true */
  images?: boolean;
  /** `detail` of image parts. @default "auto" */
  imageDetail?: "auto" | "low" | "high";
}

type Message = ChatCompletionMessageParam;

/** A message without its screenshots (for turns older than `keepScreenshots`). */
function stripImages(m: Message): Message {
  if (m.role !== "user" || typeof m.content === "string") return m;
  const hadImages = m.content.some((p) => p.type === "image_url");
  if (!hadImages) return m;
  const text = m.content.filter((p) => p.type !== "image_url");
  return { ...m, content: [...text, { type: "text", text: DROPPED_SCREENSHOT_NOTE }] };
}

/**
 * An agent on any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, OpenRouter,
 * LM Studio, …): screenshots as `data:` URL image parts, the benchmark's tools as functions, tool
 * results fed back as `tool` messages. Reads `OPENAI_API_KEY` and `OPENAI_BASE_URL` when not given.
 */
export class OpenAIAgent implements Agent {
  readonly name: string;
  readonly model: string;
  readonly wantsScreenshots = true;
  readonly #opts: OpenAIAgentOptions;
  readonly #client: OpenAI;
  #ctx: AgentTaskContext | undefined;
  #history!: History<Message>;
  #tools: ChatCompletionTool[] = [];
  #toolNames = new Set<string>();
  #pending: PendingCall[] = [];
  #rejected: RejectedCall[] = [];
  #lastJsonCall: string | undefined;
  #turn = 0;
  #meter: UsageMeter;

  constructor(opts: OpenAIAgentOptions) {
    if (!opts.model) throw new InvalidArgumentError("the openai agent needs a model (--model)");
    this.#opts = opts;
    this.model = opts.model;
    this.name = opts.mode === "json" ? "openai-json" : "openai";
    this.#client = openaiClient("openai", opts);
    this.#meter = new UsageMeter(opts.model, opts.prices);
  }

  start(ctx: AgentTaskContext): void {
    this.#ctx = ctx;
    this.#history = new History<Message>(this.#opts.history ?? {}, stripImages);
    this.#toolNames = new Set(ctx.tools.map((t) => t.name));
    this.#tools = ctx.tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: inlineRefs(t.parameters as JsonSchema) },
    }));
    this.#pending = [];
    this.#rejected = [];
    this.#lastJsonCall = undefined;
    this.#turn = 0;
    const extra = this.#opts.mode === "json" ? jsonModeInstructions(ctx.tools) : "";
    this.#history.pin({ role: "system", content: this.#opts.systemPrompt ? `${this.#opts.systemPrompt}\n${extra}` : systemPrompt(ctx, extra) });
  }

  async act(obs: AgentObservation): Promise<AgentTurn> {
    const ctx = this.#ctx;
    if (!ctx) throw new Error("OpenAIAgent.act before start");
    const turn = this.#turn++;
    const json = this.#opts.mode === "json";
    const shots = this.#opts.coordinates === "screen" ? {} : obs.screenshots;
    const results: string[] = [];
    if (json) {
      if (this.#lastJsonCall)
        results.push(`Result of ${this.#lastJsonCall}: ${obs.lastResults[0] ? resultText(obs.lastResults[0], shots[obs.lastResults[0].env]) : NOT_RUN}`);
    } else {
      this.#answerPending(obs, shots);
    }
    const observation = this.#observationMessage(turn === 0 ? `Task: ${ctx.instruction}` : results.join("\n"), obs.screenshots, obs.accessibility);
    if (turn === 0) this.#history.pin(observation, turn);
    else this.#history.add(observation, turn);

    const maxInvalid = this.#opts.maxInvalidReplies ?? 3;
    for (let invalid = 0; ; ) {
      const reply = await this.#request(obs.signal);
      const msg = reply.choices[0]!.message;
      if (invalid === 0) this.#history.beginTurn();
      const text = msg.content ?? "";
      if (json) {
        this.#history.add({ role: "assistant", content: text });
        try {
          const parsed = parseJsonReply(text, this.#toolNames);
          if (parsed.kind === "done") return this.#finish({ calls: [], done: true, message: parsed.answer ?? text });
          this.#lastJsonCall = parsed.tool;
          return this.#finish({ calls: [{ tool: parsed.tool, args: callToScreen(parsed.tool, parsed.args, shots) }], message: text });
        } catch (err) {
          if (!(err instanceof JsonReplyError)) throw err;
          if (++invalid >= maxInvalid) throw new Error(`the model gave ${invalid} unusable replies in a row; last: ${err.message}`);
          this.#history.add({ role: "user", content: `Your reply could not be used: ${err.message}. Reply again, ending with exactly one fenced JSON block.` });
          continue;
        }
      }
      const toolCalls = msg.tool_calls ?? [];
      this.#history.add({ role: "assistant", content: msg.content ?? null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) });
      if (toolCalls.length === 0) return this.#finish({ calls: [], done: true, message: text });
      const calls: StepCall[] = [];
      for (const [i, tc] of toolCalls.entries()) {
        const id = tc.id || `call_${turn}_${i}`;
        if (tc.type !== "function") {
          this.#rejected.push({ id, error: `error: only function tools exist here, not ${tc.type} tools` });
          continue;
        }
        try {
          const args: unknown = tc.function.arguments.trim() === "" ? {} : JSON.parse(tc.function.arguments);
          const call = { tool: tc.function.name, args: callToScreen(tc.function.name, args, shots) };
          calls.push(call);
          this.#pending.push({ id, call });
        } catch (err) {
          this.#rejected.push({
            id,
            error: `error: the arguments of ${tc.function.name} are not valid JSON (${(err as Error).message}); nothing ran. Call it again with a JSON object.`,
          });
        }
      }
      if (calls.length > 0) return this.#finish({ calls, message: text });
      if (++invalid >= maxInvalid) throw new Error(`the model gave ${invalid} unusable replies in a row; last: ${this.#rejected.at(-1)?.error ?? "?"}`);
      for (const r of this.#rejected.splice(0)) this.#history.add({ role: "tool", tool_call_id: r.id, content: r.error });
    }
  }

  /** Tool messages for the previous turn's calls (results in order) and its rejected calls. */
  #answerPending(obs: AgentObservation, shots: Readonly<Record<string, Screenshot>>): void {
    for (const [i, p] of this.#pending.entries()) {
      const r = obs.lastResults[i];
      this.#history.add({ role: "tool", tool_call_id: p.id, content: r ? resultText(r, shots[r.env]) : NOT_RUN });
    }
    for (const r of this.#rejected) this.#history.add({ role: "tool", tool_call_id: r.id, content: r.error });
    this.#pending = [];
    this.#rejected = [];
  }

  #observationMessage(text: string, screenshots: Readonly<Record<string, Screenshot>>, trees: Readonly<Record<string, string>> = {}): Message {
    const parts: ChatCompletionContentPart[] = [];
    if (text) parts.push({ type: "text", text });
    for (const [env, tree] of Object.entries(trees)) parts.push({ type: "text", text: accessibilityCaption(env, tree) });
    if (this.#opts.images !== false) {
      for (const [env, shot] of Object.entries(screenshots)) {
        parts.push({ type: "text", text: screenshotCaption(env, shot) });
        parts.push({ type: "image_url", image_url: { url: dataUrl(shot), detail: this.#opts.imageDetail ?? "auto" } });
      }
    }
    if (parts.length === 0) parts.push({ type: "text", text: "(no new observation)" });
    return { role: "user", content: parts };
  }

  async #request(signal: AbortSignal): Promise<ChatCompletion> {
    const o = this.#opts;
    const body = {
      model: o.model,
      messages: this.#history.messages(),
      // max_tokens is deprecated in the SDK's types and refused by o-series models.
      max_completion_tokens: o.maxOutputTokens ?? 4096,
      ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
      ...(o.mode === "json"
        ? {}
        : {
            tools: this.#tools,
            tool_choice: o.toolChoice ?? "auto",
            ...(o.parallelToolCalls === false ? { parallel_tool_calls: false } : { parallel_tool_calls: true }),
          }),
    };
    const reply = await this.#meter.request(
      this.#client.baseURL,
      o,
      signal,
      (s) => this.#client.chat.completions.create(body, { signal: s }),
      (r) => replyShapeProblem(r, "a chat completion", (v) => Array.isArray(v.choices) && v.choices.length > 0 && typeof v.choices[0]?.message === "object"),
    );
    this.#meter.add(reply.usage?.prompt_tokens, reply.usage?.completion_tokens);
    return reply;
  }

  #finish(turn: Omit<AgentTurn, "usage">): AgentTurn {
    return { ...turn, usage: this.#meter.take() };
  }
}
