import { type ChildProcess, fork } from "node:child_process";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { FailedPreconditionError, type KeySpec, NotFoundError, sleep } from "@pincer/shared";
import type { MouseButtonName, PointXY } from "./desktop.js";
import type { ClipboardDriver, InputDriver, ScreenDriver, ScreenSize, WindowsDriver } from "./drivers.js";
import { dragAlong, holdingModifiers } from "./inputSteps.js";
import { nutKeysFor, nutStrokeFor } from "./nutKeys.js";
import type { NutReply, NutRequest, NutWindow } from "./nutWorker.js";
import type { Frame } from "./screen.js";
import type { Region } from "./settle.js";
import type { WindowInfo } from "./windows.js";

type Request = NutRequest extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never;

interface Worker {
  child: ChildProcess;
  ready: Promise<void>;
  size?: ScreenSize;
  /** The display connection the worker was started for (see NutDesktopOptions.reachable). */
  display: unknown;
}

export interface NutDesktopOptions {
  /** The X display for libnut; "" off X11. */
  display: string;
  /**
   * Resolves to a value that names the display's current X server (the daemon's own connection
   * to it), or fails with FAILED_PRECONDITION saying how to get a display. A new value means the X
   * server was replaced: the worker, whose connection died with the old one, is started again.
   */
  reachable?: () => Promise<unknown>;
  /**
   * Types text that has characters nut-js cannot type here (outside the US layout on X11, where
   * libnut sends each byte of such a character as a key of its own).
   */
  typeOutsideLayout?: (text: string, opts: { charDelayMs?: number; signal?: AbortSignal }) => Promise<void>;
  /** libnut on X11 sends button 6 (left) for a scroll to the right and 7 for one to the left: swapped back. */
  swapHorizontalScroll?: boolean;
}

/** Rows of `byteWidth` bytes cut to `width` 4-byte pixels each, in a buffer that starts on a 4-byte boundary. */
function packedFrame(data: Uint8Array, width: number, height: number, byteWidth: number): Buffer {
  const row = width * 4;
  if (byteWidth === row && data.byteOffset % 4 === 0) return Buffer.from(data.buffer, data.byteOffset, row * height);
  const out = Buffer.allocUnsafe(row * height);
  for (let y = 0; y < height; y++) out.set(data.subarray(y * byteWidth, y * byteWidth + row), y * row);
  return out;
}

/** Text cut into runs: those a US keyboard types (with their strokes) and those it does not. */
function layoutRuns(text: string): Array<{ text: string; strokes?: string[][] }> {
  const runs: Array<{ text: string; strokes?: string[][] }> = [];
  for (const char of text) {
    const stroke = nutStrokeFor(char);
    const last = runs.at(-1);
    if (last && !!last.strokes === !!stroke) {
      last.text += char;
      if (stroke) last.strokes!.push(stroke);
    } else {
      runs.push(stroke ? { text: char, strokes: [stroke] } : { text: char });
    }
  }
  return runs;
}

/**
 * GUI input and screen capture through nut-js (the portable driver set). nut-js runs in a child
 * process (nutWorker.ts): libnut keeps a native display connection, and on X11 Xlib exits the
 * process that holds it when the X server goes away. A call in flight then fails with
 * FAILED_PRECONDITION and the next call starts nut-js again. The worker is started at once, since
 * loading nut-js takes seconds; calls wait for it.
 */
export class NutDesktop implements InputDriver, ScreenDriver {
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  /** Key name → the nut-js keys held for it. */
  private readonly held = new Map<string, string[]>();
  private closed = false;
  /** The keyboard operation running now; the next one starts after it, so texts and chords do not interleave. */
  private keyboardQueue: Promise<unknown> = Promise.resolve();
  readonly displayName: string;

  constructor(private readonly o: NutDesktopOptions) {
    this.displayName = o.display;
  }

  private reachable(): Promise<unknown> {
    return this.o.reachable ? this.o.reachable() : Promise.resolve(undefined);
  }

  /** Starts the worker now, so that the first call does not pay for loading nut-js. */
  warmUp(): void {
    this.reachable().then(
      (display) => this.current(display),
      () => undefined,
    );
  }

