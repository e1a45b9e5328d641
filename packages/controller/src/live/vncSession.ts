import type { Socket } from "node:net";
import type { Env, Size } from "../env/index.js";
import { VncInput, type VncInputEvent } from "./vncInput.js";
import {
  changedRects,
  decodePixelFormat,
  intersect,
  type PixelFormat,
  patched,
  type Rect,
  type RgbFrame,
  rawPixels,
  SERVER_PIXEL_FORMAT,
  union,
  unsupportedPixelFormat,
} from "./vncPixels.js";
import type { VncReader } from "./vncReader.js";
import type { VncScreen } from "./vncScreen.js";

/** Largest ClientCutText accepted, in bytes; a viewer that sends more is disconnected. */
const MAX_CUT_TEXT_BYTES = 1024 * 1024;

/** Input events waiting to be sent past which the viewer's messages are no longer read until they are. */
const MAX_INPUT_BACKLOG = 64;

/** How long to wait before trying again when a capture failed, in milliseconds. */
const CAPTURE_RETRY_MS = 1_000;

const ENCODING_RAW = 0;
const ENCODING_DESKTOP_SIZE = -223;

/** What a session needs besides its socket. */
export interface VncSessionOptions {
  env: Env;
  screen: VncScreen;
  /** The framebuffer size announced in ServerInit. */
  size: Size;
  viewOnly: boolean;
  onInput?: (event: VncInputEvent) => void;
}

/** A FramebufferUpdate ready to send (its parts in order), and what the viewer holds once it has it. */
interface Update {
  message: Buffer[];
  holds: RgbFrame | undefined;
}

function updateHeader(rects: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt16BE(rects, 2);
  return b;
}

function rectHeader(r: Rect, encoding: number): Buffer {
  const b = Buffer.alloc(12);
  b.writeUInt16BE(r.x, 0);
  b.writeUInt16BE(r.y, 2);
  b.writeUInt16BE(r.width, 4);
  b.writeUInt16BE(r.height, 6);
  b.writeInt32BE(encoding, 8);
  return b;
}

/**
 * One authenticated viewer (RFC 6143, 7.5–7.6): reads its messages, passes its input on, and answers
 * each FramebufferUpdateRequest with the newest screen, sending only the tiles that differ from what
 * the viewer already has. One update is in flight at a time and requests that arrive meanwhile are
 * merged, so a slow viewer gets fewer, newer frames and nothing queues up for it.
 */
export class VncSession {
  private pixelFormat: PixelFormat = SERVER_PIXEL_FORMAT;
  private desktopSize = false;
  private fb: Size;
  private request: { incremental: boolean; rect: Rect } | undefined;
  /** The screen as the viewer has it; undefined when it has not got all of it. */
  private held: RgbFrame | undefined;
  private poked = false;
  private wake: (() => void) | undefined;
  private closed = false;
  private readonly input: VncInput;

  constructor(
    private readonly socket: Socket,
    private readonly reader: VncReader,
    private readonly opts: VncSessionOptions,
  ) {
    this.fb = { ...opts.size };
    this.input = new VncInput(opts.env, opts.onInput);
  }

  /** Serves the viewer until it leaves or breaks the protocol; then releases the keys and buttons it held. */
  async run(): Promise<void> {
    const detach = this.opts.screen.attach(() => this.poke());
    const updates = this.sendUpdates();
    try {
      await this.readMessages();
    } finally {
      this.closed = true;
      this.poke();
      detach();
      this.socket.destroy();
      // The update loop ends at its next step (a capture in progress is not waited for).
      void updates.catch(() => undefined);
      await this.input.releaseAll();
    }
  }

  private poke(): void {
    this.poked = true;
    this.wake?.();
  }

  /** Resolves at the next poke (at once if one came since the last wait), or after `ms`. */
  private async nextPoke(ms = 60_000): Promise<void> {
    if (!this.poked) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
    this.poked = false;
  }

  private async sendUpdates(): Promise<void> {
    while (!this.closed) {
      if (!this.request) {
        await this.nextPoke();
        continue;
      }
      this.poked = false;
      let frame: RgbFrame;
      try {
        frame = await this.opts.screen.latest();
      } catch {
        await this.nextPoke(CAPTURE_RETRY_MS);
        continue;
      }
      const request = this.request;
      const update = this.closed ? undefined : this.updateFor(frame, request);
      if (!update) {
        await this.nextPoke();
        continue;
      }
      this.request = undefined;
      await this.write(update.message);
      this.held = update.holds;
    }
  }

