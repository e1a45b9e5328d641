import { ENCODED_IMAGE_FORMATS, parseChord, resolveKey, sleep } from "@pincer/shared";
import { z } from "zod";
import type { Env, Point } from "../env/index.js";
import { action } from "./action.js";

/**
 * How the desktop actions read coordinates:
 * - `"pixels"`: screen pixels, origin top-left (what the daemon takes);
 * - `"normalized"`: fractions of the screen in [0, 1], mapped to pixels with the screen size at
 *   call time (`x * (width - 1)`, rounded), so they survive any resolution and screenshot scaling.
 */
export type CoordinateMode = "pixels" | "normalized";

/** Options of {@link createDesktopActions}. */
export interface DesktopActionsOptions {
  /** @default "pixels" */
  coordinates?: CoordinateMode;
}

const keyName = z.string().refine((k) => resolveKey(k) !== undefined, {
  message: "unknown key name; use an X keysym name (Return, Page_Up, F5), an alias (ctrl, shift, alt, super, enter, esc) or one character",
});

/** A key chord such as "ctrl+shift+t", validated against Pincer's key vocabulary. */
export const chordSchema = z.string().superRefine((chord, ctx) => {
  try {
    parseChord(chord, "keys");
  } catch (err) {
    ctx.addIssue({ code: "custom", message: (err as Error).message });
  }
});

const modifiers = z.array(keyName).optional().describe('Keys held during the action, e.g. ["shift"] or ["ctrl", "alt"]');

/** Seconds to wait, 0 to 60. */
export const wait = action({
  name: "wait",
  description: "Wait for the screen to settle (a page to load, a program to start) before the next action.",
  params: z.object({ seconds: z.number().min(0).max(60).default(1).describe("How long to wait, in seconds (0 to 60)") }),
  local: true,
  run: ({ seconds }, { signal }) => sleep(seconds * 1000, signal),
});

/** How one coordinate mode reads points from an agent and gives them back. */
interface CoordinateSpace {
  coord(axis: "x" | "y"): z.ZodNumber;
  point: z.ZodObject<{ x: z.ZodNumber; y: z.ZodNumber }>;
  /** "in screen pixels", for descriptions. */
  unit: string;
  toScreen(env: Env, p: Point, signal: AbortSignal): Promise<Point>;
  fromScreen(env: Env, p: Point, signal: AbortSignal): Promise<Point>;
}

function coordinateSpace(mode: CoordinateMode): CoordinateSpace {
  const normalized = mode === "normalized";
  const coord = (axis: "x" | "y") =>
    normalized
      ? z
          .number()
          .min(0)
          .max(1)
          .describe(
            `${axis === "x" ? "Horizontal" : "Vertical"} position as a fraction of the screen ` +
              `${axis === "x" ? "width from the left" : "height from the top"} edge, 0 to 1`,
          )
      : z
          .number()
          .int()
          .min(0)
          .describe(`${axis === "x" ? "Horizontal" : "Vertical"} position in screen pixels from the ${axis === "x" ? "left" : "top"} edge`);
  return {
    coord,
    point: z.object({ x: coord("x"), y: coord("y") }),
    unit: normalized ? "as fractions of the screen (0 to 1)" : "in screen pixels",
    async toScreen(env, p, signal) {
      if (!normalized) return p;
      const size = await env.screen.size({ signal });
      return { x: Math.round(p.x * (size.width - 1)), y: Math.round(p.y * (size.height - 1)) };
    },
    async fromScreen(env, p, signal) {
      if (!normalized) return p;
      const size = await env.screen.size({ signal });
      return { x: p.x / Math.max(1, size.width - 1), y: p.y / Math.max(1, size.height - 1) };
    },
  };
}

const returnedPoint = z.object({ x: z.number(), y: z.number() });

function clickActions(space: CoordinateSpace) {
  const clickAction = (name: string, what: string, button: "left" | "right", count: number) =>
    action({
      name,
      description: `${what} at a point of the screen given ${space.unit}. Returns where the pointer is afterwards.`,
      params: space.point.extend({ modifiers }),
      returns: returnedPoint,
      async run({ x, y, modifiers: held }, { env, signal }) {
        const at = await space.toScreen(env, { x, y }, signal);
        const end = await env.mouse.click({ at, button, count, signal, ...(held ? { modifiers: held } : {}) });
        return space.fromScreen(env, end, signal);
      },
    });
  return {
    click: clickAction("click", "Left-click", "left", 1),
    double_click: clickAction("double_click", "Double-click with the left button", "left", 2),
    right_click: clickAction("right_click", "Right-click (usually opens a context menu)", "right", 1),
  };
}

