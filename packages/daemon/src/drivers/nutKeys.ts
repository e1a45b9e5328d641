import type { KeySpec } from "@pincer/shared";

/**
 * Pincer's keys (X keysym names, see @pincer/shared's keys) as names of nut-js's `Key` enum, which
 * describes a US 105-key keyboard. The nut-js worker turns the names into enum values, so the
 * daemon itself never loads nut-js.
 */
const NAMED: Record<string, string> = {
  BackSpace: "Backspace",
  Tab: "Tab",
  Clear: "Clear",
  Return: "Return",
  Pause: "Pause",
  Scroll_Lock: "ScrollLock",
  Escape: "Escape",
  Delete: "Delete",
  Home: "Home",
  Left: "Left",
  Up: "Up",
  Right: "Right",
  Down: "Down",
  Prior: "PageUp",
  Page_Up: "PageUp",
  Next: "PageDown",
  Page_Down: "PageDown",
  End: "End",
  Print: "Print",
  Insert: "Insert",
  Menu: "Menu",
  Num_Lock: "NumLock",
  Caps_Lock: "CapsLock",
  KP_Enter: "Enter",
  KP_Equal: "NumPadEqual",
  KP_Multiply: "Multiply",
  KP_Add: "Add",
  KP_Subtract: "Subtract",
  KP_Decimal: "Decimal",
  KP_Divide: "Divide",
  Shift_L: "LeftShift",
  Shift_R: "RightShift",
  Control_L: "LeftControl",
  Control_R: "RightControl",
  Alt_L: "LeftAlt",
  Alt_R: "RightAlt",
  Meta_L: "LeftMeta",
  Meta_R: "RightMeta",
  Super_L: "LeftSuper",
  Super_R: "RightSuper",
  XF86AudioMute: "AudioMute",
  XF86AudioLowerVolume: "AudioVolDown",
  XF86AudioRaiseVolume: "AudioVolUp",
  XF86AudioPlay: "AudioPlay",
  XF86AudioStop: "AudioStop",
  XF86AudioPrev: "AudioPrev",
  XF86AudioNext: "AudioNext",
};
for (let n = 1; n <= 24; n++) NAMED[`F${n}`] = `F${n}`;
for (let n = 0; n <= 9; n++) NAMED[`KP_${n}`] = `NumPad${n}`;

/** Unshifted characters of the US layout and their keys. */
const PLAIN: Record<string, string> = {
  " ": "Space",
  "`": "Grave",
  "-": "Minus",
  "=": "Equal",
  "[": "LeftBracket",
  "]": "RightBracket",
  "\\": "Backslash",
  ";": "Semicolon",
  "'": "Quote",
  ",": "Comma",
  ".": "Period",
  "/": "Slash",
};
for (let n = 0; n <= 9; n++) PLAIN[String(n)] = `Num${n}`;
for (const c of "abcdefghijklmnopqrstuvwxyz") PLAIN[c] = c.toUpperCase();

/** Shifted characters of the US layout: the character they share a key with. */
const SHIFTED = "~`!1@2#3$4%5^6&7*8(9)0_-+={[}]|\\:;\"'<,>.?/";
for (let i = 0; i < SHIFTED.length; i += 2) {
  const base = PLAIN[SHIFTED[i + 1]!];
  if (base) PLAIN[SHIFTED[i]!] = `Shift+${base}`;
}
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZ") PLAIN[c] = `Shift+${c}`;

/** The keys that type one character on a US keyboard (`\n` is Return, `\t` Tab), or undefined. */
export function nutStrokeFor(char: string): string[] | undefined {
  if (char === "\n" || char === "\r") return ["Return"];
  if (char === "\t") return ["Tab"];
  const plain = PLAIN[char];
  if (!plain) return undefined;
  return plain.startsWith("Shift+") ? ["LeftShift", plain.slice("Shift+".length)] : [plain];
}

/** Keysym names of single characters (`space`, `percent`) as the characters themselves. */
function characterOf(key: KeySpec): string | undefined {
  if ([...key.name].length === 1) return key.name;
  if (key.keysym >= 0x20 && key.keysym <= 0x7e) return String.fromCharCode(key.keysym);
  return undefined;
}

/**
 * The nut-js keys that make `key`: one key, or Shift and a key for a shifted character. Undefined
 * for a key the US keyboard nut-js describes does not have (such as `€` or `XF86Search`); such
 * characters can still be typed as text.
 */
export function nutKeysFor(key: KeySpec): string[] | undefined {
  const named = NAMED[key.name];
  if (named) return [named];
  const char = characterOf(key);
  const plain = char === undefined ? undefined : PLAIN[char];
  if (!plain) return undefined;
  return plain.startsWith("Shift+") ? ["LeftShift", plain.slice("Shift+".length)] : [plain];
}
