import { InvalidArgumentError, parseChord } from "@pincer/shared";
import { z } from "zod";
import { action, type Action } from "../actions/action.js";
import { sleep } from "@pincer/shared";
import type { Env, Screenshot, ScreenshotOptions } from "../env/index.js";
import { DisplayMapping, type ComputerActionResult, type ComputerRunOptions, type DisplaySetting } from "./computerDisplay.js";
import { openaiComputerInput, runOpenAIComputerAction } from "./openaiComputerUse.js";

/** Anthropic's computer-use actions (tool versions computer_20250124 and computer_20251124). */
export const ANTHROPIC_COMPUTER_ACTIONS = [
  "key",
  "type",
  "mouse_move",
  "left_click",
  "left_click_drag",
  "right_click",
  "middle_click",
  "double_click",
  "triple_click",
  "scroll",
  "hold_key",
  "wait",
  "left_mouse_down",
  "left_mouse_up",
  "screenshot",
  "cursor_position",
  "zoom",
] as const;

/** One of {@link ANTHROPIC_COMPUTER_ACTIONS}. */
export type AnthropicComputerActionName = (typeof ANTHROPIC_COMPUTER_ACTIONS)[number];

const coordinate = z.array(z.number()).length(2);

/** The input of Anthropic's `computer` tool, as the model sends it (coordinates in display pixels). */
export const anthropicComputerInput = z.object({
  action: z.enum(ANTHROPIC_COMPUTER_ACTIONS).describe("What to do"),
  coordinate: coordinate.optional().describe("[x, y] in display pixels: where to move, click, scroll, or where a drag ends"),
  start_coordinate: coordinate.optional().describe("[x, y] where left_click_drag starts"),
  text: z.string().optional().describe("Text to type; the key chord for key and hold_key; keys held during a click or scroll"),
  scroll_direction: z.enum(["up", "down", "left", "right"]).optional(),
  scroll_amount: z.number().int().min(0).max(100).optional().describe("Scroll-wheel notches"),
  duration: z.number().min(0).max(100).optional().describe("Seconds, for wait and hold_key"),
  region: z.array(z.number()).length(4).optional().describe("[x1, y1, x2, y2] in display pixels, for zoom"),
});

/** Input of Anthropic's `computer` tool. */
export type AnthropicComputerInput = z.output<typeof anthropicComputerInput>;

function need<T>(value: T | undefined, field: string, act: string): T {
  if (value === undefined) throw new InvalidArgumentError(`${act} needs ${field}`);
  return value;
}

/** Keys held during a click or scroll: Anthropic sends them in `text` ("shift", "ctrl+alt"). */
function heldKeys(text: string | undefined): { modifiers?: string[] } {
  if (!text) return {};
  return { modifiers: parseChord(text, "text").map((k) => k.name) };
}

/**
 * Runs one action of Anthropic's computer-use vocabulary on `env`. Coordinates come in display
 * pixels and go to the screen through `mapping`; screenshots come back at the display size.
 */
export async function runAnthropicComputerAction(
  env: Env,
  input: AnthropicComputerInput,
  mapping: DisplayMapping,
  opts: ComputerRunOptions = {},
): Promise<ComputerActionResult> {
  const { signal } = opts;
  const act = input.action;
  const at = (c: number[] | undefined) => (c ? mapping.toScreen({ x: c[0]!, y: c[1]! }) : undefined);
  const point = (c: number[] | undefined, field = "coordinate") => at(need(c, field, act))!;
  const clickAt = (c: number[] | undefined) => (c ? { at: at(c)! } : {});
  switch (act) {
    case "key":
      // xdotool syntax: several chords separated by spaces are pressed in turn.
      for (const chord of need(input.text, "text", act).trim().split(/\s+/)) await env.keyboard.press(chord, { signal });
      return null;
    case "type":
      await env.keyboard.type(need(input.text, "text", act), { signal });
      return null;
    case "mouse_move":
      await env.mouse.move(point(input.coordinate), { signal });
      return null;
    case "left_click":
    case "right_click":
    case "middle_click":
    case "double_click":
    case "triple_click": {
      const button = act === "right_click" ? "right" : act === "middle_click" ? "middle" : "left";
      const count = act === "double_click" ? 2 : act === "triple_click" ? 3 : 1;
      await env.mouse.click({ button, count, signal, ...clickAt(input.coordinate), ...heldKeys(input.text) });
      return null;
    }
    case "left_click_drag":
      await env.mouse.drag([point(input.start_coordinate, "start_coordinate"), point(input.coordinate)], { signal });
      return null;
    case "scroll": {
      const amount = input.scroll_amount ?? 3;
      const dir = need(input.scroll_direction, "scroll_direction", act);
      const dx = dir === "left" ? -amount : dir === "right" ? amount : 0;
      const dy = dir === "up" ? -amount : dir === "down" ? amount : 0;
      await env.mouse.scroll({ dx, dy, signal, ...clickAt(input.coordinate), ...heldKeys(input.text) });
      return null;
    }
    case "hold_key":
      await holdKeys(env, need(input.text, "text", act), need(input.duration, "duration", act), signal);
      return null;
    case "wait":
      await sleep((input.duration ?? 1) * 1000, signal);
      return null;
    case "left_mouse_down":
    case "left_mouse_up": {
      const where = at(input.coordinate);
      const o = { signal, ...(where ? { at: where } : {}) };
      await (act === "left_mouse_down" ? env.mouse.down("left", o) : env.mouse.up("left", o));
      return null;
    }
    case "screenshot":
      return mapping.screenshot(env, { signal, ...(opts.format ? { format: opts.format } : {}) });
    case "cursor_position":
      return mapping.fromScreen(await env.mouse.position({ signal }));
    case "zoom":
      return zoom(env, need(input.region, "region", act) as [number, number, number, number], mapping, opts);
  }
}

