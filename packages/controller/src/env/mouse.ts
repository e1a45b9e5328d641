import type { wire } from "@pincer/shared";
import type { PromiseClient } from "./rpc.js";
import type { CallOptions, MouseButton, Point } from "./types.js";

/** Options of {@link MouseApi.click}. */
export interface ClickOptions extends CallOptions {
  /** @default "left" */
  button?: MouseButton;
  /** 1, 2 (double) or 3 (triple). @default 1 */
  count?: number;
  /** Moves here first; otherwise clicks where the pointer is. */
  at?: Point;
  /** Keys held during the click, e.g. ["shift"]. */
  modifiers?: string[];
}

/** Options of {@link MouseApi.down} and {@link MouseApi.up}. */
export interface ButtonOptions extends CallOptions {
  /** Moves here first; otherwise presses where the pointer is. */
  at?: Point;
}

/** Options of {@link MouseApi.drag}. */
export interface DragOptions extends CallOptions {
  /** @default "left" */
  button?: MouseButton;
  /** Keys held during the drag, e.g. ["alt"]. */
  modifiers?: string[];
  /** Pause between path points in milliseconds. @default 0 */
  stepDelayMs?: number;
}

/** Options of {@link MouseApi.scroll}. */
export interface ScrollOptions extends CallOptions {
  /** Notches right (positive) or left (negative). @default 0 */
  dx?: number;
  /** Notches down (positive) or up (negative). @default 0 */
  dy?: number;
  /** Moves here first; otherwise scrolls where the pointer is. */
  at?: Point;
  /** Keys held while scrolling, e.g. ["ctrl"] to zoom. */
  modifiers?: string[];
}

/** The pointer. Every call resolves with where the pointer is afterwards, in screen pixels. */
export interface MouseApi {
  /** Moves the pointer to `to`. */
  move(to: Point, opts?: CallOptions): Promise<Point>;
  /** Clicks (1–3 times), optionally at a point and with modifier keys held. */
  click(opts?: ClickOptions): Promise<Point>;
  /** Presses a button without releasing it. @default button "left" */
  down(button?: MouseButton, opts?: ButtonOptions): Promise<Point>;
  /** Releases a button. @default button "left" */
  up(button?: MouseButton, opts?: ButtonOptions): Promise<Point>;
  /** Presses at the first point of `path`, moves through the others, releases at the last (2 or more points). */
  drag(path: Point[], opts?: DragOptions): Promise<Point>;
  /** Scrolls by whole notches; at least one of `dx`, `dy` is not 0. */
  scroll(opts: ScrollOptions): Promise<Point>;
  /** Where the pointer is. */
  position(opts?: CallOptions): Promise<Point>;
}

const WIRE_BUTTON: Record<MouseButton, wire.MouseButton> = {
  left: "MOUSE_BUTTON_LEFT",
  right: "MOUSE_BUTTON_RIGHT",
  middle: "MOUSE_BUTTON_MIDDLE",
};

/** The wire name of a mouse button. */
export function wireButton(button: MouseButton | undefined): wire.MouseButton {
  return WIRE_BUTTON[button ?? "left"];
}

const cursorOf = (r: { cursor: wire.Point__Output | null }): Point => ({ x: r.cursor?.x ?? 0, y: r.cursor?.y ?? 0 });

/** `env.mouse` over the Input service. */
export function createMouseApi(input: PromiseClient<"Input">): MouseApi {
  return {
    move: async (to, o = {}) => cursorOf(await input.Move({ to }, o)),
    click: async (o = {}) =>
      cursorOf(await input.Click({ button: wireButton(o.button), count: o.count ?? 1, at: o.at ?? null, modifiers: o.modifiers ?? [] }, o)),
    down: async (button, o = {}) => cursorOf(await input.ButtonDown({ button: wireButton(button), at: o.at ?? null }, o)),
    up: async (button, o = {}) => cursorOf(await input.ButtonUp({ button: wireButton(button), at: o.at ?? null }, o)),
    drag: async (path, o = {}) =>
      cursorOf(await input.Drag({ path, button: wireButton(o.button), modifiers: o.modifiers ?? [], stepDelayMs: o.stepDelayMs ?? 0 }, o)),
    scroll: async (o) => cursorOf(await input.Scroll({ dx: o.dx ?? 0, dy: o.dy ?? 0, at: o.at ?? null, modifiers: o.modifiers ?? [] }, o)),
    position: async (o = {}) => cursorOf(await input.GetCursorPosition({}, o)),
  };
}
