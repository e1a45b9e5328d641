import { sleep } from "@pincer/shared";
import type { Env, MouseButton, Point, Size } from "../../env/index.js";
import { type Args, PyArgumentError } from "./args.js";
import type { PyValue } from "./tokens.js";

/** The longest `time.sleep` (and pyautogui.sleep) Pincer performs, in seconds; a longer one waits this long. */
export const MAX_SLEEP_SECONDS = 10;
/** The most iterations of all loops of one script together, and the most calls it makes. */
export const MAX_STEPS = 10_000;

/**
 * Where a script runs. A dry run checks every call's arguments and performs nothing: `position()`
 * and `size()` answer with what the machine said before the run, `paste()` and commands with
 * empty results.
 */
export interface Machine {
  readonly env: Env;
  readonly signal: AbortSignal;
  readonly dry: boolean;
  /** The screen's size, read once when first needed; points are clamped to it, as pyautogui does. */
  screen(): Promise<Size>;
  /** The pointer before the run, read once when first needed (what a dry run's `position()` answers). */
  start(): Promise<Point>;
  /** pyautogui.PAUSE: seconds slept after each pyautogui call. @default 0.1 (pyautogui's) */
  pause: number;
}

type Handler = (a: Args, m: Machine) => Promise<PyValue>;
interface Spec {
  params: readonly string[];
  /** Takes any number of positional arguments (`hotkey(*keys)`), which go to `rest`. */
  varargs?: boolean;
  /** A pyautogui input call: the pause follows it. */
  input?: boolean;
  run: Handler;
}

const sleepSeconds = (s: number, m: Machine) => (m.dry || s <= 0 ? Promise.resolve() : sleep(Math.min(s, MAX_SLEEP_SECONDS) * 1000, m.signal));

/** A point clamped to the screen and rounded, as pyautogui keeps the pointer on the screen. */
async function onScreen(p: Point, m: Machine): Promise<Point> {
  const screen = await m.screen();
  const clamp = (v: number, max: number) => Math.max(0, Math.min(Math.round(v), max - 1));
  return { x: clamp(p.x, screen.width), y: clamp(p.y, screen.height) };
}

const position = (m: Machine) => (m.dry ? m.start() : m.env.mouse.position({ signal: m.signal }));

function clicks(fixedButton?: MouseButton, fixedCount?: number): Spec {
  const params =
    fixedCount === undefined ? ["x", "y", "clicks", "interval", "button", "duration", "tween"] : ["x", "y", "interval", "button", "duration", "tween"];
  return {
    params: fixedButton ? ["x", "y", "duration", "tween"] : params,
    input: true,
    async run(a, m) {
      const p = a.point();
      const count = fixedCount ?? a.count("clicks", 1);
      const interval = fixedButton ? 0 : a.seconds("interval");
      const button = fixedButton ?? a.button();
      a.seconds("duration");
      if (m.dry) return null;
      const at = p && (await onScreen(p, m));
      if (count === 0) {
        // pyautogui still moves to the point.
        if (at) await m.env.mouse.move(at, { signal: m.signal });
        return null;
      }
      const o = { signal: m.signal, button, ...(at ? { at } : {}) };
      if (count <= 3 && interval === 0) await m.env.mouse.click({ ...o, count });
      else
        for (let i = 0; i < count; i++) {
          if (i > 0) await sleepSeconds(interval, m);
          await m.env.mouse.click({ ...o, count: 1 });
        }
      return null;
    },
  };
}

/** moveTo / moveRel / dragTo / dragRel. */
function pointer(kind: "move" | "drag", relative: boolean): Spec {
  const [xName, yName] = relative ? ["xOffset", "yOffset"] : ["x", "y"];
  const params = [xName!, yName!, "duration", "tween", ...(kind === "drag" ? ["button", "mouseDownUp"] : [])];
  return {
    params,
    input: true,
    async run(a, m) {
      const p = a.point(xName, yName);
      const duration = Math.min(a.seconds("duration"), MAX_SLEEP_SECONDS);
      const button = kind === "drag" ? a.button() : "left";
      if (!p && !relative) throw new PyArgumentError(`${a.fn}(): give x and y`);
      if (m.dry) return null;
      const from = await position(m);
      const to = await onScreen(relative ? { x: from.x + (p?.x ?? 0), y: from.y + (p?.y ?? 0) } : p!, m);
      if (kind === "move" || a.get("mouseDownUp") === false) await m.env.mouse.move(to, { signal: m.signal });
      else {
        // A drag with a duration moves through points in between, as pyautogui's tween does.
        const steps = duration > 0 ? 10 : 1;
        const path = Array.from({ length: steps + 1 }, (_, i) => ({
          x: Math.round(from.x + ((to.x - from.x) * i) / steps),
          y: Math.round(from.y + ((to.y - from.y) * i) / steps),
        }));
        await m.env.mouse.drag(path, { signal: m.signal, button, stepDelayMs: Math.min(1000, Math.round((duration * 1000) / steps)) });
      }
      return null;
    },
  };
}

