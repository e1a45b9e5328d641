import { parseChord } from "@pincer/shared";
import { z } from "zod";
import { encodeToolName } from "../actions/names.js";
import type { StepCall } from "../benchmark/types.js";
import { screenshotToScreen } from "../env/index.js";
import type { Point, Screenshot } from "../env/index.js";
import { anthropicComputerInput, type AnthropicComputerInput } from "./computerUse.js";
import { openaiComputerInput } from "./openaiComputerUse.js";

/**
 * What one computer-use action of the model becomes in a benchmark: the step calls to run, and
 * what its tool result should show afterwards (the new screenshot, or the pointer position, both
 * read from the next observation).
 */
export type ComputerCallPlan = { calls: StepCall[]; answer?: "screenshot" | "cursor" } | { error: string };

/** The name of the full-vocabulary action ({@link createComputerAction} with `display: "screen"`). */
export const COMPUTER_ACTION_NAME = "computer";

/**
 * Plans one action of Anthropic's computer-use vocabulary as step calls on environment `env`,
 * scaling its coordinates from the screenshot the model saw (`shot`) to the screen:
 * - when the environment has a `computer` action (created with `display: "screen"`), the action is
 *   forwarded to it with screen coordinates, so every action of the vocabulary works;
 * - otherwise it is translated onto the standard desktop actions (click, double_click, right_click,
 *   move, drag, scroll, key, type, wait); middle_click, triple_click, hold_key, left_mouse_down/up
 *   and zoom then come back as errors that say so.
 * `screenshot` and `cursor_position` become a zero-second wait: the observation taken before the
 * next turn answers them.
 */
export function planAnthropicComputerAction(input: unknown, env: string, shot: Screenshot | undefined, tools: ReadonlySet<string>): ComputerCallPlan {
  const parsed = anthropicComputerInput.safeParse(input);
  if (!parsed.success) return { error: `invalid computer action: ${z.prettifyError(parsed.error)}` };
  const a = parsed.data;
  const tool = (action: string) => encodeToolName(env, action);
  const toScreen = (c: number[]): Point => {
    const p = { x: c[0]!, y: c[1]! };
    return shot ? screenshotToScreen(shot, p) : { x: Math.round(p.x), y: Math.round(p.y) };
  };
  if (a.action === "screenshot" || a.action === "cursor_position") {
    return { calls: [{ tool: tool("wait"), args: { seconds: 0 } }], answer: a.action === "screenshot" ? "screenshot" : "cursor" };
  }
  if (tools.has(tool(COMPUTER_ACTION_NAME))) return { calls: [{ tool: tool(COMPUTER_ACTION_NAME), args: forwarded(a, toScreen) }] };
  let modifiers: string[] | undefined;
  try {
    modifiers = a.text && a.action !== "key" && a.action !== "type" && a.action !== "hold_key" ? parseChord(a.text, "text").map((k) => k.name) : undefined;
  } catch (err) {
    return { error: (err as Error).message };
  }
  const held = modifiers ? { modifiers } : {};
  const here = (): Point | { error: string } => {
    if (a.coordinate) return toScreen(a.coordinate);
    if (shot) return shot.cursor;
    return { error: `${a.action} needs coordinate` };
  };
  switch (a.action) {
    case "key":
      if (!a.text) return { error: "key needs text" };
      return {
        calls: a.text
          .trim()
          .split(/\s+/)
          .map((keys) => ({ tool: tool("key"), args: { keys } })),
      };
    case "type":
      if (!a.text) return { error: "type needs text" };
      return { calls: [{ tool: tool("type"), args: { text: a.text } }] };
    case "mouse_move":
    case "left_click":
    case "right_click":
    case "double_click": {
      const p = here();
      if ("error" in p) return p;
      const target = { mouse_move: "move", left_click: "click", right_click: "right_click", double_click: "double_click" }[a.action];
      return { calls: [{ tool: tool(target), args: { ...p, ...(a.action === "mouse_move" ? {} : held) } }] };
    }
    case "left_click_drag": {
      if (!a.start_coordinate || !a.coordinate) return { error: "left_click_drag needs start_coordinate and coordinate" };
      const s = toScreen(a.start_coordinate);
      const e = toScreen(a.coordinate);
      return { calls: [{ tool: tool("drag"), args: { start_x: s.x, start_y: s.y, end_x: e.x, end_y: e.y, ...held } }] };
    }
    case "scroll": {
      if (!a.scroll_direction) return { error: "scroll needs scroll_direction" };
      const n = a.scroll_amount ?? 3;
      const d = a.scroll_direction;
      const where = a.coordinate ? toScreen(a.coordinate) : {};
      return {
        calls: [
          { tool: tool("scroll"), args: { dx: d === "left" ? -n : d === "right" ? n : 0, dy: d === "up" ? -n : d === "down" ? n : 0, ...where, ...held } },
        ],
      };
    }
    case "wait":
      return { calls: [{ tool: tool("wait"), args: { seconds: Math.min(60, a.duration ?? 1) } }] };
    default:
      return {
        error:
          `${a.action} is not available on ${env}: its action space has the standard desktop actions but no ${COMPUTER_ACTION_NAME} action; use left_click, ` +
          `double_click, right_click, left_click_drag, mouse_move, scroll, key or type`,
      };
  }
}

