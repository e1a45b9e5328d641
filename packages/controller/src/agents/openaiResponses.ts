import type OpenAI from "openai";
import type {
  ComputerUsePreviewTool,
  FunctionTool,
  Response,
  ResponseComputerToolCall,
  ResponseCreateParamsNonStreaming,
  ResponseInputContent,
  ResponseInputItem,
} from "openai/resources/responses/responses";
import { InvalidArgumentError } from "@pincer/shared";
import type { AnyAction } from "../actions/action.js";
import { inlineRefs, type JsonSchema } from "../actions/jsonSchema.js";
import { decodeToolName, encodeToolName } from "../actions/names.js";
import type { StepCall } from "../benchmark/types.js";
import type { Screenshot } from "../env/index.js";
import {
  accessibilityCaption,
  callToScreen,
  dataUrl,
  environmentsOfTools,
  NOT_RUN,
  resultText,
  screenshotCaption,
  systemPrompt,
  UsageMeter,
  type ProviderAgentOptions,
} from "./common.js";
import { replyShapeProblem } from "./modelCall.js";
import { COMPUTER_ACTION_NAME, OPENAI_COMPUTER_ACTION_NAME, planOpenAIComputerAction } from "./computerCalls.js";
import { createComputerAction } from "./computerUse.js";
import { openaiClient } from "./openai.js";
import type { Agent, AgentObservation, AgentTaskContext, AgentTurn } from "./types.js";

/** Options of {@link OpenAIResponsesAgent}. */
export interface OpenAIResponsesAgentOptions extends ProviderAgentOptions {
  /** The environment the computer tool drives. @default the first environment that has a `click` tool */
  computerEnvironment?: string;
  /** `environment` of the computer tool: what kind of computer the model is told it drives. @default "linux" */
  computerKind?: ComputerUsePreviewTool["environment"];
}

/** The desktop actions the computer tool stands in for. */
const REPLACED = new Set([
  "click",
  "double_click",
  "right_click",
  "move",
  "drag",
  "scroll",
  "key",
  "type",
  "screenshot",
  "wait",
  COMPUTER_ACTION_NAME,
  OPENAI_COMPUTER_ACTION_NAME,
]);

/** A call of the model's previous reply, waiting for its results. */
interface Pending {
  callId: string;
  kind: "computer" | "function";
  /** Step calls made for it (a batch of computer actions makes several). */
  calls: number;
  /** Safety checks acknowledged in its answer (computer calls). */
  safetyChecks?: ResponseComputerToolCall.PendingSafetyCheck[];
  /** Set when the call was not run; the text is the error. */
  error?: string;
}

/**
 * An agent on OpenAI's Responses API with the computer-use tool (`computer_use_preview`, for models
 * such as `computer-use-preview`): the model's `computer_call` actions run through the OpenAI
 * computer-use vocabulary on one environment (coordinates scaled from the screenshot it saw to the
 * screen), each answered by a `computer_call_output` with the next screenshot; Pincer's other tools
 * are function tools beside it. Reads `OPENAI_API_KEY` and `OPENAI_BASE_URL` when not given.
 *
 * - The conversation is chained with `previous_response_id`: the server keeps it, so each request
 *   sends only the new items, and the model's reasoning items (which computer calls refer to and
 *   which are not readable otherwise) stay with it. `truncation: "auto"` lets the server drop the
 *   oldest items when the context fills; `history` (`--max-history`) does not apply.
 * - Pending safety checks (`pending_safety_checks`) are acknowledged automatically (a benchmark
 *   runs unattended, on a machine made for it) and written into the turn's message, so the
 *   trajectory shows each one.
 */
export class OpenAIResponsesAgent implements Agent {
  readonly name = "openai-cu";
  readonly model: string;
  readonly wantsScreenshots = true;
  /** The OpenAI-vocabulary computer action ({@link OPENAI_COMPUTER_ACTION_NAME}), in screen pixels. */
  readonly actions: readonly AnyAction[] = [createComputerAction({ vocabulary: "openai", display: "screen", name: OPENAI_COMPUTER_ACTION_NAME })];
  readonly #opts: OpenAIResponsesAgentOptions;
  readonly #client: OpenAI;
  #ctx: AgentTaskContext | undefined;
  #instructions = "";
  #functions: FunctionTool[] = [];
  #computerEnv = "";
  #previousId: string | undefined;
  #pending: Pending[] = [];
  #turn = 0;
  #meter: UsageMeter;

