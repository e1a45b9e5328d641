import type { KeySpec } from "@pincer/shared";
import { XClipboard } from "./clipboard.js";
import { dragAlong, holdingModifiers } from "./inputSteps.js";
import type { InputDriver, MouseButtonName, PointXY, ScreenChanges, ScreenDriver } from "./drivers.js";

export type { MouseButtonName, PointXY } from "./drivers.js";
import { aligned, type CaptureMethod, type Frame, grabFrame, grabRgbaWithScreenshotDesktop } from "./screen.js";
import type { Region } from "./settle.js";
import { XDamage } from "./damage.js";
import { XKeyboard } from "./keyboard.js";
import { ShmCapture } from "./shmCapture.js";
import { XWindows } from "./windows.js";
import { openXConnection, XTEST, type XConnection } from "./xConnection.js";

/** X core pointer buttons; 4-7 are the wheel (up, down, left, right). */
const X_BUTTON: Record<MouseButtonName, number> = { left: 1, middle: 2, right: 3 };
const WHEEL = { up: 4, down: 5, left: 6, right: 7 } as const;

interface DisplayParts {
  x: XConnection;
  keyboard: XKeyboard;
  windows: XWindows;
  clipboard: XClipboard;
  /** Shared-memory capture; undefined when MIT-SHM is not usable (then GetImage captures). */
  shm: ShmCapture | undefined;
  /** X DAMAGE on the root window; undefined when the server lacks it. */
  damage: XDamage | undefined;
}

/**
 * The machine's X display: pointer motion, buttons, wheel and keys through XTEST on one persistent
 * X connection of the pure-JS x11 client, which reports a dead connection as an error. (libnut,
 * under nut-js, kept an Xlib display open across calls: when the X server went away and came back,
 * Xlib's default I/O error handler exited the whole daemon. It also opened a new connection per
 * button event, about 1.2 ms each, whose events could not be ordered against keys held on another.)
 * Opens lazily and reopens after the X server went away.
 */
export class Desktop implements InputDriver, ScreenDriver {
  private conn?: Promise<DisplayParts>;
  /** Set once GetImage failed for a reason other than a lost X server: later grabs go straight to the fallback. */
  private getImageFailed = false;

  constructor(
    readonly displayName: string,
    private readonly captureMethod: CaptureMethod = "auto",
  ) {
    // The last-resort capture (screenshot-desktop, ImageMagick's `import`) reads DISPLAY.
    if (displayName) process.env.DISPLAY = displayName;
  }

  /** The open connection, or a FAILED_PRECONDITION error saying how to get a display. */
  async connection(): Promise<DisplayParts> {
    const current = this.conn;
    if (current) {
      const c = await current.catch(() => undefined);
      if (c && !c.x.closed) return c;
    }
    const next = openXConnection(this.displayName).then(async (x) => ({
      x,
      keyboard: await XKeyboard.create(x),
      windows: new XWindows(x),
      clipboard: await XClipboard.create(x),
      shm: await ShmCapture.create(x),
      damage: await XDamage.create(x),
    }));
    this.conn = next;
    // A failed attempt is not cached: the next call tries again (the X server may have started since).
    next.catch(() => {
      if (this.conn === next) this.conn = undefined;
    });
    return next;
  }

  async screenSize(): Promise<{ width: number; height: number }> {
    const { x } = await this.connection();
    return { width: x.screenWidth, height: x.screenHeight };
  }

  async keyboard(): Promise<XKeyboard> {
    return (await this.connection()).keyboard;
  }

  async windows(): Promise<XWindows> {
    return (await this.connection()).windows;
  }

  async clipboard(): Promise<XClipboard> {
    return (await this.connection()).clipboard;
  }

  /** Warps the pointer to an absolute position (an XTEST motion event, as a real mouse makes). */
  async move(to: PointXY): Promise<void> {
    const { x } = await this.connection();
    x.fakeInput(XTEST.MotionNotify, 0, Math.round(to.x), Math.round(to.y));
    await x.sync();
  }

  /** Pointer position. */
  async cursor(): Promise<PointXY> {
    const { x } = await this.connection();
    const p = await x.request<{ rootX: number; rootY: number }>("QueryPointer", x.root);
    return { x: p.rootX, y: p.rootY };
  }

  /** Runs `body` with modifier keys held, releasing them whatever happens. */
  async withModifiers<T>(modifiers: KeySpec[], body: () => Promise<T>): Promise<T> {
    if (modifiers.length === 0) return body();
    return holdingModifiers(await this.keyboard(), modifiers, body);
  }

  private async buttonEvents(events: Array<[type: number, button: number]>): Promise<void> {
    const { x } = await this.connection();
    for (const [type, button] of events) x.fakeInput(type, button);
    await x.sync();
  }

