import { z } from "zod";
import { action, type Action } from "../actions/action.js";
import { UnimplementedError } from "@pincer/shared";
import { throwIfAborted, toErrorInfo } from "../actions/errors.js";
import type { Env, Screenshot, SettleOptions } from "../env/index.js";
import { drawMarks, marksOf } from "./marks.js";
import type { Observation, SettleRecord } from "./types.js";

/**
 * What a model gets of the accessibility tree with each observation: `text`, the linearised tree
 * (OSWorld's form: a header, then one tab-separated line per widget); `marks`, the same lines
 * numbered, and each widget's box drawn with its number on the screenshot (set-of-marks).
 */
export type AccessibilityMode = "text" | "marks";

/** How long a screen was waited for before its screenshot (see `env.screen.waitForSettle`). */
export type { SettleRecord } from "./types.js";

/** Waits before a screenshot: settle for the screen to stop changing, as `pincer run` does for agents that look. */
export const DEFAULT_SETTLE: SettleOptions = { quietMs: 300, initialQuietMs: 1500, maxMs: 5000, sinceLastWait: true };

/** Options of {@link screenObservation}. */
export interface ScreenObservationOptions {
  /** Wait for the screen to stop changing first, with these options, or not (false). @default {@link DEFAULT_SETTLE} */
  settle?: SettleOptions | false;
  /** @default "jpeg" */
  format?: "jpeg" | "png";
  /** JPEG quality. @default 70 */
  quality?: number;
  /**
   * Largest size of the image, in pixels; the screen is scaled down to fit (1280 × 800 is about a
   * megapixel, under what vision APIs take without resizing it themselves, which would shift the
   * coordinates models give back). @default 1280 × 800
   */
  maxWidth?: number;
  maxHeight?: number;
  /** Also read the accessibility tree (and in `marks` mode draw it on the screenshot). @default undefined: not read */
  accessibility?: AccessibilityMode;
}

/** What a screen observation gives of one machine. A part that could not be read is missing, with why in `errors`. */
export interface ScreenObservation {
  screenshot?: Screenshot;
  /** The wait before the screenshot, when the observation waits. */
  settle?: SettleRecord;
  /** The accessibility tree as text (numbered in `marks` mode), when asked. */
  accessibility?: string;
  /** What could not be read, and why: "screenshot: …", "settle: …", "accessibility: …". */
  errors: string[];
}

/** The name of the screen observation in `bench.observe()`'s results. */
export const SCREEN_OBSERVATION = "screen";

/**
 * `bench.observe()`'s result from every environment's observations: the screens grouped by what they
 * hold, from each environment's screen observation (environments without one are left out of them).
 */
export function observationOf(step: number, environments: Observation["environments"]): Observation {
  const out: Observation = { step, environments, screenshots: {}, settle: {} };
  for (const [name, values] of Object.entries(environments)) {
    const screen = values[SCREEN_OBSERVATION] as ScreenObservation | undefined;
    if (!screen) continue;
    if (screen.screenshot) out.screenshots[name] = screen.screenshot;
    if (screen.settle) out.settle[name] = screen.settle;
    if (screen.accessibility !== undefined) out.accessibility = { ...out.accessibility, [name]: screen.accessibility };
  }
  return out;
}

/**
 * An observation (see `createEnvironment`'s `observations`): the machine's screen as an agent sees
 * it. It waits for the screen to settle, takes a screenshot scaled to fit (its `scale` and
 * `source` map image pixels back to the screen), and reads the accessibility tree when asked; in
 * `marks` mode the tree's lines are numbered and their boxes drawn on the screenshot. A part that
 * fails is left out and named in `errors`; the observation itself fails only when cancelled.
 */
export function screenObservation(opts: ScreenObservationOptions = {}): Action<z.ZodObject, ScreenObservation> {
  return action({
    name: SCREEN_OBSERVATION,
    description: "The screen as an agent sees it: a settled, scaled screenshot, and the accessibility tree when asked.",
    params: z.object({}),
    run: (_p, { env, signal }) => observeScreen(env, opts, signal),
  });
}

/** Runs `read`; its error becomes a line of `errors` (cancellation still throws). */
async function attempt<T>(what: string, errors: string[], signal: AbortSignal, read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    throwIfAborted(signal, `observing the screen (${what})`);
    const e = toErrorInfo(err);
    errors.push(`${what}: ${e.type}: ${e.message}`);
    return undefined;
  }
}

/** The observation of one machine's screen (see {@link screenObservation}). */
export async function observeScreen(env: Env, opts: ScreenObservationOptions, signal: AbortSignal): Promise<ScreenObservation> {
  const errors: string[] = [];
  const out: ScreenObservation = { errors };
  const settle = opts.settle === undefined ? DEFAULT_SETTLE : opts.settle;
  if (settle) {
    // A screen that cannot be watched is photographed as it is.
    const r = await attempt("settle", errors, signal, () => env.screen.waitForSettle({ ...settle, signal }));
    if (r) out.settle = { settled: r.settled, waited_ms: r.waitedMs, changes: r.changes };
  }
  const size = { maxWidth: opts.maxWidth ?? 1280, maxHeight: opts.maxHeight ?? 800, signal, timeoutMs: 20_000 };
  const shot = await attempt("screenshot", errors, signal, async () => {
    if ((opts.format ?? "jpeg") === "png") return env.screen.screenshot({ ...size, format: "png" });
    // A machine that cannot encode JPEG (the in-memory one) gives PNG.
    return env.screen.screenshot({ ...size, format: "jpeg", quality: opts.quality ?? 70 }).catch((err: unknown) => {
      if (err instanceof UnimplementedError) return env.screen.screenshot({ ...size, format: "png" });
      throw err;
    });
  });
  if (shot) out.screenshot = shot;
  if (!opts.accessibility) return out;
  const linearized = await attempt("accessibility", errors, signal, async () => (await env.accessibility.tree({ linearized: true, signal })).linearized ?? "");
  if (linearized === undefined) {
    out.accessibility = `(accessibility tree unavailable: ${errors.at(-1)!.replace(/^accessibility: /, "")})`;
    return out;
  }
  if (opts.accessibility === "text") {
    out.accessibility = linearized;
    return out;
  }
  const { numbered, marks } = marksOf(linearized);
  out.accessibility = numbered;
  if (out.screenshot) out.screenshot = await drawMarks(out.screenshot, marks);
  return out;
}
