import Anthropic from "@anthropic-ai/sdk";
import type {
  BetaContentBlockParam,
  BetaImageBlockParam,
  BetaMessage,
  BetaMessageParam,
  BetaTool,
  BetaToolComputerUse20250124,
  BetaToolComputerUse20251124,
  BetaToolResultBlockParam,
  BetaToolResultContentBlockParam,
} from "@anthropic-ai/sdk/resources/beta/messages/messages";
import { InvalidArgumentError } from "@pincer/shared";
import { decodeToolName, encodeToolName } from "../actions/names.js";
import type { StepCall, StepResult } from "../benchmark/types.js";
import type { Screenshot } from "../env/index.js";
import {
  callToScreen,
  environmentsOfTools,
  NOT_RUN,
  resultText,
  accessibilityCaption,
  screenshotCaption,
  screenToShot,
  systemPrompt,
  UsageMeter,
  type ProviderAgentOptions,
} from "./common.js";
import { DEFAULT_MODEL_TIMEOUT_MS, replyShapeProblem } from "./modelCall.js";
import type { AnyAction } from "../actions/action.js";
import { COMPUTER_ACTION_NAME, planAnthropicComputerAction } from "./computerCalls.js";
import { createComputerAction } from "./computerUse.js";
import { DROPPED_SCREENSHOT_NOTE, History } from "./history.js";
import type { Agent, AgentObservation, AgentTaskContext, AgentTurn } from "./types.js";

/** Anthropic computer-use tool versions, with the beta header each needs. */
export const ANTHROPIC_COMPUTER_TOOLS = {
  computer_20250124: "computer-use-2025-01-24",
  computer_20251124: "computer-use-2025-11-24",
} as const;

/** Options of {@link AnthropicAgent}. */
export interface AnthropicAgentOptions extends ProviderAgentOptions {
  /**
   * `"tools"`: the benchmark's tools with their JSON schemas. `"computer-use"`: Anthropic's own
   * `computer` tool for one environment (the desktop tools of that environment are replaced by it;
   * the other tools stay). @default "tools"
   */
  mode?: "tools" | "computer-use";
  /** Computer tool version; computer_20251124 adds `zoom`. @default "computer_20250124" */
  computerTool?: keyof typeof ANTHROPIC_COMPUTER_TOOLS;
  /** The environment the computer tool drives. @default the first environment that has a `click` tool */
  computerEnvironment?: string;
  /** `tool_choice`: "auto" lets the model answer without a call (that means done); "any" forces one. @default "auto" */
  toolChoice?: "auto" | "any";
  /**
   * Prompt caching: cache breakpoints after the system prompt, the tools and the conversation so
   * far, so each turn re-reads them from the cache (billed at a tenth) instead of anew. @default true
   */
  promptCaching?: boolean;
}

const CACHE = { type: "ephemeral" } as const;

/** The conversation with a cache breakpoint on the last block of its last message (the stored history is not changed). */
function withCachedPrefix(messages: BetaMessageParam[]): BetaMessageParam[] {
  const last = messages.at(-1) as { role: string; content?: unknown } | undefined;
  if (!last) return messages;
  const blocks = (typeof last.content === "string" ? [{ type: "text", text: last.content }] : (last.content ?? [])) as Array<Record<string, unknown>>;
  if (!Array.isArray(blocks) || blocks.length === 0) return messages;
  const marked = [...blocks.slice(0, -1), { ...blocks.at(-1)!, cache_control: CACHE }];
  return [...messages.slice(0, -1), { ...last, content: marked } as unknown as BetaMessageParam];
}

/** The desktop actions the computer tool stands in for. */
const REPLACED = new Set(["click", "double_click", "right_click", "move", "drag", "scroll", "key", "type", "screenshot", "wait", COMPUTER_ACTION_NAME]);

/** A user or assistant message (the system prompt goes in `system`). */
interface Message {
  role: "user" | "assistant";
  content: BetaContentBlockParam[];
}
type Tool = BetaTool | BetaToolComputerUse20250124 | BetaToolComputerUse20251124;

