import { decodeToolName } from "../actions/names.js";
import type { StepCall, StepResult } from "../benchmark/types.js";
import { screenshotToScreen } from "../env/index.js";
import type { Point, Screenshot } from "../env/index.js";
import type { HistoryOptions } from "./history.js";
import { costUsd, priceOf, type PriceTable } from "./pricing.js";
import { callModel, DEFAULT_MODEL_RETRIES, DEFAULT_MODEL_TIMEOUT_MS, triesUsage, type RequestCounts } from "./modelCall.js";
import type { AgentTaskContext, TokenUsage } from "./types.js";

/** Options every model-provider agent takes. */
export interface ProviderAgentOptions {
  /** Model name as the provider knows it, e.g. "gpt-4o", "claude-sonnet-4-5", "qwen2.5-vl". */
  model: string;
  /** API endpoint; for OpenAI-compatible servers (vLLM, Ollama, OpenRouter), their `/v1` URL. */
  baseURL?: string;
  /** API key; read from the provider's environment variable when not given. */
  apiKey?: string;
  /** Replaces the built-in system prompt; the tool list is still sent. */
  systemPrompt?: string;
  /** What of the conversation is resent each turn. */
  history?: HistoryOptions;
  /** Retries of failed requests (429, 408, 409, 5xx, lost connections). */
  retry?: RetryOptions;
  /** Prices per model, to report cost with the tokens. */
  prices?: PriceTable;
  /** Longest reply in tokens. @default 4096 */
  maxOutputTokens?: number;
  /** Sampling temperature; the provider's default when unset. */
  temperature?: number;
  /**
   * How the model gives coordinates to the pointer tools (click, double_click, right_click, move,
   * drag, scroll): `"screenshot"` — pixels of the screenshot it was shown, mapped back to the screen
   * with the screenshot's scale; `"screen"` — screen pixels, passed through. @default "screenshot"
   */
  coordinates?: "screenshot" | "screen";
  /** Replies in a row that the agent cannot use (malformed tool calls, unparsable JSON) before it gives up. @default 3 */
  maxInvalidReplies?: number;
  /** Deadline of each try of a model request, in milliseconds (`--model-timeout`). @default 120_000 */
  requestTimeoutMs?: number;
}

/** The pointer tools whose arguments hold coordinates, and the names of those arguments. */
const POINTER_TOOLS: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  click: [["x", "y"]],
  double_click: [["x", "y"]],
  right_click: [["x", "y"]],
  move: [["x", "y"]],
  scroll: [["x", "y"]],
  drag: [
    ["start_x", "start_y"],
    ["end_x", "end_y"],
  ],
};

/**
 * Maps the coordinates of a pointer tool call from the screenshot the model saw to the screen.
 * Calls to other tools, and calls without a screenshot of their environment, pass unchanged.
 */
export function callToScreen(tool: string, args: unknown, screenshots: Readonly<Record<string, Screenshot>>): unknown {
  const decoded = decodeToolName(tool);
  const pairs = decoded && POINTER_TOOLS[decoded.action];
  const shot = decoded && screenshots[decoded.environment];
  if (!pairs || !shot || !args || typeof args !== "object" || (shot.scale === 1 && shot.source.x === 0 && shot.source.y === 0)) return args;
  const out: Record<string, unknown> = { ...(args as Record<string, unknown>) };
  for (const [kx, ky] of pairs) {
    const x = out[kx];
    const y = out[ky];
    if (typeof x === "number" && typeof y === "number") {
      const p = screenshotToScreen(shot, { x, y });
      out[kx] = p.x;
      out[ky] = p.y;
    }
  }
  return out;
}

/** A screen point as a pixel of `shot`. */
export function screenToShot(shot: Pick<Screenshot, "source" | "scale">, p: Point): Point {
  return { x: Math.round((p.x - shot.source.x) * shot.scale), y: Math.round((p.y - shot.source.y) * shot.scale) };
}

function summarize(value: unknown, depth = 0): unknown {
  if (Buffer.isBuffer(value)) return `<${value.length} bytes>`;
  if (Array.isArray(value)) return depth > 4 ? "[…]" : value.map((v) => summarize(v, depth + 1));
  if (value && typeof value === "object") {
    const o = value as Record<string, unknown>;
    if (Buffer.isBuffer(o.data) && typeof o.mimeType === "string") return { image: o.mimeType, width: o.width, height: o.height };
    return depth > 4 ? "{…}" : Object.fromEntries(Object.entries(o).map(([k, v]) => [k, summarize(v, depth + 1)]));
  }
  return value;
}

/** Longest tool result text sent back to the model, in characters. */
export const MAX_RESULT_CHARS = 8_000;

/**
 * What the model reads about a step: `ok` with the result as JSON, or `error` with its type and
 * message (argument problems included), so it can correct itself. Pointer positions come back in
 * the screenshot's pixels when `shot` is given.
 */
