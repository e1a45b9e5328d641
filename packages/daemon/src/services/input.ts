import { InvalidArgumentError, resolveKeyOrThrow } from "@pincer/shared";
import type { InputDriver } from "../drivers/drivers.js";
import type { Logger } from "../logger.js";
import { defineService, type DefinedService, type ServiceHandlers } from "./rpc.js";
import { chordKeys, intInRange, modifiers, mouseButton, pointOnScreen } from "./validate.js";

/** Longest text one TypeText call takes, in characters. */
export const MAX_TYPE_CHARS = 100_000;
/** Most points in one drag path. */
export const MAX_DRAG_POINTS = 10_000;

type InputHandlers = ServiceHandlers<"Input">;
type PointerMethod = "Move" | "Click" | "ButtonDown" | "ButtonUp" | "Drag" | "Scroll" | "GetCursorPosition";
type KeyboardMethod = "PressKeys" | "KeyDown" | "KeyUp" | "TypeText";

export function inputService(desktop: InputDriver, log: Logger): DefinedService<"Input"> {
  return defineService("Input", log, { ...pointerHandlers(desktop), ...keyboardHandlers(desktop) });
}

/** The mouse methods; each answers with where the pointer is afterwards. */
function pointerHandlers(desktop: InputDriver): Pick<InputHandlers, PointerMethod> {
  const pointerState = async () => ({ cursor: await desktop.cursor() });
  const moveIfAsked = async (at: { x: number; y: number } | null, field: string) => {
    if (at) await desktop.move(pointOnScreen(at, field, await desktop.screenSize()));
  };

  return {
    Move: async (req) => {
      await desktop.move(pointOnScreen(req.to, "to", await desktop.screenSize()));
      return pointerState();
    },

    Click: async (req) => {
      const button = mouseButton(req.button);
      const count = req.count === 0 ? 1 : intInRange(req.count, "count", 1, 3);
      const mods = modifiers(req.modifiers);
      await moveIfAsked(req.at, "at");
      await desktop.withModifiers(mods, () => desktop.click(button, count));
      return pointerState();
    },

    ButtonDown: async (req) => {
      const button = mouseButton(req.button);
      await moveIfAsked(req.at, "at");
      await desktop.buttonDown(button);
      return pointerState();
    },

    ButtonUp: async (req) => {
      const button = mouseButton(req.button);
      await moveIfAsked(req.at, "at");
      await desktop.buttonUp(button);
      return pointerState();
    },

    Drag: async (req, ctx) => {
      if (req.path.length < 2) throw InvalidArgumentError.forField("path", `a drag needs at least 2 points, got ${req.path.length}`);
      if (req.path.length > MAX_DRAG_POINTS) throw InvalidArgumentError.forField("path", `at most ${MAX_DRAG_POINTS} points, got ${req.path.length}`);
      const screen = await desktop.screenSize();
      const path = req.path.map((p, i) => pointOnScreen(p, `path[${i}]`, screen));
      const button = mouseButton(req.button);
      const delay = intInRange(req.stepDelayMs, "step_delay_ms", 0, 1000);
      await desktop.withModifiers(modifiers(req.modifiers), () => desktop.drag(path, button, delay, ctx.signal));
      return pointerState();
    },

    Scroll: async (req) => {
      const dx = intInRange(req.dx, "dx", -1000, 1000);
      const dy = intInRange(req.dy, "dy", -1000, 1000);
      if (dx === 0 && dy === 0) throw InvalidArgumentError.forField(["dx", "dy"], "both are 0; give a number of notches to scroll");
      const mods = modifiers(req.modifiers);
      await moveIfAsked(req.at, "at");
      await desktop.withModifiers(mods, () => desktop.scroll(dx, dy));
      return pointerState();
    },

    GetCursorPosition: async () => pointerState(),
  };
}

/** The keyboard methods; each answers with the keys held afterwards. */
function keyboardHandlers(desktop: InputDriver): Pick<InputHandlers, KeyboardMethod> {
  const keyboardState = async () => ({ heldKeys: await desktop.heldKeys() });

  return {
    PressKeys: async (req) => {
      const keys = chordKeys(req.chord, req.keys);
      const repeat = req.repeat === 0 ? 1 : intInRange(req.repeat, "repeat", 1, 100);
      await desktop.chord(keys, repeat);
      return keyboardState();
    },

    KeyDown: async (req) => {
      await desktop.keyDown(resolveKeyOrThrow(req.key, "key"));
      return keyboardState();
    },

    KeyUp: async (req) => {
      await desktop.keyUp(resolveKeyOrThrow(req.key, "key"));
      return keyboardState();
    },

    TypeText: async (req, ctx) => {
      const length = [...req.text].length;
      if (length > MAX_TYPE_CHARS) {
        throw InvalidArgumentError.forField("text", `${length} characters is more than ${MAX_TYPE_CHARS}; split it into several calls or upload a file`);
      }
      const delay = intInRange(req.charDelayMs, "char_delay_ms", 0, 1000);
      await desktop.type(req.text, { charDelayMs: delay, signal: ctx.signal });
      return keyboardState();
    },
  };
}