function image(shot: Screenshot): BetaImageBlockParam {
  return { type: "image", source: { type: "base64", media_type: shot.mimeType as "image/png", data: shot.data.toString("base64") } };
}

function stripImages(m: Message): Message {
  let dropped = false;
  const strip = <T extends { type: string }>(blocks: T[]): T[] =>
    blocks.map((b) => {
      if (b.type !== "image") return b;
      dropped = true;
      return { type: "text", text: DROPPED_SCREENSHOT_NOTE } as unknown as T;
    });
  const content = m.content.map((b) => (b.type === "tool_result" && Array.isArray(b.content) ? { ...b, content: strip(b.content) } : b));
  const out = strip(content as BetaContentBlockParam[]);
  return dropped ? { ...m, content: out } : m;
}

interface Pending {
  id: string;
  /** Step calls made for this tool use (a `key` with several chords makes several). */
  calls: number;
  computer: boolean;
  answer?: "screenshot" | "cursor";
  /** Set when the call was not run; the text is the error. */
  error?: string;
}

/**
 * An agent on Anthropic's Messages API: tool use with the benchmark's schemas, or Anthropic's
 * computer-use tool mapped onto the environment's actions (coordinates scaled from the screenshot
 * the model saw back to the screen). Reads `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL` when not given.
 */
export class AnthropicAgent implements Agent {
  readonly name: string;
  readonly model: string;
  readonly wantsScreenshots = true;
  /** In computer-use mode, the `computer` action, for the actions that have no desktop tool (triple_click, hold_key, zoom…). */
  readonly actions: readonly AnyAction[];
  readonly #opts: AnthropicAgentOptions;
  readonly #client: Anthropic;
  #ctx: AgentTaskContext | undefined;
  #history!: History<Message>;
  #system = "";
  #tools: Tool[] = [];
  #toolNames = new Set<string>();
  #computerEnv: string | undefined;
  #pending: Pending[] = [];
  #turn = 0;
  #meter: UsageMeter;

