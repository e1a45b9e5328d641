import type { Env, MouseButton } from "../env/index.js";
import { keyNameOfKeysym } from "./vncKeys.js";

/** One input a VNC viewer sent that was passed on to the machine, in `env` terms. */
export type VncInputEvent =
  | { type: "key"; action: "down" | "up"; key: string; keysym: number }
  | { type: "move"; x: number; y: number }
  | { type: "button"; action: "down" | "up"; button: MouseButton; x: number; y: number }
  | { type: "scroll"; dx: number; dy: number; x: number; y: number }
  | { type: "clipboard"; text: string };

/** Deadline of each input call, in milliseconds. */
const INPUT_TIMEOUT_MS = 10_000;

/** RFB button-mask bits 0–2: left, middle, right. */
const BUTTONS: [number, MouseButton][] = [
  [1, "left"],
  [2, "middle"],
  [4, "right"],
];

/** RFB button-mask bits 3–6 (X buttons 4–7, the wheel): notches of scroll each press gives. */
const WHEEL: [number, { dx: number; dy: number }][] = [
  [8, { dx: 0, dy: -1 }],
  [16, { dx: 0, dy: 1 }],
  [32, { dx: -1, dy: 0 }],
  [64, { dx: 1, dy: 0 }],
];

/**
 * One viewer's input, passed on to the machine in order, one call at a time. Pointer motion not yet
 * sent is replaced by newer motion, so a fast mouse over a slow link does not queue up. Keeps what
 * the viewer holds down, so {@link releaseAll} can let go of it when the viewer leaves.
 */
export class VncInput {
  private readonly queue: VncInputEvent[] = [];
  private running: Promise<void> | undefined;
  private readonly heldKeys = new Map<number, string>();
  private mask = 0;
  private at = { x: -1, y: -1 };

  constructor(
    private readonly env: Env,
    private readonly onInput: ((event: VncInputEvent) => void) | undefined,
  ) {}

  /** Events waiting to be sent. */
  get backlog(): number {
    return this.queue.length;
  }

  /** An RFB KeyEvent. Keysyms Pincer has no key name for are dropped. */
  key(down: boolean, keysym: number): void {
    const key = down ? keyNameOfKeysym(keysym) : this.heldKeys.get(keysym);
    if (key === undefined) return;
    if (down) this.heldKeys.set(keysym, key);
    else this.heldKeys.delete(keysym);
    this.push({ type: "key", action: down ? "down" : "up", key, keysym });
  }

  /** An RFB PointerEvent: motion, then the buttons that changed, then a scroll per wheel press. */
  pointer(mask: number, x: number, y: number): void {
    if (x !== this.at.x || y !== this.at.y) {
      const last = this.queue.at(-1);
      if (last?.type === "move" && this.queue.length > 1) Object.assign(last, { x, y });
      else this.push({ type: "move", x, y });
      this.at = { x, y };
    }
    for (const [bit, button] of BUTTONS) {
      if ((mask & bit) !== (this.mask & bit)) this.push({ type: "button", action: mask & bit ? "down" : "up", button, x, y });
    }
    for (const [bit, step] of WHEEL) {
      if (mask & bit && !(this.mask & bit)) this.push({ type: "scroll", ...step, x, y });
    }
    this.mask = mask;
  }

  /** An RFB ClientCutText: the viewer's clipboard, put on the machine's. */
  clipboard(text: string): void {
    this.push({ type: "clipboard", text });
  }

  /** Releases every key and button the viewer still holds, and resolves once all input is sent. */
  async releaseAll(): Promise<void> {
    for (const [keysym, key] of [...this.heldKeys].reverse()) this.push({ type: "key", action: "up", key, keysym });
    this.heldKeys.clear();
    for (const [bit, button] of BUTTONS) {
      if (this.mask & bit) this.push({ type: "button", action: "up", button, x: this.at.x, y: this.at.y });
    }
    this.mask = 0;
    await this.drained();
  }

  /** Resolves once every event queued so far is sent (or failed). */
  async drained(): Promise<void> {
    while (this.running) await this.running;
  }

  private push(event: VncInputEvent): void {
    this.queue.push(event);
    this.running ??= this.drain().finally(() => (this.running = undefined));
  }

  private async drain(): Promise<void> {
    for (let event = this.queue[0]; event; event = this.queue[0]) {
      try {
        await this.send(event);
        this.onInput?.(event);
      } catch {
        // One failed input (a key the layout cannot type, a machine restarting) does not end the session.
      }
      this.queue.shift();
    }
  }

  private async send(e: VncInputEvent): Promise<void> {
    const o = { timeoutMs: INPUT_TIMEOUT_MS };
    switch (e.type) {
      case "key":
        return e.action === "down" ? this.env.keyboard.down(e.key, o) : this.env.keyboard.up(e.key, o);
      case "move":
        await this.env.mouse.move({ x: e.x, y: e.y }, o);
        return;
      case "button": {
        const at = { x: e.x, y: e.y };
        await (e.action === "down" ? this.env.mouse.down(e.button, { ...o, at }) : this.env.mouse.up(e.button, { ...o, at }));
        return;
      }
      case "scroll":
        await this.env.mouse.scroll({ dx: e.dx, dy: e.dy, at: { x: e.x, y: e.y }, ...o });
        return;
      case "clipboard":
        return this.env.clipboard.set(e.text, o);
    }
  }
}