  constructor(opts: OpenAIResponsesAgentOptions) {
    if (!opts.model) throw new InvalidArgumentError("the openai-cu agent needs a model (--model)");
    this.#opts = opts;
    this.model = opts.model;
    this.#client = openaiClient("openai-cu", opts);
    this.#meter = new UsageMeter(opts.model, opts.prices);
  }

  start(ctx: AgentTaskContext): void {
    this.#ctx = ctx;
    this.#pending = [];
    this.#previousId = undefined;
    this.#turn = 0;
    const names = new Set(ctx.tools.map((t) => t.name));
    const env = this.#opts.computerEnvironment ?? environmentsOfTools(ctx).find((e) => names.has(encodeToolName(e, "click")));
    if (!env) throw new InvalidArgumentError("the openai-cu agent needs an environment with desktop actions (none has a click tool)");
    this.#computerEnv = env;
    this.#functions = ctx.tools
      .filter((t) => {
        const d = decodeToolName(t.name);
        return !(d && d.environment === env && REPLACED.has(d.action));
      })
      .map((t) => ({ type: "function", name: t.name, description: t.description, parameters: inlineRefs(t.parameters as JsonSchema), strict: false }));
    const extra = `The computer tool drives ${env}; its coordinates are pixels of the screenshots of ${env}.`;
    this.#instructions = this.#opts.systemPrompt ?? systemPrompt(ctx, extra);
  }

