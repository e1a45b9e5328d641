import type { Env } from "../env/index.js";
import type { RgbFrame } from "./vncPixels.js";

/** How long a failed screen stream waits before it is opened again, in milliseconds. */
const WATCH_RETRY_MS = 1_000;

/** Deadline of one screenshot, in milliseconds. */
const CAPTURE_TIMEOUT_MS = 15_000;

/**
 * One machine's screen for all of its viewers: the daemon's screen stream (small JPEG frames, used
 * only as the signal that the screen changed) runs while at least one viewer is attached, and exact
 * pixels are captured (a raw screenshot) only when a viewer asks and the screen changed since the
 * last capture. Only the newest capture is kept: a viewer that falls behind skips frames.
 */
export class VncScreen {
  private current: RgbFrame | undefined;
  private dirty = true;
  private capturing: Promise<RgbFrame> | undefined;
  private readonly listeners = new Set<() => void>();
  private watch: AbortController | undefined;
  private watchLoop: Promise<void> | undefined;

  constructor(
    private readonly env: Env,
    private readonly maxFps: number,
  ) {}

  /** Calls `onChange` whenever the screen may have changed, until the returned function is called. */
  attach(onChange: () => void): () => void {
    this.listeners.add(onChange);
    if (!this.watch) {
      const watch = new AbortController();
      this.watch = watch;
      this.watchLoop = this.follow(watch.signal);
    }
    return () => {
      this.listeners.delete(onChange);
      if (this.listeners.size === 0) void this.stop();
    };
  }

  /**
   * The screen as of its last change: the last capture, or a new one when the screen changed since
   * (viewers asking at once share one capture). Rejects when the capture fails.
   */
  latest(): Promise<RgbFrame> {
    if (this.current && !this.dirty) return Promise.resolve(this.current);
    this.capturing ??= this.capture().finally(() => (this.capturing = undefined));
    return this.capturing;
  }

  /** Stops the screen stream; resolves once it has ended. */
  async stop(): Promise<void> {
    this.watch?.abort();
    this.watch = undefined;
    const loop = this.watchLoop;
    this.watchLoop = undefined;
    await loop;
  }

  private async capture(): Promise<RgbFrame> {
    // A change signalled while this capture runs marks the screen dirty again, for the next one.
    this.dirty = false;
    try {
      const shot = await this.env.screen.screenshot({ format: "raw", timeoutMs: CAPTURE_TIMEOUT_MS });
      this.current = { rgb: shot.data, width: shot.width, height: shot.height };
      return this.current;
    } catch (error) {
      this.dirty = true;
      throw error;
    }
  }

  private changed(): void {
    this.dirty = true;
    for (const listener of this.listeners) listener();
  }

  /** Follows the screen stream until `signal` aborts, opening it again after a failure. */
  private async follow(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        // Small and coarse: the frames are a change signal only (the daemon compares full frames).
        for await (const _frame of this.env.screen.watch({ maxWidth: 160, quality: 10, maxFps: this.maxFps, signal })) this.changed();
      } catch {
        // The machine may be restarting; the viewers keep the last screen meanwhile.
      }
      if (signal.aborted) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, WATCH_RETRY_MS);
        signal.addEventListener(
          "abort",
          () => {
            clearTimeout(timer);
            resolve();
          },
          { once: true },
        );
      });
    }
  }
}
