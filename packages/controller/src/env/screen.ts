import { IMAGE_FORMATS, type ImageFormat, imageFormatOfWire, InvalidArgumentError, type ResponseOutputOf, type wire } from "@pincer/shared";
import type { PromiseClient, ServerStreamCall } from "./rpc.js";
import type { CallOptions, Point, Region, Size } from "./types.js";

/** Image encodings of a screenshot; `raw` is packed 8-bit RGB (the one table of them is in @pincer/shared). */
export type { ImageFormat } from "@pincer/shared";

/** Options of {@link ScreenApi.screenshot}. */
export interface ScreenshotOptions extends CallOptions {
  /** @default "png" */
  format?: ImageFormat;
  /** JPEG/WebP quality 1-100. @default 80 */
  quality?: number;
  /** PNG zlib level 0-9. @default 1 */
  pngCompressionLevel?: number;
  /** Part of the screen; the whole screen when unset. */
  region?: Region;
  /** Downscale to fit this width (never upscale). */
  maxWidth?: number;
  /** Downscale to fit this height (never upscale). */
  maxHeight?: number;
  /** Draw the pointer into the image. @default false */
  includeCursor?: boolean;
}

/** A screenshot and what is needed to map its pixels back to the screen. */
export interface Screenshot {
  data: Buffer;
  format: ImageFormat;
  /** "image/png", "image/jpeg", "image/webp", or "application/octet-stream" for raw RGB. */
  mimeType: string;
  width: number;
  height: number;
  /** The screen region the image shows, before scaling. */
  source: Region;
  /** width / source.width. */
  scale: number;
  /** Pointer position on the screen when the image was taken. */
  cursor: Point;
  /** Size of the whole screen. */
  screen: Size;
}

/** Options of {@link ScreenApi.waitForSettle}. */
export interface SettleOptions extends CallOptions {
  /** Part of the screen to watch; the whole screen when unset. */
  region?: Region;
  /** How long the screen must stay unchanged. @default 300 */
  quietMs?: number;
  /** The longest wait; the call's own deadline is set past it. @default 5000 */
  maxMs?: number;
  /** How long a screen that has not changed at all may stay so before it counts as settled (for programs slow to start drawing). @default quietMs */
  initialQuietMs?: number;
  /** Time between compared frames. @default 25 */
  intervalMs?: number;
  /**
   * Compare the first frame with the last frame of the previous wait on the same region: a
   * difference (an action's effect drawn before this wait began) counts as a change at the start,
   * so `initialQuietMs` does not apply. For act → wait → screenshot loops. @default false
   */
  sinceLastWait?: boolean;
}

/** What {@link ScreenApi.waitForSettle} saw. */
export interface SettleResult {
  /** True when the screen stayed unchanged for the quiet time; false when `maxMs` passed first. */
  settled: boolean;
  /** Time the daemon spent waiting. */
  waitedMs: number;
  /** Frames compared, and how many differed from the one before. */
  frames: number;
  changes: number;
  /** Time from the start of the wait to the last change; 0 when nothing changed. */
  lastChangeMs: number;
  /** Bounding box of everything that changed, on the screen. */
  changed?: Region;
}

/** Options of {@link ScreenApi.watch}. */
export interface WatchScreenOptions extends CallOptions {
  /** @default "jpeg" */
  format?: "jpeg" | "webp";
  /** JPEG/WebP quality 1-100. @default 70 */
  quality?: number;
  /** Downscale to at most this width (never upscale); 0 = the screen's width. @default 0 */
  maxWidth?: number;
  /** The most frames a second, 1-30; also how often the daemon looks for a change. @default 10 */
  maxFps?: number;
}

/** One frame of a screen stream. */
export interface ScreenFrame {
  data: Buffer;
  format: "jpeg" | "webp";
  /** "image/jpeg" or "image/webp". */
  mimeType: string;
  width: number;
  height: number;
  /** 1 for the first frame, one more per frame the daemon sent. */
  seq: number;
  /** When the daemon began capturing it: Unix ms on the daemon's clock. */
  capturedAtMs: number;
  /** Size of the whole screen (the frame shows all of it, scaled by width / screen.width). */
  screen: Size;
}