  constructor(opts: AnthropicAgentOptions) {
    if (!opts.model) throw new InvalidArgumentError("the anthropic agent needs a model (--model)");
    this.#opts = opts;
    this.model = opts.model;
    this.name = opts.mode === "computer-use" ? "anthropic-cu" : "anthropic";
    this.actions = opts.mode === "computer-use" ? [createComputerAction({ display: "screen" })] : [];
    const apiKey = opts.apiKey ?? process.env.ANTHROPIC_API_KEY;
    const baseURL = opts.baseURL ?? process.env.ANTHROPIC_BASE_URL;
    if (!apiKey && !baseURL) throw new InvalidArgumentError("the anthropic agent needs ANTHROPIC_API_KEY, or --base-url for a server that needs no key");
    // A local or proxy server may need no key; the SDK insists on one.
    this.#client = new Anthropic({
      apiKey: apiKey || "no-key",
      ...(baseURL ? { baseURL } : {}),
      // Pincer retries and times each try itself (UsageMeter.request).
      maxRetries: 0,
      timeout: opts.requestTimeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS,
    });
    this.#meter = new UsageMeter(opts.model, opts.prices);
  }

  start(ctx: AgentTaskContext): void {
    this.#ctx = ctx;
    this.#history = new History<Message>(this.#opts.history ?? {}, stripImages);
    this.#toolNames = new Set(ctx.tools.map((t) => t.name));
    this.#pending = [];
    this.#turn = 0;
    this.#computerEnv = undefined;
    let extra = "";
    let tools = ctx.tools;
    if (this.#opts.mode === "computer-use") {
      const env = this.#opts.computerEnvironment ?? environmentsOfTools(ctx).find((e) => this.#toolNames.has(encodeToolName(e, "click")));
      if (!env) throw new InvalidArgumentError("computer-use mode needs an environment with desktop actions (none has a click tool)");
      this.#computerEnv = env;
      tools = ctx.tools.filter((t) => {
        const d = decodeToolName(t.name);
        return !(d && d.environment === env && REPLACED.has(d.action));
      });
      extra = `The computer tool drives ${env}; its coordinates are pixels of the screenshots of ${env}.`;
    }
    this.#tools = tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters as { type: "object" } }));
    this.#system = this.#opts.systemPrompt ?? systemPrompt(ctx, extra);
  }

  async act(obs: AgentObservation): Promise<AgentTurn> {
    const ctx = this.#ctx;
    if (!ctx) throw new Error("AnthropicAgent.act before start");
    const turn = this.#turn++;
    const shots = this.#opts.coordinates === "screen" ? {} : obs.screenshots;
    const computerShot = this.#computerEnv ? obs.screenshots[this.#computerEnv] : undefined;
    if (this.#computerEnv && computerShot) this.#setComputerTool(computerShot);
    const content: BetaContentBlockParam[] = turn === 0 ? [{ type: "text", text: `Task: ${ctx.instruction}` }] : this.#answerPending(obs, shots, computerShot);
    const answeredWithImage = content.some((b) => b.type === "tool_result" && Array.isArray(b.content) && b.content.some((c) => c.type === "image"));
    for (const [env, shot] of Object.entries(obs.screenshots)) {
      if (env === this.#computerEnv && answeredWithImage) continue;
      content.push({ type: "text", text: screenshotCaption(env, shot) }, image(shot));
    }
    for (const [env, tree] of Object.entries(obs.accessibility ?? {})) content.push({ type: "text", text: accessibilityCaption(env, tree) });
    if (content.length === 0) content.push({ type: "text", text: "(no new observation)" });
    if (turn === 0) this.#history.pin({ role: "user", content }, turn);
    else this.#history.add({ role: "user", content }, turn);

    const maxInvalid = this.#opts.maxInvalidReplies ?? 3;
    for (let invalid = 0; ; ) {
      const reply = await this.#request(obs.signal);
      if (invalid === 0) this.#history.beginTurn();
      this.#history.add({ role: "assistant", content: reply.content as BetaContentBlockParam[] });
      const text = reply.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
      const uses = reply.content.flatMap((b) => (b.type === "tool_use" ? [b] : []));
      if (uses.length === 0) return this.#finish({ calls: [], done: true, message: text });
      const calls: StepCall[] = [];
      for (const use of uses) {
        if (use.name === "computer" && this.#computerEnv) {
          const plan = planAnthropicComputerAction(use.input, this.#computerEnv, computerShot, this.#toolNames);
          if ("error" in plan) this.#pending.push({ id: use.id, calls: 0, computer: true, error: `error: ${plan.error}` });
          else {
            calls.push(...plan.calls);
            this.#pending.push({ id: use.id, calls: plan.calls.length, computer: true, ...(plan.answer ? { answer: plan.answer } : {}) });
          }
        } else {
          calls.push({ tool: use.name, args: callToScreen(use.name, use.input, shots) });
          this.#pending.push({ id: use.id, calls: 1, computer: false });
        }
      }
      if (calls.length > 0) return this.#finish({ calls, message: text });
      const errors = this.#pending
        .splice(0)
        .map((p): BetaToolResultBlockParam => ({ type: "tool_result", tool_use_id: p.id, content: p.error ?? NOT_RUN, is_error: true }));
      if (++invalid >= maxInvalid) throw new Error(`the model gave ${invalid} unusable replies in a row; last: ${String(errors.at(-1)?.content)}`);
      this.#history.add({ role: "user", content: errors });
    }
  }

  /** The display the model is told about: the size of the screenshots it gets of the computer environment. */
  #setComputerTool(shot: Screenshot): void {
    const version = this.#opts.computerTool ?? "computer_20250124";
    const tool = {
      type: version,
      name: "computer" as const,
      display_width_px: shot.width,
      display_height_px: shot.height,
      ...(version === "computer_20251124" ? { enable_zoom: true } : {}),
    } as Tool;
    this.#tools = [tool, ...this.#tools.filter((t) => t.name !== "computer")];
  }

  /** tool_result blocks for the previous turn's tool uses, in order. */
  #answerPending(obs: AgentObservation, shots: Readonly<Record<string, Screenshot>>, computerShot: Screenshot | undefined): BetaContentBlockParam[] {
    const out: BetaToolResultBlockParam[] = [];
    let next = 0;
    const lastComputer = this.#pending.map((p) => p.computer && !p.error).lastIndexOf(true);
    for (const [i, p] of this.#pending.entries()) {
      if (p.error) {
        out.push({ type: "tool_result", tool_use_id: p.id, content: p.error, is_error: true });
        continue;
      }
      const results = obs.lastResults.slice(next, next + p.calls);
      next += p.calls;
      const failed = results.find((r) => !r.ok);
      if (failed || results.length < p.calls) {
        out.push({ type: "tool_result", tool_use_id: p.id, content: failed ? resultText(failed, shots[failed.env]) : NOT_RUN, is_error: true });
        continue;
      }
      if (!p.computer) {
        out.push({ type: "tool_result", tool_use_id: p.id, content: resultText(results[0]!, shots[results[0]!.env]) });
        continue;
      }
      const blocks: BetaToolResultContentBlockParam[] = [];
      if (p.answer === "cursor" && computerShot) {
        const c = screenToShot(computerShot, computerShot.cursor);
        blocks.push({ type: "text", text: `X=${c.x},Y=${c.y}` });
      }
      const returned = imageOf(results.at(-1));
      if (returned) blocks.push(image(returned));
      else if (computerShot && (p.answer === "screenshot" || i === lastComputer)) blocks.push(image(computerShot));
      if (blocks.length === 0) blocks.push({ type: "text", text: "ok" });
      out.push({ type: "tool_result", tool_use_id: p.id, content: blocks });
    }
    this.#pending = [];
    return out;
  }

  async #request(signal: AbortSignal): Promise<BetaMessage> {
    const o = this.#opts;
    const cache = o.promptCaching ?? true;
    const messages = this.#history.messages() as BetaMessageParam[];
    const body = {
      model: o.model,
      max_tokens: o.maxOutputTokens ?? 4096,
      system: cache ? [{ type: "text" as const, text: this.#system, cache_control: CACHE }] : this.#system,
      messages: cache ? withCachedPrefix(messages) : messages,
      tools: cache && this.#tools.length ? [...this.#tools.slice(0, -1), { ...this.#tools.at(-1)!, cache_control: CACHE }] : this.#tools,
      tool_choice: { type: o.toolChoice ?? "auto" } as const,
      ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
    };
    const send = (s: AbortSignal): Promise<BetaMessage> =>
      this.#computerEnv
        ? this.#client.beta.messages.create({ ...body, betas: [ANTHROPIC_COMPUTER_TOOLS[o.computerTool ?? "computer_20250124"]] }, { signal: s })
        : (this.#client.messages.create(body as never, { signal: s }) as unknown as Promise<BetaMessage>);
    const reply = await this.#meter.request(this.#client.baseURL, o, signal, send, (r) => replyShapeProblem(r, "a message", (v) => Array.isArray(v.content)));
    const u = reply.usage;
    this.#meter.add((u?.input_tokens ?? 0) + (u?.cache_creation_input_tokens ?? 0) + (u?.cache_read_input_tokens ?? 0), u?.output_tokens);
    return reply;
  }

  #finish(turn: Omit<AgentTurn, "usage">): AgentTurn {
    return { ...turn, usage: this.#meter.take() };
  }
}

/** The image a step returned (a forwarded zoom), if any. */
function imageOf(r: StepResult | undefined): Screenshot | undefined {
  if (!r?.ok || !r.result || typeof r.result !== "object") return undefined;
  const v = r.result as Partial<Screenshot>;
  return Buffer.isBuffer(v.data) && typeof v.mimeType === "string" && v.mimeType.startsWith("image/") ? (v as Screenshot) : undefined;
}
