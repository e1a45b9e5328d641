import { IMAGE_FORMATS, imageFormatOfWire, InvalidArgumentError, quoted, ResourceExhaustedError, type ResponseOf, type wire } from "@pincer/shared";
import type { ScreenDriver } from "../drivers/drivers.js";
import { capture } from "../drivers/screen.js";
import { watchScreen } from "../drivers/screenWatch.js";
import { type Region, settleScreen } from "../drivers/settle.js";
import type { Logger } from "../logger.js";
import { LONG_CALL_LIMITS } from "./limits.js";
import { defineService, type DefinedService, type ServerStreamHandler } from "./rpc.js";
import { intInRange } from "./validate.js";

/** The requested part of the screen, checked to lie inside it; the whole screen when unset. */
function regionOnScreen(r: wire.Region__Output | null, screen: { width: number; height: number }): Region {
  if (!r) return { x: 0, y: 0, width: screen.width, height: screen.height };
  if (r.width === 0 || r.height === 0) throw InvalidArgumentError.forField("region", "width and height must be at least 1");
  if (r.x < 0 || r.y < 0 || r.x + r.width > screen.width || r.y + r.height > screen.height) {
    throw InvalidArgumentError.forField("region", `${r.width}x${r.height}+${r.x}+${r.y} is not inside the ${screen.width}x${screen.height} screen`);
  }
  return { x: r.x, y: r.y, width: r.width, height: r.height };
}

/** Largest screenshot reply, in bytes; the controller accepts replies of this size. */
export const MAX_SCREENSHOT_BYTES = 64 * 1024 * 1024;

type WatchFrame = ResponseOf<"Screen", "Watch">;

/** The most frames a second a screen stream may ask for. */
export const MAX_WATCH_FPS = 30;

/** Resolves once grpc-js has written `msg` out (its write callback), or rejects when the call is cancelled first. */
function written(call: { write(msg: WatchFrame, cb: (err?: Error | null) => void): boolean }, msg: WatchFrame, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    call.write(msg, (err) => {
      signal.removeEventListener("abort", onAbort);
      if (err) reject(err);
      else resolve();
    });
  });
}

/** Screen/Watch: validates the request, then streams frames until the client cancels. */
function watchHandler(desktop: ScreenDriver): ServerStreamHandler<"Screen", "Watch"> {
  return async (call, ctx) => {
    const req = call.request;
    const format = req.format === "IMAGE_FORMAT_UNSPECIFIED" ? "jpeg" : imageFormatOfWire(req.format);
    if (format !== "jpeg" && format !== "webp") throw InvalidArgumentError.forField("format", `${quoted(req.format)} cannot be streamed; use JPEG or WEBP`);
    const quality = req.quality === 0 ? 70 : intInRange(req.quality, "quality", 1, 100);
    const maxWidth = intInRange(req.maxWidth, "max_width", 0, 16384);
    const maxFps = req.maxFps === 0 ? 10 : intInRange(req.maxFps, "max_fps", 1, MAX_WATCH_FPS);
    const wireFormat = IMAGE_FORMATS[format].wire;
    await watchScreen(desktop, { format, quality, maxWidth, maxFps, signal: ctx.signal }, (frame) => {
      if (frame.data.length > MAX_SCREENSHOT_BYTES) {
        throw new ResourceExhaustedError(`screen frame: ${frame.data.length} bytes is over the ${MAX_SCREENSHOT_BYTES}-byte limit; ask for a max_width`);
      }
      return written(call, { ...frame, format: wireFormat }, ctx.signal);
    });
  };
}

export function screenService(desktop: ScreenDriver, log: Logger): DefinedService<"Screen"> {
  return defineService(
    "Screen",
    log,
    {
      Screenshot: async (req: wire.ScreenshotRequest__Output) => {
        const format = imageFormatOfWire(req.format);
        if (!format) throw InvalidArgumentError.forField("format", `unknown image format ${quoted(req.format)}; use PNG, JPEG, WEBP or RAW_RGB`);
        const quality = req.quality === 0 ? 80 : intInRange(req.quality, "quality", 1, 100);
        const pngLevel = req.pngCompressionLevel == null ? 1 : intInRange(req.pngCompressionLevel, "png_compression_level", 0, 9);
        const maxWidth = intInRange(req.maxWidth, "max_width", 0, 16384);
        const maxHeight = intInRange(req.maxHeight, "max_height", 0, 16384);
        const screen = await desktop.screenSize();
        const region = regionOnScreen(req.region, screen);
        const shot = await capture(desktop, {
          format,
          quality,
          pngCompressionLevel: pngLevel,
          region,
          maxWidth,
          maxHeight,
          includeCursor: req.includeCursor,
        });
        if (shot.data.length > MAX_SCREENSHOT_BYTES) {
          throw new ResourceExhaustedError(
            `screenshot: ${shot.data.length} bytes is over the ${MAX_SCREENSHOT_BYTES}-byte limit; ask for JPEG, a region or max_width`,
          );
        }
        return {
          data: shot.data,
          format: IMAGE_FORMATS[format].wire,
          width: shot.width,
          height: shot.height,
          source: region,
          scale: shot.scale,
          cursor: shot.cursor,
          screen,
        };
      },

      GetScreenSize: async () => desktop.screenSize(),

      WaitForSettle: async (req, ctx) => {
        const timeoutMs = req.timeoutMs === 0 ? 5000 : intInRange(req.timeoutMs, "timeout_ms", 1, 120_000);
        const quietMs = req.quietMs === 0 ? 300 : intInRange(req.quietMs, "quiet_ms", 1, timeoutMs);
        const initialQuietMs = req.initialQuietMs === 0 ? quietMs : intInRange(req.initialQuietMs, "initial_quiet_ms", 1, timeoutMs);
        const intervalMs = req.intervalMs === 0 ? 25 : intInRange(req.intervalMs, "interval_ms", 1, 10_000);
        const region = regionOnScreen(req.region, await desktop.screenSize());
        const r = await settleScreen(desktop, { region, quietMs, timeoutMs, initialQuietMs, intervalMs, sinceLastWait: req.sinceLastWait, signal: ctx.signal });
        return { settled: r.settled, waitedMs: r.waitedMs, frames: r.frames, changes: r.changes, lastChangeMs: r.lastChangeMs, changed: r.changed ?? null };
      },

      Watch: watchHandler(desktop),
    },
    {
      concurrency: {
        Screenshot: LONG_CALL_LIMITS["Screen/Screenshot"],
        WaitForSettle: LONG_CALL_LIMITS["Screen/WaitForSettle"],
        Watch: LONG_CALL_LIMITS["Screen/Watch"],
      },
    },
  );
}