/**
 * A screen stream: iterate it once. It ends without an error when `cancel()` is called, the
 * signal aborts or the loop breaks; the daemon then stops capturing.
 */
export interface ScreenWatch extends AsyncIterable<ScreenFrame> {
  cancel(): void;
}

/** The screen. */
export interface ScreenApi {
  /**
   * Streams the screen: a frame at once, then one each time the screen changed, at most `maxFps`
   * a second. A consumer that reads slowly gets the newest frame when it asks (at most one unread
   * frame is kept; `seq` shows the ones skipped), and a slow link gets fewer frames (the daemon has
   * at most one in flight). No deadline unless `timeoutMs` is given.
   */
  watch(opts?: WatchScreenOptions): ScreenWatch;
  /** Captures the screen (or a region), optionally scaled down, in the format asked for. */
  screenshot(opts?: ScreenshotOptions): Promise<Screenshot>;
  /** The screen's size in pixels. */
  size(opts?: CallOptions): Promise<Size>;
  /** Returns once the screen (or a region) has stopped changing, or after `maxMs`; says which. */
  waitForSettle(opts?: SettleOptions): Promise<SettleResult>;
}

function toScreenshot(r: wire.ScreenshotResponse__Output): Screenshot {
  const format = imageFormatOfWire(r.format) ?? "png";
  return {
    data: r.data,
    format,
    mimeType: IMAGE_FORMATS[format].mimeType,
    width: r.width,
    height: r.height,
    source: { x: r.source?.x ?? 0, y: r.source?.y ?? 0, width: r.source?.width ?? r.width, height: r.source?.height ?? r.height },
    scale: r.scale,
    cursor: { x: r.cursor?.x ?? 0, y: r.cursor?.y ?? 0 },
    screen: { width: r.screen?.width ?? 0, height: r.screen?.height ?? 0 },
  };
}

function toScreenFrame(r: ResponseOutputOf<"Screen", "Watch">): ScreenFrame {
  const format = imageFormatOfWire(r.format) === "webp" ? "webp" : "jpeg";
  const screen = { width: r.screen?.width ?? r.width, height: r.screen?.height ?? r.height };
  const { data, width, height, seq, capturedAtMs } = r;
  return { data, format, mimeType: IMAGE_FORMATS[format].mimeType, width, height, seq, capturedAtMs, screen };
}

/**
 * A {@link ScreenWatch} over one Watch call; the signal and a broken loop cancel it on purpose.
 * Frames are read as they arrive into a one-frame mailbox, the newest replacing one not yet taken:
 * a consumer slower than the stream gets the newest screen (seq shows what it skipped), never a
 * backlog, and no more than one unread frame is held here.
 */
function screenWatch(call: ServerStreamCall<ResponseOutputOf<"Screen", "Watch">>, signal: AbortSignal | undefined): ScreenWatch {
  const cancel = () => call.cancel();
  return {
    cancel,
    async *[Symbol.asyncIterator]() {
      if (signal?.aborted) return cancel();
      signal?.addEventListener("abort", cancel, { once: true });
      let newest: ScreenFrame | undefined;
      let ended: { error: unknown } | undefined;
      let wake: (() => void) | undefined;
      const pump = (async () => {
        try {
          for await (const r of call) {
            newest = toScreenFrame(r);
            wake?.();
          }
          ended = { error: undefined };
        } catch (error) {
          ended = { error };
        }
        wake?.();
      })();
      try {
        for (;;) {
          if (newest) {
            const frame = newest;
            newest = undefined;
            yield frame;
          } else if (ended) {
            if (ended.error !== undefined) throw ended.error;
            return;
          } else {
            await new Promise<void>((resolve) => (wake = resolve));
            wake = undefined;
          }
        }
      } finally {
        signal?.removeEventListener("abort", cancel);
        cancel();
        await pump;
      }
    },
  };
}

/**
 * Refuses sizes the wire cannot carry before they are sent: a negative number in an unsigned field
 * would arrive as 4294967291, and the daemon's error would name that number instead of the caller's.
 */