/** Holds a chord's keys for `seconds`, then releases the ones it pressed, in reverse order. */
async function holdKeys(env: Env, chord: string, seconds: number, signal: AbortSignal | undefined): Promise<void> {
  const keys = parseChord(chord, "text").map((k) => k.name);
  const pressed: string[] = [];
  try {
    for (const k of keys) {
      await env.keyboard.down(k, { signal });
      pressed.push(k);
    }
    await sleep(seconds * 1000, signal);
  } finally {
    for (const k of pressed.reverse()) await env.keyboard.up(k).catch(() => undefined);
  }
}

/** A region of the display (two corners, in display pixels) at screen resolution, as large as the display allows. */
function zoom(env: Env, [x1, y1, x2, y2]: [number, number, number, number], mapping: DisplayMapping, opts: ComputerRunOptions): Promise<Screenshot> {
  const a = mapping.toScreen({ x: Math.min(x1, x2), y: Math.min(y1, y2) });
  const b = mapping.toScreen({ x: Math.max(x1, x2), y: Math.max(y1, y2) });
  const region = { x: a.x, y: a.y, width: Math.max(1, b.x - a.x), height: Math.max(1, b.y - a.y) };
  return env.screen.screenshot({
    format: opts.format ?? "png",
    region,
    maxWidth: mapping.display.width,
    maxHeight: mapping.display.height,
    signal: opts.signal,
  });
}

/** Options of {@link createComputerAction}. */
export interface ComputerActionOptions {
  /** Whose vocabulary: Anthropic's `computer` tool or OpenAI's `computer_use_preview` actions. @default "anthropic" */
  vocabulary?: "anthropic" | "openai";
  /** The display the model sees (see {@link DisplaySetting}). @default "auto" */
  display?: DisplaySetting;
  /** Action name. @default "computer" */
  name?: string;
  /** Image format of screenshots. @default "png" */
  format?: ScreenshotOptions["format"];
}

/**
 * An action that takes one computer-use action in Anthropic's or OpenAI's vocabulary and performs it
 * on `env`, scaling coordinates between the model's display and the screen. Put it in an
 * environment's action space (or serve it over MCP) to give a computer-use model its native tool.
 */
export function createComputerAction(opts: ComputerActionOptions = {}): Action<z.ZodObject, ComputerActionResult> {
  const vocabulary = opts.vocabulary ?? "anthropic";
  const setting = opts.display ?? "auto";
  const runOpts = (signal: AbortSignal) => ({ signal, ...(opts.format ? { format: opts.format } : {}) });
  const scaling =
    setting === "screen"
      ? "Coordinates are screen pixels."
      : "Coordinates are pixels of the screenshots this tool returns (take one first); they are scaled to the real screen.";
  if (vocabulary === "openai") {
    return action({
      name: opts.name ?? "computer",
      description: `Use the computer with OpenAI's computer-use actions: click, double_click, drag, keypress, move, scroll, type, wait, screenshot. ${scaling}`,
      params: openaiComputerInput as z.ZodObject,
      async run(input, { env, signal }) {
        return runOpenAIComputerAction(
          env,
          input as z.output<typeof openaiComputerInput>,
          await DisplayMapping.forEnv(env, setting, { signal }),
          runOpts(signal),
        );
      },
    });
  }
  return action({
    name: opts.name ?? "computer",
    description: `Use the computer with Anthropic's computer-use actions (${ANTHROPIC_COMPUTER_ACTIONS.join(", ")}). ${scaling}`,
    params: anthropicComputerInput as z.ZodObject,
    async run(input, { env, signal }) {
      return runAnthropicComputerAction(env, input as AnthropicComputerInput, await DisplayMapping.forEnv(env, setting, { signal }), runOpts(signal));
    },
  });
}

export type { ComputerActionResult, ComputerRunOptions } from "./computerDisplay.js";