function pointerActions(space: CoordinateSpace) {
  const { coord, toScreen, fromScreen, unit } = space;
  return {
    move: action({
      name: "move",
      description: `Move the pointer to a point given ${unit}, without clicking (to hover).`,
      params: space.point,
      returns: returnedPoint,
      run: async (p, { env, signal }) => fromScreen(env, await env.mouse.move(await toScreen(env, p, signal), { signal }), signal),
    }),
    drag: action({
      name: "drag",
      description: `Press the left button at one point, move to another and release (to drag, select or resize), ${unit}.`,
      params: z.object({
        start_x: coord("x"),
        start_y: coord("y"),
        end_x: coord("x"),
        end_y: coord("y"),
        modifiers,
      }),
      returns: returnedPoint,
      async run(p, { env, signal }) {
        const from = await toScreen(env, { x: p.start_x, y: p.start_y }, signal);
        const to = await toScreen(env, { x: p.end_x, y: p.end_y }, signal);
        const end = await env.mouse.drag([from, to], { signal, ...(p.modifiers ? { modifiers: p.modifiers } : {}) });
        return fromScreen(env, end, signal);
      },
    }),
    scroll: action({
      name: "scroll",
      description: `Turn the scroll wheel, optionally after moving the pointer to a point given ${unit}.`,
      params: z.object({
        dy: z.number().int().min(-50).max(50).default(0).describe("Notches down (positive) or up (negative)"),
        dx: z.number().int().min(-50).max(50).default(0).describe("Notches right (positive) or left (negative)"),
        x: coord("x").optional(),
        y: coord("y").optional(),
        modifiers,
      }),
      returns: returnedPoint,
      async run(p, { env, signal }) {
        const at = p.x !== undefined && p.y !== undefined ? await toScreen(env, { x: p.x, y: p.y }, signal) : undefined;
        const end = await env.mouse.scroll({ dx: p.dx, dy: p.dy, signal, ...(at ? { at } : {}), ...(p.modifiers ? { modifiers: p.modifiers } : {}) });
        return fromScreen(env, end, signal);
      },
    }),
  };
}

const key = action({
  name: "key",
  description: 'Press a key or a key combination, e.g. "Return", "ctrl+c", "ctrl+shift+t", "alt+F4".',
  params: z.object({
    keys: chordSchema.describe(
      'Keys joined with "+": X keysym names (Return, Page_Up, F5), aliases (ctrl, shift, alt, super, enter, esc) or single characters',
    ),
    repeat: z.number().int().min(1).max(100).default(1).describe("How many times to press it"),
  }),
  run: ({ keys, repeat }, { env, signal }) => env.keyboard.press(keys, { repeat, signal }),
});

const type = action({
  name: "type",
  description: "Type text with the keyboard into the focused window; any Unicode text works. Use key for shortcuts.",
  params: z.object({ text: z.string().min(1).describe("The text to type; \\n presses Return") }),
  run: ({ text }, { env, signal }) => env.keyboard.type(text, { signal }),
});

const screenshot = action({
  name: "screenshot",
  description: "Take a screenshot of the whole screen.",
  params: z.object({
    format: z.enum(ENCODED_IMAGE_FORMATS).default("png").describe("Image format"),
    max_width: z.number().int().min(16).optional().describe("Downscale the image to at most this width, in pixels"),
  }),
  run: ({ format, max_width }, { env, signal }) => env.screen.screenshot({ format, signal, ...(max_width !== undefined ? { maxWidth: max_width } : {}) }),
});

/**
 * The standard desktop actions over the `env` handle: click, double_click, right_click, move, drag,
 * scroll, key, type, screenshot, wait. Coordinates are read in the given mode and pointer positions
 * are returned in it.
 */
export function createDesktopActions(opts: DesktopActionsOptions = {}) {
  const space = coordinateSpace(opts.coordinates ?? "pixels");
  return { ...clickActions(space), ...pointerActions(space), key, type, screenshot, wait };
}

/** The desktop actions in pixel coordinates (see {@link createDesktopActions}). */
export const desktopActions = createDesktopActions();
