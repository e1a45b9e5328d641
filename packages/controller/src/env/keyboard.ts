import type { PromiseClient } from "./rpc.js";
import type { CallOptions } from "./types.js";

/** Options of {@link KeyboardApi.press}. */
export interface PressOptions extends CallOptions {
  /** Press the chord this many times (1–100). @default 1 */
  repeat?: number;
}

/** Options of {@link KeyboardApi.type}. */
export interface TypeOptions extends CallOptions {
  /** Pause after each character in milliseconds (0–1000); the deadline grows with it. @default 0 */
  charDelayMs?: number;
}

/**
 * The keyboard. Key names follow one vocabulary (docs/controller.md, "Key names"): X keysym names such as
 * `Return` or `Page_Up`, the names computer-use models emit (`ctrl`, `enter`, `ArrowLeft`), or any
 * single character.
 */
export interface KeyboardApi {
  /** Presses a chord ("ctrl+shift+t", or its keys as a list) and releases it. */
  press(chord: string | string[], opts?: PressOptions): Promise<void>;
  /** Holds a key down until {@link KeyboardApi.up}. */
  down(key: string, opts?: CallOptions): Promise<void>;
  /** Releases a key held with {@link KeyboardApi.down}. */
  up(key: string, opts?: CallOptions): Promise<void>;
  /** Types any Unicode text, whatever the keyboard layout. */
  type(text: string, opts?: TypeOptions): Promise<void>;
}

/** `env.keyboard` over the Input service. */
export function createKeyboardApi(input: PromiseClient<"Input">, defaultTimeoutMs: number): KeyboardApi {
  return {
    press: async (chord, o = {}) => {
      const repeat = o.repeat ?? 1;
      await input.PressKeys(typeof chord === "string" ? { chord, repeat } : { keys: chord, repeat }, o);
    },
    down: async (key, o = {}) => {
      await input.KeyDown({ key }, o);
    },
    up: async (key, o = {}) => {
      await input.KeyUp({ key }, o);
    },
    type: async (text, o = {}) => {
      // Slow typing must not hit the default deadline: give it time for every character.
      const timeoutMs = o.timeoutMs ?? defaultTimeoutMs + [...text].length * (o.charDelayMs ?? 0);
      await input.TypeText({ text, charDelayMs: o.charDelayMs ?? 0 }, { ...o, timeoutMs });
    },
  };
}