  private current(display: unknown): Worker {
    const w = this.worker;
    if (w && w.child.exitCode === null && w.child.signalCode === null) {
      if (w.display === display) return w;
      // The X server was replaced: libnut's connection went with the old one.
      this.worker = undefined;
      w.child.kill("SIGKILL");
    }
    const here = fileURLToPath(import.meta.url);
    const script = join(dirname(here), `nutWorker${extname(here)}`);
    const env = { ...process.env, ...(this.displayName ? { DISPLAY: this.displayName } : {}) };
    const child = fork(script, [], { serialization: "advanced", stdio: ["ignore", "ignore", "pipe", "ipc"], env });
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    const worker: Worker = { child, ready: Promise.resolve(), display };
    worker.ready = new Promise<void>((resolve, reject) => {
      child.on("message", (m: NutReply) => {
        if (m.id === 0) return m.ok ? resolve() : reject(new FailedPreconditionError(m.message));
        const p = this.pending.get(m.id);
        this.pending.delete(m.id);
        if (m.ok) p?.resolve(m.value);
        else p?.reject(new FailedPreconditionError(`nut-js: ${m.message}`));
      });
      child.once("exit", (code, signal) => {
        if (this.worker === worker) this.worker = undefined;
        // Keys held in a process that is gone are released with it.
        this.held.clear();
        const why = new FailedPreconditionError(
          `the nut-js process exited (${signal ?? `code ${code}`}${stderr.trim() ? `: ${stderr.trim().split("\n").pop()}` : ""}); ` +
            `the display ${this.displayName || ""} may have gone away. The next call starts nut-js again`,
        );
        reject(why);
        for (const p of this.pending.values()) p.reject(why);
        this.pending.clear();
      });
    });
    worker.ready.catch(() => undefined);
    child.unref();
    (child as unknown as { channel?: { unref(): void } }).channel?.unref();
    this.worker = worker;
    return worker;
  }

