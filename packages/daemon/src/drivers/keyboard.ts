import { keysymForChar, type KeySpec, sleep } from "@pincer/shared";
import { XTEST, type XConnection } from "./xConnection.js";

interface KeyStroke {
  keycode: number;
  /** The keysym sits on the shifted level of this keycode. */
  shift: boolean;
}

const SHIFT_L = 0xffe1;
/**
 * Pause before a spare keycode is rebound, in ms. A client looks a keycode up when it reads the
 * event, so it must have read the events that used the old binding before the binding changes;
 * 100 ms was too short for an xterm on a loaded machine (characters of one batch came out as the
 * next batch's). Only text with more distinct out-of-layout characters than spare slots pays it.
 */
const REBIND_QUIET_MS = 500;

/**
 * Keyboard input through XTEST on one X connection.
 *
 * Characters the active layout has (on the plain or shifted level) are typed with their own keycode,
 * adding Shift where needed. Any other character (`€` on a US layout, `中`) is bound to a spare
 * keycode with ChangeKeyboardMapping and typed from there, as xdotool does. Bindings are kept until
 * the keycode is needed for another character and are undone on close, so a client that reads its
 * events late still sees the binding that was active when the key was pressed.
 */
export class XKeyboard {
  private readonly byKeysym = new Map<number, KeyStroke>();
  private keysymsPerKeycode = 0;
  private spare: number[] = [];
  /** The keyboard operation running now; the next one starts after it (see {@link exclusive}). */
  private queue: Promise<unknown> = Promise.resolve();
  /** Spare keycode → the keysyms bound to its plain and shifted levels, and when it was last used. */
  private readonly bound = new Map<number, { keysyms: number[]; usedAt: number }>();
  private readonly held = new Map<string, number>();
  private shiftKeycode = 0;

  private constructor(private readonly x: XConnection) {}

  static async create(x: XConnection): Promise<XKeyboard> {
    const kb = new XKeyboard(x);
    await kb.loadMapping();
    return kb;
  }

  private async loadMapping(): Promise<void> {
    const count = this.x.maxKeycode - this.x.minKeycode + 1;
    const rows = await this.x.request<number[][]>("GetKeyboardMapping", this.x.minKeycode, count);
    this.keysymsPerKeycode = rows[0]?.length ?? 0;
    this.byKeysym.clear();
    this.spare = [];
    rows.forEach((syms, i) => {
      const keycode = this.x.minKeycode + i;
      if (syms.every((s) => s === 0)) {
        this.spare.push(keycode);
        return;
      }
      // Only the plain and shifted levels: other levels need modifiers whose mapping varies by layout.
      for (const [level, sym] of syms.slice(0, 2).entries()) {
        if (sym !== 0 && !this.byKeysym.has(sym)) this.byKeysym.set(sym, { keycode, shift: level === 1 });
      }
      // A keycode whose plain level is a lower-case letter also gives the upper case with Shift.
      const plain = syms[0] ?? 0;
      if (syms[1] === 0 && plain >= 0x61 && plain <= 0x7a && !this.byKeysym.has(plain - 0x20)) {
        this.byKeysym.set(plain - 0x20, { keycode, shift: true });
      }
    });
    const shift = this.byKeysym.get(SHIFT_L);
    if (!shift) throw new Error("the keyboard mapping has no Shift_L key");
    this.shiftKeycode = shift.keycode;
    if (this.spare.length === 0) throw new Error("the keyboard mapping has no spare keycode for characters outside the layout");
  }

  /** How many out-of-layout characters can be bound at once: two per spare keycode (plain and shifted). */
  private get capacity(): number {
    return this.spare.length * 2;
  }

  /** Resolves keysyms to strokes, binding spare keycodes for the missing ones (all at once). */
  private async strokesFor(keysyms: number[]): Promise<KeyStroke[]> {
    const missing = [...new Set(keysyms.filter((s) => !this.byKeysym.has(s) && !this.boundStroke(s)))];
    if (missing.length > this.capacity) {
      throw new RangeError(`too many distinct characters outside the layout in one batch (${missing.length} > ${this.capacity})`);
    }
    if (missing.length > 0) {
      // Reuse the least recently used spare keycodes, never one that holds a character of this batch.
      const victims = [...this.spare]
        .filter((k) => !(this.bound.get(k)?.keysyms ?? []).some((s) => keysyms.includes(s)))
        .sort((a, b) => (this.bound.get(a)?.usedAt ?? 0) - (this.bound.get(b)?.usedAt ?? 0))
        .slice(0, Math.ceil(missing.length / 2));
      if (victims.length * 2 < missing.length) {
        throw new RangeError(`too many distinct characters outside the layout in one batch (${missing.length})`);
      }
      const newest = Math.max(0, ...victims.map((k) => this.bound.get(k)?.usedAt ?? 0));
      const wait = newest + REBIND_QUIET_MS - Date.now();
      if (newest > 0 && wait > 0) await sleep(wait);
      victims.forEach((keycode, i) => {
        const pair = missing.slice(i * 2, i * 2 + 2);
        const syms = new Array<number>(this.keysymsPerKeycode).fill(0);
        syms[0] = pair[0]!;
        if (syms.length > 1) syms[1] = pair[1] ?? pair[0]!;
        this.x.send("ChangeKeyboardMapping", keycode, this.keysymsPerKeycode, syms);
        this.bound.set(keycode, { keysyms: pair, usedAt: Date.now() });
      });
      await this.x.sync();
    }
    return keysyms.map((s) => {
      const own = this.byKeysym.get(s);
      if (own) return own;
      const stroke = this.boundStroke(s)!;
      this.bound.get(stroke.keycode)!.usedAt = Date.now();
      return stroke;
    });
  }