  async act(obs: AgentObservation): Promise<AgentTurn> {
    const ctx = this.#ctx;
    if (!ctx) throw new Error("OpenAIResponsesAgent.act before start");
    const turn = this.#turn++;
    const shot = obs.screenshots[this.#computerEnv];
    if (!shot) throw new Error(`the openai-cu agent got no screenshot of ${this.#computerEnv}`);
    const notes: string[] = [];
    let input: ResponseInputItem[] = turn === 0 ? [] : this.#answerPending(obs, shot);
    const answeredWithShot = input.some((i) => "type" in i && i.type === "computer_call_output");
    const observation = this.#observationMessage(turn === 0 ? `Task: ${ctx.instruction}` : "", obs, !answeredWithShot);
    if (observation) input.push(observation);
    const maxInvalid = this.#opts.maxInvalidReplies ?? 3;
    for (let invalid = 0; ; ) {
      const reply = await this.#request(input, shot, obs.signal);
      this.#previousId = reply.id;
      const text = replyText(reply);
      const calls = this.#plan(reply, obs, shot, notes);
      const message = [text, ...notes].filter(Boolean).join("\n") || undefined;
      if (this.#pending.length === 0) return this.#finish({ calls: [], done: true, ...(message ? { message } : {}) });
      if (calls.length > 0) return this.#finish({ calls, ...(message ? { message } : {}) });
      const last = this.#pending.at(-1)?.error ?? "?";
      if (++invalid >= maxInvalid) throw new Error(`the model gave ${invalid} unusable replies in a row; last: ${last}`);
      input = this.#answerPending({ ...obs, lastResults: [] }, shot);
    }
  }

  /** Step calls for the reply's computer and function calls; what cannot run is kept as an error to answer with. */
  #plan(reply: Response, obs: AgentObservation, shot: Screenshot, notes: string[]): StepCall[] {
    const shots = this.#opts.coordinates === "screen" ? {} : obs.screenshots;
    const calls: StepCall[] = [];
    for (const item of reply.output) {
      if (item.type === "computer_call") {
        const checks = item.pending_safety_checks ?? [];
        for (const c of checks) notes.push(`safety check acknowledged: ${c.code ?? c.id}${c.message ? `: ${c.message}` : ""}`);
        const actions = item.action ? [item.action] : (item.actions ?? []);
        const plans = actions.map((a) => planOpenAIComputerAction(a, this.#computerEnv, shot));
        const failed = plans.find((p) => "error" in p);
        const pending: Pending = { callId: item.call_id, kind: "computer", calls: 0, ...(checks.length ? { safetyChecks: checks } : {}) };
        if (failed && "error" in failed) pending.error = `error: ${failed.error}`;
        else if (actions.length === 0) pending.error = "error: the computer call has no action";
        else {
          const steps = plans.flatMap((p) => ("calls" in p ? p.calls : []));
          calls.push(...steps);
          pending.calls = steps.length;
        }
        this.#pending.push(pending);
      } else if (item.type === "function_call") {
        try {
          const args: unknown = item.arguments.trim() === "" ? {} : JSON.parse(item.arguments);
          calls.push({ tool: item.name, args: callToScreen(item.name, args, shots) });
          this.#pending.push({ callId: item.call_id, kind: "function", calls: 1 });
        } catch (err) {
          const error = `error: the arguments of ${item.name} are not valid JSON (${(err as Error).message}); nothing ran. Call it again with a JSON object.`;
          this.#pending.push({ callId: item.call_id, kind: "function", calls: 0, error });
        }
      }
    }
    return calls;
  }

  /** Output items for the previous reply's calls, in order, then a note of the computer actions that failed. */
  #answerPending(obs: AgentObservation, shot: Screenshot): ResponseInputItem[] {
    const shots = this.#opts.coordinates === "screen" ? {} : obs.screenshots;
    const out: ResponseInputItem[] = [];
    const failures: string[] = [];
    let next = 0;
    for (const p of this.#pending) {
      const results = obs.lastResults.slice(next, next + p.calls);
      next += p.calls;
      const failed = results.find((r) => !r.ok);
      const error = p.error ?? (failed ? resultText(failed, shots[failed.env]) : results.length < p.calls ? NOT_RUN : undefined);
      if (p.kind === "function") {
        out.push({ type: "function_call_output", call_id: p.callId, output: error ?? resultText(results[0]!, shots[results[0]!.env]) });
        continue;
      }
      // A computer call is answered with the screen as it is now, whatever happened.
      out.push({
        type: "computer_call_output",
        call_id: p.callId,
        output: { type: "computer_screenshot", image_url: dataUrl(shot) },
        ...(p.safetyChecks ? { acknowledged_safety_checks: p.safetyChecks.map((c) => ({ id: c.id, code: c.code ?? null, message: c.message ?? null })) } : {}),
      });
      if (error) failures.push(`The computer action of call ${p.callId} failed: ${error}`);
    }
    this.#pending = [];
    if (failures.length) out.push({ role: "user", content: [{ type: "input_text", text: failures.join("\n") }] });
    return out;
  }

  /**
   * The task (first turn), the screenshots of the other environments (and of the computer's when no
   * call answered with it) and the accessibility trees; nothing when there is nothing new.
   */
  #observationMessage(text: string, obs: AgentObservation, withComputerShot: boolean): ResponseInputItem | undefined {
    const parts: ResponseInputContent[] = [];
    if (text) parts.push({ type: "input_text", text });
    for (const [env, s] of Object.entries(obs.screenshots)) {
      if (env === this.#computerEnv && !withComputerShot) continue;
      parts.push({ type: "input_text", text: screenshotCaption(env, s) }, { type: "input_image", image_url: dataUrl(s), detail: "auto" });
    }
    for (const [env, tree] of Object.entries(obs.accessibility ?? {})) parts.push({ type: "input_text", text: accessibilityCaption(env, tree) });
    if (parts.length === 0) return withComputerShot ? { role: "user", content: [{ type: "input_text", text: "(no new observation)" }] } : undefined;
    return { role: "user", content: parts };
  }

  async #request(input: ResponseInputItem[], shot: Screenshot, signal: AbortSignal): Promise<Response> {
    const o = this.#opts;
    const computer: ComputerUsePreviewTool = {
      type: "computer_use_preview",
      display_width: shot.width,
      display_height: shot.height,
      environment: o.computerKind ?? "linux",
    };
    const body: ResponseCreateParamsNonStreaming = {
      model: o.model,
      instructions: this.#instructions,
      input,
      tools: [computer, ...this.#functions],
      // The computer-use tool requires it.
      truncation: "auto",
      max_output_tokens: o.maxOutputTokens ?? 4096,
      ...(this.#previousId ? { previous_response_id: this.#previousId } : {}),
      ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
    };
    const reply = await this.#meter.request(
      this.#client.baseURL,
      o,
      signal,
      (s) => this.#client.responses.create(body, { signal: s }),
      (r) => replyShapeProblem(r, "a response", (v) => Array.isArray(v.output)),
    );
    this.#meter.add(reply.usage?.input_tokens, reply.usage?.output_tokens);
    return reply;
  }

  #finish(turn: Omit<AgentTurn, "usage">): AgentTurn {
    return { ...turn, usage: this.#meter.take() };
  }
}

/** The text of the reply's messages. */
function replyText(reply: Response): string {
  return reply.output.flatMap((item) => (item.type === "message" ? item.content.flatMap((c) => (c.type === "output_text" ? [c.text] : [])) : [])).join("\n");
}
