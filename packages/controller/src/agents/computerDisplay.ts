import type { Env, Point, Screenshot, ScreenshotOptions, Size } from "../env/index.js";

/**
 * The screen sizes computer-use models work best with (Anthropic's guidance: XGA, WXGA, FWXGA);
 * a screen of one of these aspect ratios is scaled down to it.
 */
export const COMPUTER_USE_TARGETS: readonly Size[] = [
  { width: 1024, height: 768 },
  { width: 1280, height: 800 },
  { width: 1366, height: 768 },
];

/** Anthropic's image limits: the long edge and the pixel count the API accepts unscaled. */
export const MAX_IMAGE_EDGE = 1568;
export const MAX_IMAGE_PIXELS = 1_150_000;

/**
 * The display a computer-use model is told about and sees screenshots of, for a screen:
 * - `"auto"`: a target of the same aspect ratio (within 0.02) when the screen is larger; else the
 *   screen itself when it fits the image limits; else the screen scaled to fit 1280×800;
 * - `"screen"`: the screen itself (no scaling; for callers that scale coordinates themselves);
 * - a size: that size.
 */
export type DisplaySetting = "auto" | "screen" | Size;

/** The display size for `screen` under `setting` (see {@link DisplaySetting}). */
export function computerDisplaySize(screen: Size, setting: DisplaySetting = "auto"): Size {
  if (setting === "screen") return { ...screen };
  if (setting !== "auto") return { ...setting };
  const ratio = screen.width / screen.height;
  const target = COMPUTER_USE_TARGETS.find((t) => Math.abs(t.width / t.height - ratio) < 0.02 && t.width < screen.width);
  if (target) return { ...target };
  if (Math.max(screen.width, screen.height) <= MAX_IMAGE_EDGE && screen.width * screen.height <= MAX_IMAGE_PIXELS) return { ...screen };
  const s = Math.min(1280 / screen.width, 800 / screen.height);
  return { width: Math.round(screen.width * s), height: Math.round(screen.height * s) };
}

/**
 * Maps points between a model's display and the real screen: the model sees and speaks display
 * pixels, the daemon takes screen pixels.
 */
export class DisplayMapping {
  constructor(
    readonly screen: Size,
    readonly display: Size,
  ) {}

  /** For `env`'s screen under `setting`. */
  static async forEnv(env: Env, setting: DisplaySetting = "auto", opts: { signal?: AbortSignal } = {}): Promise<DisplayMapping> {
    const screen = await env.screen.size(opts);
    return new DisplayMapping(screen, computerDisplaySize(screen, setting));
  }

  /** Display → screen, rounded and kept on the screen. */
  toScreen(p: Point): Point {
    return {
      x: clamp(Math.round((p.x * this.screen.width) / this.display.width), this.screen.width - 1),
      y: clamp(Math.round((p.y * this.screen.height) / this.display.height), this.screen.height - 1),
    };
  }

  /** Screen → display, rounded. */
  fromScreen(p: Point): Point {
    return {
      x: clamp(Math.round((p.x * this.display.width) / this.screen.width), this.display.width - 1),
      y: clamp(Math.round((p.y * this.display.height) / this.screen.height), this.display.height - 1),
    };
  }

  /** A screenshot of the whole screen at the display size (the daemon downscales, never up). */
  screenshot(env: Env, opts: Pick<ScreenshotOptions, "format" | "quality" | "signal"> = {}): Promise<Screenshot> {
    return env.screen.screenshot({ format: "png", ...opts, maxWidth: this.display.width, maxHeight: this.display.height });
  }
}

function clamp(v: number, max: number): number {
  return Math.max(0, Math.min(max, v));
}

/** What a computer-use action returns: an image (screenshot, zoom), a pointer position (cursor_position), or nothing. */
export type ComputerActionResult = Screenshot | Point | null;

/** Options of the computer-use executors. */
export interface ComputerRunOptions {
  signal?: AbortSignal;
  /** Image format of screenshots and zooms. @default "png" */
  format?: ScreenshotOptions["format"];
}