export function resultText(r: StepResult, shot?: Screenshot): string {
  if (!r.ok) return `error (${r.error.type}): ${r.error.message}`;
  let value = r.result;
  const decoded = decodeToolName(r.tool);
  if (shot && decoded && POINTER_TOOLS[decoded.action] && value && typeof value === "object" && "x" in value && "y" in value) {
    value = screenToShot(shot, value as Point);
  }
  if (value === undefined || value === null) return "ok";
  const text = JSON.stringify(summarize(value));
  return `ok: ${text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}… (cut)` : text}`;
}

/** The environments named by the tools, in order of first appearance. */
export function environmentsOfTools(ctx: Pick<AgentTaskContext, "tools">): string[] {
  return [...new Set(ctx.tools.map((t) => decodeToolName(t.name)?.environment).filter((e): e is string => !!e))];
}

/** The default system prompt of the provider agents. */
export function systemPrompt(ctx: AgentTaskContext, extra = ""): string {
  const envs = environmentsOfTools(ctx).filter((e) => e !== "root");
  const done = ctx.tools.some((t) => t.name === "root__complete") ? "call root__complete" : "reply without calling a tool";
  return [
    "You operate computers to complete a task for the user.",
    `Environments: ${envs.join(", ") || "(none)"}. Each tool is named <environment>__<action> and acts on that environment only.`,
    "Before each turn you get a screenshot of each environment with a display; pointer coordinates are pixels of that screenshot, origin top-left.",
    "You may call several tools in one turn; they run in order, and you see their results and new screenshots next turn.",
    `You have at most ${ctx.maxSteps} actions. When the task is done (or cannot be done), ${done}.`,
    extra,
  ]
    .filter(Boolean)
    .join("\n");
}

/** A caption for an environment's screenshot. */
export function screenshotCaption(env: string, shot: Screenshot): string {
  return `Screenshot of ${env} (${shot.width}×${shot.height} pixels).`;
}

/** An environment's accessibility tree as a text part of an observation. */
export function accessibilityCaption(env: string, tree: string): string {
  return `Accessibility tree of ${env} (one widget per line, tab-separated; positions and sizes in screen pixels):\n${tree}`;
}

/** `data:` URL of a screenshot, for OpenAI image parts. */
export function dataUrl(shot: Screenshot): string {
  return `data:${shot.mimeType};base64,${shot.data.toString("base64")}`;
}

/** Adds up token use and request tries over the model calls of one turn, with the cost when a price is known. */
export class UsageMeter {
  #input = 0;
  #output = 0;
  #counts: RequestCounts = { requests: 0, failed: 0, retries: 0 };

  constructor(
    private readonly model: string,
    private readonly prices: PriceTable | undefined,
  ) {}

  /** Adds the tokens of an answered request. */
  add(input: number | undefined | null, output: number | undefined | null): void {
    this.#input += input ?? 0;
    this.#output += output ?? 0;
  }

  /**
   * Makes a model request through {@link callModel} with the agent's timeout and retries, its tries
   * counted here; a request that fails for good throws a {@link ModelRequestError} holding this
   * turn's usage.
   */
  request<T>(
    url: string,
    opts: Pick<ProviderAgentOptions, "requestTimeoutMs" | "retry">,
    signal: AbortSignal,
    send: (signal: AbortSignal) => Promise<T>,
    problemOf: (reply: T) => string | undefined,
  ): Promise<T> {
    const timeoutMs = opts.requestTimeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
    const retries = opts.retry?.retries ?? DEFAULT_MODEL_RETRIES;
    return callModel({ url, timeoutMs, retries, signal, counts: this.#counts, usage: () => this.take() }, send, problemOf);
  }

  /** The usage so far, and starts over. */
  take(): TokenUsage {
    const price = priceOf(this.prices, this.model);
    const usage: TokenUsage = { input: this.#input, output: this.#output, ...triesUsage(this.#counts) };
    if (price) usage.costUsd = costUsd(price, usage);
    this.#input = this.#output = 0;
    this.#counts = { requests: 0, failed: 0, retries: 0 };
    return usage;
  }
}

/** A tool call the agent could not use, reported to the model instead of being run. */
export interface RejectedCall {
  id: string;
  error: string;
}

/** A tool call sent to the runner, with the provider's id to answer it by. */
export interface PendingCall {
  id: string;
  call: StepCall;
}

/** Text for a call that the runner did not get to (the episode ended before it). */
export const NOT_RUN = "not run: an earlier call of the turn ended the episode";

/**
 * How failed model requests are retried: by Pincer (the SDKs' own retries are off, so every try is
 * counted), with exponential backoff and jitter and the server's `retry-after`/`retry-after-ms`
 * honoured, never past the attempt's time limit. See {@link callModel}.
 */
export interface RetryOptions {
  /** Tries after the first (`--model-retries`). @default 2 */
  retries?: number;
}