/** The action with its coordinates on the screen, for a `computer` action with `display: "screen"`. */
function forwarded(a: AnthropicComputerInput, toScreen: (c: number[]) => Point): AnthropicComputerInput {
  const out: AnthropicComputerInput = { ...a };
  if (a.coordinate) {
    const p = toScreen(a.coordinate);
    out.coordinate = [p.x, p.y];
  }
  if (a.start_coordinate) {
    const p = toScreen(a.start_coordinate);
    out.start_coordinate = [p.x, p.y];
  }
  if (a.region) {
    const p = toScreen([a.region[0]!, a.region[1]!]);
    const q = toScreen([a.region[2]!, a.region[3]!]);
    out.region = [p.x, p.y, q.x, q.y];
  }
  return out;
}

/** The name of the agent's OpenAI-vocabulary action (`createComputerAction({ vocabulary: "openai", display: "screen" })`). */
export const OPENAI_COMPUTER_ACTION_NAME = "openai_computer";

/**
 * Plans one action of OpenAI's computer-use vocabulary (a `computer_call`'s `action`) as a call of
 * the {@link OPENAI_COMPUTER_ACTION_NAME} action on environment `env`, its coordinates scaled from
 * the screenshot the model saw (`shot`) to the screen. Fields the API sends as `null` are dropped.
 * `screenshot` becomes a zero-second wait: the observation taken before the next turn answers it.
 */
export function planOpenAIComputerAction(input: unknown, env: string, shot: Screenshot | undefined): ComputerCallPlan {
  const cleaned = input && typeof input === "object" ? Object.fromEntries(Object.entries(input).filter(([, v]) => v !== null)) : input;
  const parsed = openaiComputerInput.safeParse(cleaned);
  if (!parsed.success) return { error: `invalid computer action: ${z.prettifyError(parsed.error)}` };
  const a = parsed.data;
  if (a.type === "screenshot") return { calls: [{ tool: encodeToolName(env, "wait"), args: { seconds: 0 } }], answer: "screenshot" };
  const toScreen = (p: Point): Point => (shot ? screenshotToScreen(shot, p) : { x: Math.round(p.x), y: Math.round(p.y) });
  const args = { ...a };
  if (a.x !== undefined && a.y !== undefined) Object.assign(args, toScreen({ x: a.x, y: a.y }));
  if (a.path) args.path = a.path.map(toScreen);
  return { calls: [{ tool: encodeToolName(env, OPENAI_COMPUTER_ACTION_NAME), args }] };
}
