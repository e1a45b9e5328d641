import { sleep } from "@pincer/shared";
import type { ScreenDriver } from "./drivers.js";
import { encodeRgb, frameRgbKept } from "./screen.js";

/** What a screen stream asked for, checked. */
export interface WatchOptions {
  format: "jpeg" | "webp";
  /** JPEG/WebP quality 1-100. */
  quality: number;
  /** Largest image width; 0 = the screen's. */
  maxWidth: number;
  /** Most frames a second; also how often the screen is compared. */
  maxFps: number;
  /** Ends the watch: capture stops at once, the promise rejects with its reason. */
  signal: AbortSignal;
}

/** One frame of a screen stream. */
export interface WatchedFrame {
  seq: number;
  /** When the capture began, Unix ms (the daemon's clock). */
  capturedAtMs: number;
  data: Buffer;
  width: number;
  height: number;
  screen: { width: number; height: number };
}

/** The output size of a `width` x `height` screen fitted to `maxWidth` (0: no bound), never upscaled. */
function fitted(width: number, height: number, maxWidth: number): { width: number; height: number } {
  if (maxWidth === 0 || maxWidth >= width) return { width, height };
  return { width: maxWidth, height: Math.max(1, Math.round((height * maxWidth) / width)) };
}

/**
 * With change notices, how long a stream goes without a capture all the same: a notice the X server
 * never sent (a lost connection, a drawing path DAMAGE does not see) costs at most this much delay.
 */
export const WATCH_RECHECK_MS = 2_000;

/** Resolves when the wake function handed to `on` is called or `ms` passes; rejects when `signal` aborts; whichever comes first. */
function untilChanged(ms: number, signal: AbortSignal, on: (wake: () => void) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", stop);
      on(() => undefined);
    };
    const stop = () => {
      done();
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, ms);
    signal.addEventListener("abort", stop, { once: true });
    on(() => {
      done();
      resolve();
    });
  });
}

/**
 * Streams the screen to `send` until `signal` aborts: a frame at once, then one whenever the screen
 * differs from the last frame sent, at most `maxFps` a second.
 *
 * Change detection: where the driver gives change notices (X DAMAGE on the native set), nothing is
 * captured until one comes (or {@link WATCH_RECHECK_MS} passes), so an idle screen costs nothing;
 * elsewhere the screen is grabbed every 1/maxFps s. Either way the grab (the MIT-SHM segment, read
 * in place) is compared with a copy of the last frame sent, one memcmp, and only a frame that
 * differs is copied, shrunk and encoded.
 *
 * Back-pressure: `send` resolves once the frame has been written out (grpc-js's write callback), and
 * nothing is captured before that. So at most one frame is in flight per stream, and the frame sent
 * after a stall is the screen as it is then: a slow viewer gets fewer, newer frames, never a queue.
 */
export async function watchScreen(screen: ScreenDriver, opts: WatchOptions, send: (frame: WatchedFrame) => Promise<void>): Promise<never> {
  const intervalMs = 1000 / opts.maxFps;
  const changes = await screen.changes?.();
  let dirty = true;
  let wake: () => void = () => undefined;
  const unsubscribe = changes?.subscribe(() => {
    dirty = true;
    wake();
  });
  let last: Buffer | undefined;
  let seq = 0;
  let nextAt = performance.now();
  try {
    for (;;) {
      opts.signal.throwIfAborted();
      const wait = nextAt - performance.now();
      if (wait > 0) await sleep(wait, opts.signal);
      if (changes?.alive && !dirty) await untilChanged(WATCH_RECHECK_MS, opts.signal, (w) => (wake = w));
      dirty = false;
      changes?.rearm();
      const startedAt = performance.now();
      nextAt = startedAt + intervalMs;
      const frame = await captureIfChanged(screen, opts.maxWidth, last);
      if (!frame) continue;
      last = frame.last;
      const data = await encodeRgb(frame.got, { format: opts.format, quality: opts.quality, ...frame.size });
      opts.signal.throwIfAborted();
      seq++;
      await send({ seq, capturedAtMs: frame.capturedAtMs, data, width: frame.size.outWidth, height: frame.size.outHeight, screen: frame.screen });
    }
  } finally {
    unsubscribe?.();
  }
}

/** Grabs the screen; undefined when it equals `last`, else its pixels shrunk for encoding and a copy to compare the next grab with. */
async function captureIfChanged(screen: ScreenDriver, maxWidth: number, last: Buffer | undefined) {
  const capturedAtMs = Date.now();
  const size = await screen.screenSize();
  const out = fitted(size.width, size.height, maxWidth);
  let copy = last;
  const got = await screen.withFrame({ x: 0, y: 0, width: size.width, height: size.height }, (f) => {
    if (copy?.length === f.data.length && copy.equals(f.data)) return undefined;
    if (copy?.length !== f.data.length) copy = Buffer.allocUnsafe(f.data.length);
    f.data.copy(copy);
    return frameRgbKept(f, out.width, out.height);
  });
  if (!got || !copy) return undefined;
  const sizes = { sourceWidth: size.width, sourceHeight: size.height, outWidth: out.width, outHeight: out.height };
  return { got, last: copy, capturedAtMs, screen: size, size: sizes };
}