  private boundStroke(keysym: number): KeyStroke | undefined {
    for (const [keycode, b] of this.bound) {
      const level = b.keysyms.indexOf(keysym);
      if (level >= 0) return { keycode, shift: level === 1 };
    }
    return undefined;
  }

  private tap(stroke: KeyStroke): void {
    const needShift = stroke.shift && !this.shiftHeld();
    if (needShift) this.x.fakeInput(XTEST.KeyPress, this.shiftKeycode);
    this.x.fakeInput(XTEST.KeyPress, stroke.keycode);
    this.x.fakeInput(XTEST.KeyRelease, stroke.keycode);
    if (needShift) this.x.fakeInput(XTEST.KeyRelease, this.shiftKeycode);
  }

  private shiftHeld(): boolean {
    return [...this.held.values()].includes(this.shiftKeycode);
  }

  /**
   * Types `text`. Stops between characters when `signal` aborts. `charDelayMs` > 0 waits between
   * characters (each one flushed to the server first).
   */
  type(text: string, opts: { charDelayMs?: number; signal?: AbortSignal } = {}): Promise<void> {
    return this.exclusive(() => this.typeNow(text, opts));
  }

  private async typeNow(text: string, opts: { charDelayMs?: number; signal?: AbortSignal }): Promise<void> {
    const chars = [...text.replace(/\r\n/g, "\n")];
    const batchSize = Math.max(1, this.capacity);
    for (let start = 0; start < chars.length; ) {
      // A batch holds at most as many distinct out-of-layout characters as the spare keycodes can bind.
      const batch: number[] = [];
      const outside = new Set<number>();
      while (start < chars.length) {
        const sym = keysymForChar(chars[start]!);
        if (!this.byKeysym.has(sym) && !outside.has(sym)) {
          if (outside.size === batchSize) break;
          outside.add(sym);
        }
        batch.push(sym);
        start++;
      }
      const strokes = await this.strokesFor(batch);
      for (const stroke of strokes) {
        opts.signal?.throwIfAborted();
        this.tap(stroke);
        if (opts.charDelayMs) {
          await this.x.sync();
          await sleep(opts.charDelayMs);
        }
      }
      await this.x.sync();
    }
  }

  /** Presses the keys in order and releases them in reverse: a chord such as ctrl+shift+t. */
  chord(keys: KeySpec[], repeat = 1): Promise<void> {
    return this.exclusive(() => this.chordNow(keys, repeat));
  }

  private async chordNow(keys: KeySpec[], repeat: number): Promise<void> {
    const strokes = await this.strokesFor(keys.map((k) => k.keysym));
    // Shift belongs to the last key only when the chord does not hold Shift already.
    for (let r = 0; r < repeat; r++) {
      const pressed: number[] = [];
      strokes.forEach((s, i) => {
        const isLast = i === strokes.length - 1;
        if (isLast && s.shift && !pressed.includes(this.shiftKeycode) && !this.shiftHeld()) {
          this.x.fakeInput(XTEST.KeyPress, this.shiftKeycode);
          pressed.push(this.shiftKeycode);
        }
        this.x.fakeInput(XTEST.KeyPress, s.keycode);
        pressed.push(s.keycode);
      });
      for (const keycode of pressed.reverse()) this.x.fakeInput(XTEST.KeyRelease, keycode);
    }
    await this.x.sync();
  }

  /** Holds a key down until {@link keyUp}. */
  keyDown(key: KeySpec): Promise<void> {
    return this.exclusive(async () => {
      const [stroke] = await this.strokesFor([key.keysym]);
      this.x.fakeInput(XTEST.KeyPress, stroke!.keycode);
      this.held.set(key.name, stroke!.keycode);
      await this.x.sync();
    });
  }

  /** Releases a key; releasing a key that is not held is harmless. */
  keyUp(key: KeySpec): Promise<void> {
    return this.exclusive(async () => {
      const keycode = this.held.get(key.name) ?? (await this.strokesFor([key.keysym]))[0]!.keycode;
      this.x.fakeInput(XTEST.KeyRelease, keycode);
      this.held.delete(key.name);
      await this.x.sync();
    });
  }

  /**
   * Runs keyboard operations one at a time. They share the spare keycodes' bindings and the keys
   * held, and a binding made for one call must not be taken by another before its strokes are
   * sent; calls from several clients at once otherwise broke each other (INTERNAL, wrong
   * characters). A whole call's text is typed before the next call starts.
   */
  private exclusive<T>(op: () => Promise<T>): Promise<T> {
    const result = this.queue.then(op);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Canonical names of the keys held with {@link keyDown}. */
  heldKeys(): string[] {
    return [...this.held.keys()];
  }

  /** Releases held keys and undoes keycode bindings. */
  async close(): Promise<void> {
    if (this.x.closed) return;
    for (const keycode of this.held.values()) this.x.fakeInput(XTEST.KeyRelease, keycode);
    this.held.clear();
    for (const keycode of this.bound.keys()) {
      this.x.send("ChangeKeyboardMapping", keycode, this.keysymsPerKeycode, new Array(this.keysymsPerKeycode).fill(0));
    }
    this.bound.clear();
    await this.x.sync().catch(() => undefined);
  }
}
