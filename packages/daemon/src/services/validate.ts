import { InvalidArgumentError, parseChord, quoted, resolveKeyOrThrow, type KeySpec } from "@pincer/shared";
import type { MouseButtonName, PointXY } from "../drivers/desktop.js";

/** A point that must lie on the screen. */
export function pointOnScreen(p: { x: number; y: number } | null | undefined, field: string, screen: { width: number; height: number }): PointXY {
  if (!p) throw InvalidArgumentError.forField(field, "a point is required");
  if (!Number.isInteger(p.x) || p.x < 0 || p.x >= screen.width) {
    throw InvalidArgumentError.forField(`${field}.x`, `${p.x} is off the screen; it must be in 0..${screen.width - 1}`);
  }
  if (!Number.isInteger(p.y) || p.y < 0 || p.y >= screen.height) {
    throw InvalidArgumentError.forField(`${field}.y`, `${p.y} is off the screen; it must be in 0..${screen.height - 1}`);
  }
  return { x: p.x, y: p.y };
}

export function mouseButton(b: string): MouseButtonName {
  switch (b) {
    case "MOUSE_BUTTON_UNSPECIFIED":
    case "MOUSE_BUTTON_LEFT":
      return "left";
    case "MOUSE_BUTTON_RIGHT":
      return "right";
    case "MOUSE_BUTTON_MIDDLE":
      return "middle";
    default:
      throw InvalidArgumentError.forField("button", `unknown mouse button ${quoted(b)}; use LEFT, RIGHT or MIDDLE`);
  }
}

export function modifiers(names: string[], field = "modifiers"): KeySpec[] {
  if (names.length > 8) throw InvalidArgumentError.forField(field, `at most 8 modifiers, got ${names.length}`);
  return names.map((n, i) => resolveKeyOrThrow(n, `${field}[${i}]`));
}

export function chordKeys(chord: string, keys: string[]): KeySpec[] {
  if (chord && keys.length) throw InvalidArgumentError.forField(["chord", "keys"], "set exactly one of them, not both");
  if (!chord && keys.length === 0) throw InvalidArgumentError.forField("chord", 'empty chord; give keys such as "ctrl+c" or "Return"');
  const specs = chord ? parseChord(chord, "chord") : keys.map((k, i) => resolveKeyOrThrow(k, `keys[${i}]`));
  if (specs.length > 8) throw InvalidArgumentError.forField("chord", `at most 8 keys at once, got ${specs.length}`);
  return specs;
}

/** `value` when it is an integer in `min..max`; else INVALID_ARGUMENT naming `field` (as in the .proto) as violated. */
export function intInRange(value: number, field: string, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw InvalidArgumentError.forField(field, `${value} is out of range; it must be an integer in ${min}..${max}`);
  }
  return value;
}
