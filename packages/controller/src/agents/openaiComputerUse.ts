import { InvalidArgumentError } from "@pincer/shared";
import { z } from "zod";
import { sleep } from "@pincer/shared";
import type { Env, MouseButton, Point } from "../env/index.js";
import type { ComputerActionResult, ComputerRunOptions, DisplayMapping } from "./computerDisplay.js";

/** OpenAI's computer-use actions (the `action` of a `computer_call` in the Responses API). */
export const OPENAI_COMPUTER_ACTIONS = ["click", "double_click", "drag", "keypress", "move", "scroll", "type", "wait", "screenshot"] as const;

/** Scroll distance, in pixels, that one wheel notch stands for. */
export const PIXELS_PER_SCROLL_NOTCH = 100;

const pixel = z.number();

/** An OpenAI computer-use action, as the model sends it (coordinates in display pixels). */
export const openaiComputerInput = z.object({
  type: z.enum(OPENAI_COMPUTER_ACTIONS).describe("What to do"),
  x: pixel.optional().describe("Horizontal position in display pixels"),
  y: pixel.optional().describe("Vertical position in display pixels"),
  button: z.enum(["left", "right", "wheel", "back", "forward"]).optional().describe("For click. @default left"),
  path: z
    .array(z.object({ x: pixel, y: pixel }))
    .min(2)
    .optional()
    .describe("For drag: the points the pointer passes, pressed at the first"),
  keys: z
    .array(z.string())
    .optional()
    .describe('For keypress: keys pressed together, e.g. ["CTRL", "A"]; for click, double_click, drag and scroll: keys held meanwhile'),
  scroll_x: z.number().optional().describe("For scroll: pixels to the right (negative: left)"),
  scroll_y: z.number().optional().describe("For scroll: pixels down (negative: up)"),
  text: z.string().optional().describe("For type"),
  ms: z.number().min(0).max(60_000).optional().describe("For wait, in milliseconds. @default 1000"),
});

/** An OpenAI computer-use action. */
export type OpenAIComputerInput = z.output<typeof openaiComputerInput>;

/** Pixels → wheel notches: at least one notch for any non-zero distance. */
export function scrollNotches(pixels: number | undefined): number {
  if (!pixels) return 0;
  return Math.sign(pixels) * Math.max(1, Math.round(Math.abs(pixels) / PIXELS_PER_SCROLL_NOTCH));
}

/**
 * OpenAI's key names (`CTRL`, `ENTER`, `ARROWLEFT`, `A`) as a Pincer chord. Pincer's vocabulary
 * already takes the names in any case; a letter is lower-cased when it comes with other keys, since
 * `["CTRL", "A"]` means ctrl+a, not ctrl+shift+a.
 */
export function openaiKeysToChord(keys: readonly string[]): string {
  return keys.map((k) => (keys.length > 1 && /^[A-Z]$/.test(k) ? k.toLowerCase() : k === "+" ? "plus" : k)).join("+");
}

/**
 * Runs one action of OpenAI's computer-use vocabulary on `env`: coordinates go from display to
 * screen through `mapping`; `wheel` is the middle button; `back`/`forward` press the XF86Back and
 * XF86Forward keys; scroll distances are turned into wheel notches ({@link PIXELS_PER_SCROLL_NOTCH}).
 */
export async function runOpenAIComputerAction(
  env: Env,
  input: OpenAIComputerInput,
  mapping: DisplayMapping,
  opts: ComputerRunOptions = {},
): Promise<ComputerActionResult> {
  const { signal } = opts;
  // Keys held during a pointer action (OpenAI's names; Pincer matches them ignoring case).
  const held = input.type !== "keypress" && input.keys?.length ? { modifiers: input.keys } : {};
  const at = (): Point => {
    if (input.x === undefined || input.y === undefined) throw new InvalidArgumentError(`${input.type} needs x and y`);
    return mapping.toScreen({ x: input.x, y: input.y });
  };
  switch (input.type) {
    case "click": {
      const button = input.button ?? "left";
      if (button === "back" || button === "forward") {
        await env.mouse.move(at(), { signal });
        await env.keyboard.press(button === "back" ? "XF86Back" : "XF86Forward", { signal });
        return null;
      }
      const b: MouseButton = button === "wheel" ? "middle" : button;
      await env.mouse.click({ at: at(), button: b, signal, ...held });
      return null;
    }
    case "double_click":
      await env.mouse.click({ at: at(), count: 2, signal, ...held });
      return null;
    case "drag": {
      if (!input.path) throw new InvalidArgumentError("drag needs path");
      await env.mouse.drag(
        input.path.map((p) => mapping.toScreen(p)),
        { signal, ...held },
      );
      return null;
    }
    case "keypress":
      if (!input.keys?.length) throw new InvalidArgumentError("keypress needs keys");
      await env.keyboard.press(openaiKeysToChord(input.keys), { signal });
      return null;
    case "move":
      await env.mouse.move(at(), { signal });
      return null;
    case "scroll": {
      const where = input.x !== undefined && input.y !== undefined ? { at: at() } : {};
      await env.mouse.scroll({ dx: scrollNotches(input.scroll_x), dy: scrollNotches(input.scroll_y), signal, ...where, ...held });
      return null;
    }
    case "type":
      if (input.text === undefined) throw new InvalidArgumentError("type needs text");
      await env.keyboard.type(input.text, { signal });
      return null;
    case "wait":
      await sleep(input.ms ?? 1000, signal);
      return null;
    case "screenshot":
      return mapping.screenshot(env, { signal, ...(opts.format ? { format: opts.format } : {}) });
  }
}