  /** The update answering `request` from `frame`, or undefined when an incremental request has nothing new yet. */
  private updateFor(frame: RgbFrame, request: { incremental: boolean; rect: Rect }): Update | undefined {
    if ((frame.width !== this.fb.width || frame.height !== this.fb.height) && this.desktopSize) {
      // The screen was resized: say so (the viewer then asks for all of it again).
      this.fb = { width: frame.width, height: frame.height };
      return { message: [updateHeader(1), rectHeader({ x: 0, y: 0, ...this.fb }, ENCODING_DESKTOP_SIZE)], holds: undefined };
    }
    const visible = { x: 0, y: 0, width: Math.min(this.fb.width, frame.width), height: Math.min(this.fb.height, frame.height) };
    const area = intersect(request.rect, visible);
    if (!area) return request.incremental ? undefined : { message: [updateHeader(0)], holds: this.held };
    const rects = request.incremental ? changedRects(this.held, frame, area) : [area];
    if (rects.length === 0) return undefined;
    const parts = [updateHeader(rects.length)];
    for (const r of rects) parts.push(rectHeader(r, ENCODING_RAW), rawPixels(frame, r, this.pixelFormat));
    const whole = area.width === visible.width && area.height === visible.height;
    const sameSize = this.held?.width === frame.width && this.held.height === frame.height;
    const holds = whole ? frame : sameSize && this.held ? patched(this.held, frame, rects) : undefined;
    return { message: parts, holds };
  }

  /** Writes `parts` in one go; resolves once they are handed to the operating system (or the socket failed). */
  private write(parts: Buffer[]): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) return resolve();
      this.socket.cork();
      for (const [i, part] of parts.entries()) this.socket.write(part, i === parts.length - 1 ? () => resolve() : undefined);
      this.socket.uncork();
    });
  }

  private async readMessages(): Promise<void> {
    for (;;) {
      const type = (await this.reader.read(1))[0]!;
      switch (type) {
        case 0:
          this.setPixelFormat(decodePixelFormat((await this.reader.read(19)).subarray(3)));
          break;
        case 2:
          await this.setEncodings();
          break;
        case 3:
          this.updateRequested(await this.reader.read(9));
          break;
        case 4: {
          const m = await this.reader.read(7);
          if (!this.opts.viewOnly) this.input.key(m[0] !== 0, m.readUInt32BE(3));
          break;
        }
        case 5: {
          const m = await this.reader.read(5);
          const x = Math.min(m.readUInt16BE(1), this.fb.width - 1);
          const y = Math.min(m.readUInt16BE(3), this.fb.height - 1);
          if (!this.opts.viewOnly) this.input.pointer(m[0]!, x, y);
          break;
        }
        case 6:
          await this.cutText();
          break;
        default:
          throw new Error(`unknown RFB client message type ${type}`);
      }
      if (this.input.backlog > MAX_INPUT_BACKLOG) await this.input.drained();
    }
  }

  private setPixelFormat(pf: PixelFormat): void {
    const why = unsupportedPixelFormat(pf);
    if (why) throw new Error(`SetPixelFormat: ${why}`);
    this.pixelFormat = pf;
  }

  private async setEncodings(): Promise<void> {
    const count = (await this.reader.read(3)).readUInt16BE(1);
    const list = await this.reader.read(4 * count);
    const encodings = Array.from({ length: count }, (_, i) => list.readInt32BE(4 * i));
    this.desktopSize = encodings.includes(ENCODING_DESKTOP_SIZE);
  }

  private updateRequested(m: Buffer): void {
    const rect = { x: m.readUInt16BE(1), y: m.readUInt16BE(3), width: m.readUInt16BE(5), height: m.readUInt16BE(7) };
    const incremental = m[0] !== 0;
    const before = this.request;
    this.request = before ? { incremental: before.incremental && incremental, rect: union(before.rect, rect) } : { incremental, rect };
    this.poke();
  }

  private async cutText(): Promise<void> {
    const length = (await this.reader.read(7)).readUInt32BE(3);
    if (length > MAX_CUT_TEXT_BYTES) throw new Error(`ClientCutText of ${length} bytes is over the ${MAX_CUT_TEXT_BYTES}-byte limit`);
    const text = (await this.reader.read(length)).toString("latin1");
    if (!this.opts.viewOnly) this.input.clipboard(text);
  }
}
