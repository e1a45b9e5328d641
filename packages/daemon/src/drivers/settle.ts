import { sleep } from "@pincer/shared";
import type { Region, ScreenDriver } from "./drivers.js";

export type { Region } from "./drivers.js";

export interface SettleOptions {
  region: Region;
  /** How long the screen must stay unchanged, ms. */
  quietMs: number;
  /** The longest wait, ms. */
  timeoutMs: number;
  /** How long an unchanged screen may stay unchanged at the start before it counts as settled, ms. */
  initialQuietMs: number;
  /** Time between frames, ms. */
  intervalMs: number;
  /**
   * The last frame of an earlier wait on the same region: when the first frame differs from it, the
   * screen changed in between (an action's effect drawn before this wait began) and the wait counts
   * that as a change at its start, so `initialQuietMs` does not apply.
   */
  baseline?: Buffer;
  signal?: AbortSignal;
}

export interface SettleResult {
  settled: boolean;
  waitedMs: number;
  frames: number;
  changes: number;
  lastChangeMs: number;
  /** Bounding box of what changed, in screen pixels. */
  changed?: Region;
  /** The last frame compared, to be the next wait's baseline. */
  lastFrame: Buffer;
}

/** A frame as the X server delivers it: 4 bytes a pixel, rows of `width` pixels, no padding. */
export type FrameSource = (region: Region, into: Buffer | undefined) => Promise<Buffer>;

/**
 * Where two frames of the same region differ: undefined when they are equal. Whole frames and then
 * rows are compared with memcmp (Buffer.equals), so an unchanged screen costs one native compare;
 * only rows that differ are scanned pixel by pixel for the horizontal extent.
 */
export function frameDifference(a: Buffer, b: Buffer, width: number, height: number): Region | undefined {
  if (a.equals(b)) return undefined;
  const stride = width * 4;
  let top = -1;
  let bottom = -1;
  let left = width;
  let right = -1;
  for (let y = 0; y < height; y++) {
    const start = y * stride;
    const rowA = a.subarray(start, start + stride);
    const rowB = b.subarray(start, start + stride);
    if (rowA.equals(rowB)) continue;
    if (top < 0) top = y;
    bottom = y;
    const wa = new Uint32Array(a.buffer, a.byteOffset + start, width);
    const wb = new Uint32Array(b.buffer, b.byteOffset + start, width);
    // X delivers BGRX words whose padding byte is undefined: compare only the colour bits.
    for (let x = 0; x < left; x++) {
      if (((wa[x]! ^ wb[x]!) & 0xffffff) !== 0) {
        left = x;
        break;
      }
    }
    for (let x = width - 1; x > right; x--) {
      if (((wa[x]! ^ wb[x]!) & 0xffffff) !== 0) {
        right = x;
        break;
      }
    }
  }
  if (top < 0 || right < 0) return undefined;
  return { x: left, y: top, width: right - left + 1, height: bottom - top + 1 };
}

function union(a: Region | undefined, b: Region): Region {
  if (!a) return b;
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
}

/**
 * Watches a region until it has not changed for `quietMs` (or, while nothing has changed yet, for
 * `initialQuietMs`), or until `timeoutMs` has passed. Frames are full-resolution raw captures
 * compared in place (two buffers, reused), so a small change such as one typed character is seen.
 */
export async function waitForSettle(grab: FrameSource, opts: SettleOptions): Promise<SettleResult> {
  const { region } = opts;
  const start = performance.now();
  // Times are those at which a frame's capture began: the quiet span counted is one that frames
  // on both ends have shown, however long a capture takes.
  let frameAt = start;
  let prev = await grab(region, undefined);
  let spare: Buffer | undefined;
  let frames = 1;
  let changes = 0;
  let quietSince = start;
  let lastChange = 0;
  let changed: Region | undefined;
  const before = opts.baseline?.length === prev.length ? frameDifference(opts.baseline, prev, region.width, region.height) : undefined;
  if (before) {
    changes = 1;
    changed = before;
  }
  for (;;) {
    opts.signal?.throwIfAborted();
    const now = performance.now();
    const needed = changes === 0 ? opts.initialQuietMs : opts.quietMs;
    const done = frameAt - quietSince >= needed ? true : now - start >= opts.timeoutMs ? false : undefined;
    if (done !== undefined) {
      const waitedMs = Math.round(now - start);
      const result: SettleResult = { settled: done, waitedMs, frames, changes, lastChangeMs: Math.round(lastChange), lastFrame: prev };
      return changed ? { ...result, changed: { ...changed, x: changed.x + region.x, y: changed.y + region.y } } : result;
    }
    const untilDecision = Math.min(quietSince + needed - now, start + opts.timeoutMs - now);
    await sleep(Math.max(1, Math.min(opts.intervalMs, untilDecision)), opts.signal);
    frameAt = performance.now();
    const cur = await grab(region, spare);
    frames++;
    const diff = frameDifference(prev, cur, region.width, region.height);
    if (diff) {
      changes++;
      quietSince = frameAt;
      lastChange = frameAt - start;
      changed = union(changed, diff);
    }
    spare = prev;
    prev = cur;
  }
}

/** The last frame of the last wait on each desktop, and its region. */
const lastWait = new WeakMap<ScreenDriver, { key: string; frame: Buffer }>();

/**
 * {@link waitForSettle} on the desktop's screen. With `sinceLastWait`, the last frame of the
 * previous wait on the same region is the baseline.
 */
export async function settleScreen(screen: ScreenDriver, opts: Omit<SettleOptions, "baseline"> & { sinceLastWait: boolean }): Promise<SettleResult> {
  const key = `${opts.region.x},${opts.region.y},${opts.region.width},${opts.region.height}`;
  const last = lastWait.get(screen);
  const baseline = opts.sinceLastWait && last?.key === key ? last.frame : undefined;
  const r = await waitForSettle((region, into) => screen.raw(region, into), { ...opts, ...(baseline ? { baseline } : {}) });
  lastWait.set(screen, { key, frame: r.lastFrame });
  return r;
}