function button(which: "down" | "up"): Spec {
  return {
    params: ["x", "y", "button", "duration", "tween"],
    input: true,
    async run(a, m) {
      const p = a.point();
      const b = a.button();
      if (m.dry) return null;
      await m.env.mouse[which](b, { signal: m.signal, ...(p ? { at: await onScreen(p, m) } : {}) });
      return null;
    },
  };
}

/** scroll/vscroll (positive is up) and hscroll (positive is right), each optionally at x, y. */
function scroll(axis: "v" | "h"): Spec {
  return {
    params: ["clicks", "x", "y"],
    input: true,
    async run(a, m) {
      const n = Math.max(-1000, Math.min(1000, Math.trunc(a.num("clicks"))));
      const p = a.point();
      if (m.dry || n === 0) return null;
      const delta = axis === "v" ? { dy: -n } : { dx: n };
      await m.env.mouse.scroll({ signal: m.signal, ...delta, ...(p ? { at: await onScreen(p, m) } : {}) });
      return null;
    },
  };
}

/** Presses each key `presses` times, `interval` seconds apart. */
async function pressEach(keys: string[], presses: number, interval: number, m: Machine): Promise<void> {
  for (const key of keys)
    for (let done = 0; done < presses; ) {
      const repeat = interval === 0 ? Math.min(100, presses - done) : 1;
      if (done > 0) await sleepSeconds(interval, m);
      await m.env.keyboard.press([key], { signal: m.signal, repeat });
      done += repeat;
    }
}

const write: Spec = {
  params: ["message", "interval", "logScreenshot", "_pause"],
  input: true,
  async run(a, m) {
    const message = a.get("message");
    const interval = Math.min(1, a.seconds("interval"));
    if (Array.isArray(message)) {
      const keys = message.map((k) => a.key(k));
      if (!m.dry) await pressEach(keys, 1, interval, m);
      return null;
    }
    const text = a.str("message");
    // OSWorld rewrites typing "<" into hotkey("shift", ","), working around pyautogui typing ">" for
    // it. Pincer's keyboard types any character itself, so "<" is typed as written.
    if (!m.dry && text !== "") await m.env.keyboard.type(text, { signal: m.signal, charDelayMs: Math.round(interval * 1000) });
    return null;
  },
};

function holdKey(which: "down" | "up"): Spec {
  return {
    params: ["key", "logScreenshot", "_pause"],
    input: true,
    async run(a, m) {
      const key = a.key(a.get("key"));
      if (!m.dry) await m.env.keyboard[which](key, { signal: m.signal });
      return null;
    },
  };
}

const keyboard: Record<string, Spec> = {
  write,
  typewrite: write,
  press: {
    params: ["keys", "presses", "interval", "logScreenshot", "_pause"],
    input: true,
    async run(a, m) {
      const keys = a.keys("keys");
      const presses = a.count("presses", 1);
      const interval = a.seconds("interval");
      if (!m.dry) await pressEach(keys, presses, interval, m);
      return null;
    },
  },
  hotkey: {
    params: ["interval", "logScreenshot", "_pause"],
    varargs: true,
    input: true,
    async run(a, m) {
      // hotkey("ctrl", "c"), and the list some agents pass: hotkey(["ctrl", "c"]).
      const keys = a.rest.flatMap((v) => (Array.isArray(v) ? v : [v])).map((k) => a.key(k));
      if (keys.length === 0) throw new PyArgumentError("hotkey(): give at least one key");
      if (!m.dry) await m.env.keyboard.press(keys, { signal: m.signal });
      return null;
    },
  },
  keyDown: holdKey("down"),
  keyUp: holdKey("up"),
};

const PYAUTOGUI: Record<string, Spec> = {
  click: clicks(),
  leftClick: clicks("left", 1),
  doubleClick: clicks(undefined, 2),
  tripleClick: clicks(undefined, 3),
  rightClick: clicks("right", 1),
  middleClick: clicks("middle", 1),
  moveTo: pointer("move", false),
  moveRel: pointer("move", true),
  move: pointer("move", true),
  dragTo: pointer("drag", false),
  dragRel: pointer("drag", true),
  drag: pointer("drag", true),
  mouseDown: button("down"),
  mouseUp: button("up"),
  scroll: scroll("v"),
  vscroll: scroll("v"),
  hscroll: scroll("h"),
  ...keyboard,
  position: { params: [], run: async (_a, m) => position(m).then((p) => [p.x, p.y]) },
  size: { params: [], run: async (_a, m) => m.screen().then((s) => [s.width, s.height]) },
  sleep: { params: ["seconds"], run: (a, m) => sleepSeconds(a.seconds("seconds"), m).then(() => null) },
};

export { PYAUTOGUI as PYAUTOGUI_CALLS, sleepSeconds };
export type { Spec as CallSpec };