function checkScreenshotOptions(o: ScreenshotOptions): void {
  const fields: [string, number | undefined][] = [
    ["maxWidth", o.maxWidth],
    ["maxHeight", o.maxHeight],
    ["quality", o.quality],
    ["pngCompressionLevel", o.pngCompressionLevel],
    ["region.width", o.region?.width],
    ["region.height", o.region?.height],
  ];
  for (const [name, v] of fields) {
    if (v !== undefined && !(Number.isInteger(v) && v >= 0 && v <= 0xffff_ffff)) {
      throw new InvalidArgumentError(`Screen/Screenshot: ${name} must be a whole number ≥ 0, not ${v}${name.startsWith("max") ? " (0: no limit)" : ""}`);
    }
  }
}

/** `env.screen` over the Screen service. */
export function createScreenApi(screen: PromiseClient<"Screen">): ScreenApi {
  return {
    screenshot: async (o = {}) => {
      checkScreenshotOptions(o);
      const req: wire.ScreenshotRequest = {
        format: IMAGE_FORMATS[o.format ?? "png"].wire,
        quality: o.quality ?? 0,
        region: o.region ?? null,
        maxWidth: o.maxWidth ?? 0,
        maxHeight: o.maxHeight ?? 0,
        includeCursor: o.includeCursor ?? false,
        ...(o.pngCompressionLevel === undefined ? {} : { pngCompressionLevel: o.pngCompressionLevel }),
      };
      return toScreenshot(await screen.Screenshot(req, o));
    },
    watch: (o = {}) => {
      const fields: [string, number | undefined][] = [
        ["quality", o.quality],
        ["maxWidth", o.maxWidth],
        ["maxFps", o.maxFps],
      ];
      for (const [name, v] of fields) {
        if (v !== undefined && !(Number.isInteger(v) && v >= 0 && v <= 0xffff_ffff))
          throw new InvalidArgumentError(`Screen/Watch: ${name} must be a whole number ≥ 0, not ${v}`);
      }
      const req = { format: IMAGE_FORMATS[o.format ?? "jpeg"].wire, quality: o.quality ?? 0, maxWidth: o.maxWidth ?? 0, maxFps: o.maxFps ?? 0 };
      // The signal cancels the call on purpose (the loop ends quietly) rather than failing it.
      const { signal, ...rest } = o;
      return screenWatch(screen.Watch(req, { ...rest, timeoutMs: o.timeoutMs ?? Number.POSITIVE_INFINITY }), signal);
    },
    size: async (o = {}) => {
      const r = await screen.GetScreenSize({}, o);
      return { width: r.width, height: r.height };
    },
    waitForSettle: async (o = {}) => {
      const maxMs = o.maxMs ?? 5000;
      const req: wire.WaitForSettleRequest = {
        region: o.region ?? null,
        quietMs: o.quietMs ?? 0,
        timeoutMs: maxMs,
        initialQuietMs: o.initialQuietMs ?? 0,
        intervalMs: o.intervalMs ?? 0,
        sinceLastWait: o.sinceLastWait ?? false,
      };
      const r = await screen.WaitForSettle(req, { ...o, timeoutMs: o.timeoutMs ?? maxMs + 10_000 });
      const result: SettleResult = { settled: r.settled, waitedMs: r.waitedMs, frames: r.frames, changes: r.changes, lastChangeMs: r.lastChangeMs };
      return r.changed ? { ...result, changed: { x: r.changed.x, y: r.changed.y, width: r.changed.width, height: r.changed.height } } : result;
    },
  };
}

/**
 * Maps a point in a screenshot back to the screen, using the screenshot's source region and scale.
 */
export function screenshotToScreen(shot: Pick<Screenshot, "source" | "scale">, p: Point): Point {
  return {
    x: Math.min(shot.source.x + shot.source.width - 1, Math.round(shot.source.x + p.x / shot.scale)),
    y: Math.min(shot.source.y + shot.source.height - 1, Math.round(shot.source.y + p.y / shot.scale)),
  };
}