  private async call<T>(req: Request): Promise<T> {
    if (this.closed) throw new FailedPreconditionError("the daemon is shutting down");
    const worker = this.current(await this.reachable());
    await worker.ready;
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.child.send({ ...req, id });
    });
  }

  async screenSize(): Promise<ScreenSize> {
    const w = this.current(await this.reachable());
    w.size ??= await this.call<ScreenSize>({ op: "size" });
    return w.size;
  }

  cursor(): Promise<PointXY> {
    return this.call<PointXY>({ op: "cursor" });
  }

  async move(to: PointXY): Promise<void> {
    await this.call({ op: "move", x: Math.round(to.x), y: Math.round(to.y) });
  }

  async buttonDown(button: MouseButtonName): Promise<void> {
    await this.call({ op: "button", button, action: "down" });
  }

  async buttonUp(button: MouseButtonName): Promise<void> {
    await this.call({ op: "button", button, action: "up" });
  }

  async click(button: MouseButtonName, count: number): Promise<void> {
    await this.call({ op: "button", button, action: "click", count });
  }

  drag(path: PointXY[], button: MouseButtonName, stepDelayMs: number, signal?: AbortSignal): Promise<void> {
    return dragAlong(this, path, button, stepDelayMs, signal);
  }

  async scroll(dx: number, dy: number): Promise<void> {
    await this.call({ op: "scroll", dx: this.o.swapHorizontalScroll ? -dx : dx, dy });
  }

  withModifiers<T>(modifiers: KeySpec[], body: () => Promise<T>): Promise<T> {
    return holdingModifiers(this, modifiers, body);
  }

  private keysOf(key: KeySpec): string[] {
    const keys = nutKeysFor(key);
    if (!keys) {
      throw new FailedPreconditionError(
        `key ${key.name}: the portable drivers (nut-js) know the keys of a US keyboard only; ` +
          "type the character as text, or run the daemon with --drivers native",
      );
    }
    return keys;
  }

  /** Runs keyboard operations one after another. */
  private exclusive<T>(op: () => Promise<T>): Promise<T> {
    const run = this.keyboardQueue.then(op, op);
    this.keyboardQueue = run.catch(() => undefined);
    return run;
  }

  keyDown(key: KeySpec): Promise<void> {
    return this.exclusive(async () => {
      const keys = this.keysOf(key);
      await this.call({ op: "keys", keys, action: "down" });
      this.held.set(key.name, keys);
    });
  }

  keyUp(key: KeySpec): Promise<void> {
    return this.exclusive(async () => {
      const keys = this.held.get(key.name) ?? this.keysOf(key);
      await this.call({ op: "keys", keys: [...keys].reverse(), action: "up" });
      this.held.delete(key.name);
    });
  }

  chord(keys: KeySpec[], repeat: number): Promise<void> {
    const all = keys.flatMap((k) => this.keysOf(k));
    return this.exclusive(async () => {
      for (let i = 0; i < repeat; i++) {
        await this.call({ op: "keys", keys: all, action: "down" });
        await this.call({ op: "keys", keys: [...all].reverse(), action: "up" });
      }
    });
  }

  /**
   * Types text: characters of the US layout as nut-js key strokes (Shift where needed), in batches;
   * other characters through nut-js's own typing (Unicode input on Windows and macOS) or, on X11,
   * through `typeOutsideLayout`.
   */
  type(text: string, opts: { charDelayMs?: number; signal?: AbortSignal }): Promise<void> {
    return this.exclusive(async () => {
      const delayMs = opts.charDelayMs ?? 0;
      for (const run of layoutRuns(text)) {
        opts.signal?.throwIfAborted();
        if (run.strokes) {
          // Batches keep a long text cancellable between them.
          for (let i = 0; i < run.strokes.length; i += 200) {
            opts.signal?.throwIfAborted();
            await this.call({ op: "strokes", strokes: run.strokes.slice(i, i + 200), delayMs });
          }
        } else if (this.o.typeOutsideLayout) {
          await this.o.typeOutsideLayout(run.text, opts);
        } else {
          for (const char of delayMs > 0 ? [...run.text] : [run.text]) {
            opts.signal?.throwIfAborted();
            await this.call({ op: "type", text: char });
            if (delayMs > 0) await sleep(delayMs);
          }
        }
      }
    });
  }

  async heldKeys(): Promise<string[]> {
    return [...this.held.keys()];
  }

  async withFrame<T>(region: Region, use: (frame: Frame) => T): Promise<T> {
    return use({ data: await this.raw(region, undefined), width: region.width, height: region.height, order: "bgrx" });
  }

  /** nut-js's grab of the region: BGRA words, as X delivers them. */
  async raw(region: Region, _into: Buffer | undefined): Promise<Buffer> {
    const g = await this.call<{ data: Uint8Array; width: number; height: number; byteWidth: number }>({ op: "grab", ...region });
    if (g.width !== region.width || g.height !== region.height) {
      throw new FailedPreconditionError(`nut-js grabbed ${g.width}x${g.height} for a ${region.width}x${region.height} region (a scaled display?)`);
    }
    return packedFrame(g.data, g.width, g.height, g.byteWidth);
  }

  async extraCapabilities(): Promise<string[]> {
    return [];
  }

  /**
   * Windows through nut-js, for desktops without X11 (on X11 the portable set uses the X calls:
   * libnut's window calls there end its process on an X error). nut-js lists, describes and
   * focuses windows; it cannot close them.
   */
  windowsDriver(): WindowsDriver {
    const toInfo = (w: NutWindow): WindowInfo => ({
      id: w.handle,
      title: w.title,
      instance: "",
      class: "",
      pid: 0,
      geometry: { x: w.region.left, y: w.region.top, width: w.region.width, height: w.region.height },
      visible: true,
      focused: w.active,
    });
    const list = async () => (await this.call<NutWindow[]>({ op: "windows" })).map(toInfo);
    return {
      list,
      focus: async (id) => {
        await this.call({ op: "focus", handle: id });
        const w = (await list()).find((x) => x.id === id);
        if (!w) throw new NotFoundError(`window ${id} is not open`);
        return w;
      },
      close: async () => {
        throw new FailedPreconditionError("nut-js cannot close windows: stop the program with Process/Signal, or press its close keys");
      },
    };
  }

  /** Clipboard text through nut-js, for desktops without X11. */
  clipboardDriver(): ClipboardDriver {
    return {
      get: () => this.call<string>({ op: "clipboardGet" }),
      set: async (text) => {
        await this.call({ op: "clipboardSet", text });
      },
    };
  }

  async close(): Promise<void> {
    // Keys a client left held are released, so that the desktop is not left with Ctrl down.
    for (const keys of this.held.values()) await this.call({ op: "keys", keys: [...keys].reverse(), action: "up" }).catch(() => undefined);
    this.held.clear();
    this.closed = true;
    const w = this.worker;
    this.worker = undefined;
    w?.child.kill("SIGTERM");
  }
}