  async buttonDown(button: MouseButtonName): Promise<void> {
    await this.buttonEvents([[XTEST.ButtonPress, X_BUTTON[button]]]);
  }

  async buttonUp(button: MouseButtonName): Promise<void> {
    await this.buttonEvents([[XTEST.ButtonRelease, X_BUTTON[button]]]);
  }

  /** Clicks `count` times in one burst, so applications see a double or triple click. */
  async click(button: MouseButtonName, count: number): Promise<void> {
    const b = X_BUTTON[button];
    const events: Array<[number, number]> = [];
    for (let i = 0; i < count; i++) events.push([XTEST.ButtonPress, b], [XTEST.ButtonRelease, b]);
    await this.buttonEvents(events);
  }

  /** Presses at the first point, moves through the rest, releases at the last. */
  drag(path: PointXY[], button: MouseButtonName, stepDelayMs: number, signal?: AbortSignal): Promise<void> {
    return dragAlong(this, path, button, stepDelayMs, signal);
  }

  /** Scrolls by wheel notches: positive dy down, positive dx right. */
  async scroll(dx: number, dy: number): Promise<void> {
    const events: Array<[number, number]> = [];
    const notch = (button: number, n: number) => {
      for (let i = 0; i < n; i++) events.push([XTEST.ButtonPress, button], [XTEST.ButtonRelease, button]);
    };
    notch(dy > 0 ? WHEEL.down : WHEEL.up, Math.abs(dy));
    notch(dx > 0 ? WHEEL.right : WHEEL.left, Math.abs(dx));
    await this.buttonEvents(events);
  }

  async keyDown(key: KeySpec): Promise<void> {
    await (await this.keyboard()).keyDown(key);
  }

  async keyUp(key: KeySpec): Promise<void> {
    await (await this.keyboard()).keyUp(key);
  }

  async chord(keys: KeySpec[], repeat: number): Promise<void> {
    await (await this.keyboard()).chord(keys, repeat);
  }

  async type(text: string, opts: { charDelayMs?: number; signal?: AbortSignal }): Promise<void> {
    await (await this.keyboard()).type(text, opts);
  }

  async heldKeys(): Promise<string[]> {
    return (await this.keyboard()).heldKeys();
  }

  /**
   * The region's pixels, by the capture method: `auto` reads the MIT-SHM segment in place where
   * the X server shares memory, else GetImage over the X socket; `screenshot-desktop` (and GetImage
   * failing for another reason than a lost X server) goes through ImageMagick's `import`.
   */
  async withFrame<T>(region: Region, use: (frame: Frame) => T): Promise<T> {
    const { shm, x } = await this.connection();
    const { width, height } = region;
    if (this.captureMethod === "auto" && shm) return shm.read(region, (bgrx) => use({ data: bgrx, width, height, order: "bgrx" }));
    if (this.captureMethod !== "screenshot-desktop" && !this.getImageFailed) {
      let frame: Frame | undefined;
      try {
        frame = await grabFrame(x, region);
      } catch (err) {
        if (x.closed) throw err; // the X server went away: not a reason to give up on GetImage
        this.getImageFailed = true;
      }
      if (frame) return use(frame);
    }
    const { rgba } = await grabRgbaWithScreenshotDesktop(region);
    return use({ data: aligned(rgba), width, height, order: "rgba" });
  }

  /** A frame as the X server delivers it (BGRX, packed), for comparing: through MIT-SHM when there is one, else GetImage. */
  async raw(region: Region, into: Buffer | undefined): Promise<Buffer> {
    const { shm, x } = await this.connection();
    if (shm) return shm.grabRaw(region, into);
    const ZPixmap = 2;
    const img = await x.request<{ depth: number; data: Buffer }>("GetImage", ZPixmap, x.root, region.x, region.y, region.width, region.height, 0xffffffff);
    const bytes = region.width * region.height * 4;
    if (img.data.length < bytes) throw new Error(`GetImage: ${img.data.length} bytes for ${region.width}x${region.height}`);
    return img.data.subarray(0, bytes);
  }

  /** The X DAMAGE notices of the current connection. */
  async changes(): Promise<ScreenChanges | undefined> {
    return (await this.connection()).damage;
  }

  async extraCapabilities(): Promise<string[]> {
    return (await this.connection()).shm ? ["screen.capture.shm"] : [];
  }

  /** Gives back the screen capture's shared segment and its copy while idle (see ShmCapture.release). */
  async releaseMemory(): Promise<void> {
    const c = await this.conn?.catch(() => undefined);
    await c?.shm?.release();
  }

  async close(): Promise<void> {
    const c = await this.conn?.catch(() => undefined);
    this.conn = undefined;
    if (!c) return;
    await c.keyboard.close();
    c.shm?.close();
    c.x.close();
  }
}
