import { sleep } from "@pincer/shared";
import type { KeySpec } from "@pincer/shared";
import type { MouseButtonName, PointXY } from "./drivers.js";

/** What the input drivers share: holding modifiers around an action, and walking a drag's path. */
interface Keys {
  keyDown(key: KeySpec): Promise<void>;
  keyUp(key: KeySpec): Promise<void>;
}

interface Pointer {
  move(to: PointXY): Promise<void>;
  buttonDown(button: MouseButtonName): Promise<void>;
  buttonUp(button: MouseButtonName): Promise<void>;
}

/** Runs `body` with modifier keys held, releasing them (in reverse) whatever happens. */
export async function holdingModifiers<T>(keys: Keys, modifiers: KeySpec[], body: () => Promise<T>): Promise<T> {
  const pressed: KeySpec[] = [];
  try {
    for (const m of modifiers) {
      await keys.keyDown(m);
      pressed.push(m);
    }
    return await body();
  } finally {
    for (const m of pressed.reverse()) await keys.keyUp(m);
  }
}

/** Presses at the first point, moves through the rest (`stepDelayMs` apart), releases at the last. */
export async function dragAlong(pointer: Pointer, path: PointXY[], button: MouseButtonName, stepDelayMs: number, signal?: AbortSignal): Promise<void> {
  const [first, ...rest] = path;
  await pointer.move(first!);
  await pointer.buttonDown(button);
  try {
    for (const p of rest) {
      signal?.throwIfAborted();
      if (stepDelayMs > 0) await sleep(stepDelayMs);
      await pointer.move(p);
    }
  } finally {
    await pointer.buttonUp(button);
  }
}
