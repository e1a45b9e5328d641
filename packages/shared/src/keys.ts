/**
 * The one key vocabulary of Pincer, used by the daemon to resolve key names and by the controller
 * to validate them before a call.
 *
 * A key name is one of:
 * - an X keysym name, exactly as xdotool and `xev` spell it: `Return`, `BackSpace`, `Page_Up`,
 *   `Control_L`, `F5`, `KP_Enter`, `XF86AudioMute`, `a`, `A`, `at`, `plus`;
 * - an alias that computer-use models emit, matched ignoring case, `_`, `-` and spaces:
 *   `ctrl`/`control`, `shift`, `alt`/`option`, `super`/`win`/`cmd`/`command`/`meta` (all the
 *   Super key on X11), `enter`, `esc`, `backspace`, `del`, `ArrowLeft`, `PAGEDOWN`, `pgup`,
 *   `space`, `printscreen`, `volumeup`…;
 * - a single character (any Unicode code point): `a`, `@`, `ü`, `€`, `中`.
 *
 * A single character is case-sensitive, as in xdotool: `ctrl+A` presses ctrl+shift+a, `ctrl+a`
 * presses ctrl+a. A chord joins names with `+`: `ctrl+shift+t`, `ctrl+plus`, `ctrl++`.
 */
import { quoted } from "./echo.js";

/** X keysym values for the named keys. Single characters are computed, not listed. */
const KEYSYMS: Record<string, number> = {
  BackSpace: 0xff08,
  Tab: 0xff09,
  ISO_Left_Tab: 0xfe20,
  Linefeed: 0xff0a,
  Clear: 0xff0b,
  Return: 0xff0d,
  Pause: 0xff13,
  Scroll_Lock: 0xff14,
  Sys_Req: 0xff15,
  Escape: 0xff1b,
  Delete: 0xffff,
  Home: 0xff50,
  Left: 0xff51,
  Up: 0xff52,
  Right: 0xff53,
  Down: 0xff54,
  Prior: 0xff55,
  Page_Up: 0xff55,
  Next: 0xff56,
  Page_Down: 0xff56,
  End: 0xff57,
  Begin: 0xff58,
  Select: 0xff60,
  Print: 0xff61,
  Execute: 0xff62,
  Insert: 0xff63,
  Undo: 0xff65,
  Redo: 0xff66,
  Menu: 0xff67,
  Find: 0xff68,
  Cancel: 0xff69,
  Help: 0xff6a,
  Break: 0xff6b,
  Num_Lock: 0xff7f,
  KP_Space: 0xff80,
  KP_Tab: 0xff89,
  KP_Enter: 0xff8d,
  KP_Home: 0xff95,
  KP_Left: 0xff96,
  KP_Up: 0xff97,
  KP_Right: 0xff98,
  KP_Down: 0xff99,
  KP_Prior: 0xff9a,
  KP_Page_Up: 0xff9a,
  KP_Next: 0xff9b,
  KP_Page_Down: 0xff9b,
  KP_End: 0xff9c,
  KP_Begin: 0xff9d,
  KP_Insert: 0xff9e,
  KP_Delete: 0xff9f,
  KP_Equal: 0xffbd,
  KP_Multiply: 0xffaa,
  KP_Add: 0xffab,
  KP_Separator: 0xffac,
  KP_Subtract: 0xffad,
  KP_Decimal: 0xffae,
  KP_Divide: 0xffaf,
  KP_0: 0xffb0,
  KP_1: 0xffb1,
  KP_2: 0xffb2,
  KP_3: 0xffb3,
  KP_4: 0xffb4,
  KP_5: 0xffb5,
  KP_6: 0xffb6,
  KP_7: 0xffb7,
  KP_8: 0xffb8,
  KP_9: 0xffb9,
  Shift_L: 0xffe1,
  Shift_R: 0xffe2,
  Control_L: 0xffe3,
  Control_R: 0xffe4,
  Caps_Lock: 0xffe5,
  Shift_Lock: 0xffe6,
  Meta_L: 0xffe7,
  Meta_R: 0xffe8,
  Alt_L: 0xffe9,
  Alt_R: 0xffea,
  Super_L: 0xffeb,
  Super_R: 0xffec,
  Hyper_L: 0xffed,
  Hyper_R: 0xffee,
  ISO_Level3_Shift: 0xfe03,
  Mode_switch: 0xff7e,
  space: 0x20,
  exclam: 0x21,
  quotedbl: 0x22,
  numbersign: 0x23,
  dollar: 0x24,
  percent: 0x25,
  ampersand: 0x26,
  apostrophe: 0x27,
  parenleft: 0x28,
  parenright: 0x29,
  asterisk: 0x2a,
  plus: 0x2b,
  comma: 0x2c,
  minus: 0x2d,
  period: 0x2e,
  slash: 0x2f,
  colon: 0x3a,
  semicolon: 0x3b,
  less: 0x3c,
  equal: 0x3d,
  greater: 0x3e,
  question: 0x3f,
  at: 0x40,
  bracketleft: 0x5b,
  backslash: 0x5c,
  bracketright: 0x5d,
  asciicircum: 0x5e,
  underscore: 0x5f,
  grave: 0x60,
  braceleft: 0x7b,
  bar: 0x7c,
  braceright: 0x7d,
  asciitilde: 0x7e,
  XF86MonBrightnessUp: 0x1008ff02,
  XF86MonBrightnessDown: 0x1008ff03,
  XF86AudioLowerVolume: 0x1008ff11,
  XF86AudioMute: 0x1008ff12,
  XF86AudioRaiseVolume: 0x1008ff13,
  XF86AudioPlay: 0x1008ff14,
  XF86AudioStop: 0x1008ff15,
  XF86AudioPrev: 0x1008ff16,
  XF86AudioNext: 0x1008ff17,
  XF86HomePage: 0x1008ff18,
  XF86Mail: 0x1008ff19,
  XF86Search: 0x1008ff1b,
  XF86Calculator: 0x1008ff1d,
  XF86Back: 0x1008ff26,
  XF86Forward: 0x1008ff27,
  XF86Refresh: 0x1008ff29,
};
for (let n = 1; n <= 35; n++) KEYSYMS[`F${n}`] = 0xffbe + n - 1;

/** Aliases, keyed by their normalized form (lower case, no `_`, `-` or spaces). */
const ALIASES: Record<string, string> = {
  ctrl: "Control_L",
  control: "Control_L",
  ctl: "Control_L",
  lctrl: "Control_L",
  leftctrl: "Control_L",
  controlleft: "Control_L",
  rctrl: "Control_R",
  rightctrl: "Control_R",
  controlright: "Control_R",
  shift: "Shift_L",
  lshift: "Shift_L",
  leftshift: "Shift_L",
  shiftleft: "Shift_L",
  rshift: "Shift_R",
  rightshift: "Shift_R",
  shiftright: "Shift_R",
  alt: "Alt_L",
  option: "Alt_L",
  opt: "Alt_L",
  lalt: "Alt_L",
  leftalt: "Alt_L",
  altleft: "Alt_L",
  ralt: "Alt_R",
  rightalt: "Alt_R",
  altright: "Alt_R",
  altgr: "ISO_Level3_Shift",
  super: "Super_L",
  win: "Super_L",
  windows: "Super_L",
  cmd: "Super_L",
  command: "Super_L",
  meta: "Super_L",
  lsuper: "Super_L",
  leftsuper: "Super_L",
  metaleft: "Super_L",
  rsuper: "Super_R",
  rightsuper: "Super_R",
  metaright: "Super_R",
  hyper: "Hyper_L",
  enter: "Return",
  return: "Return",
  ret: "Return",
  kpenter: "KP_Enter",
  numpadenter: "KP_Enter",
  esc: "Escape",
  escape: "Escape",
  backspace: "BackSpace",
  bksp: "BackSpace",
  back: "BackSpace",
  tab: "Tab",
  del: "Delete",
  delete: "Delete",
  ins: "Insert",
  insert: "Insert",
  space: "space",
  spacebar: "space",
  home: "Home",
  end: "End",
  pageup: "Prior",
  pgup: "Prior",
  prior: "Prior",
  pagedown: "Next",
  pgdn: "Next",
  pgdown: "Next",
  next: "Next",
  up: "Up",
  down: "Down",
  left: "Left",
  right: "Right",
  arrowup: "Up",
  arrowdown: "Down",
  arrowleft: "Left",
  arrowright: "Right",
  capslock: "Caps_Lock",
  caps: "Caps_Lock",
  numlock: "Num_Lock",
  scrolllock: "Scroll_Lock",
  printscreen: "Print",
  print: "Print",
  prtsc: "Print",
  prtscr: "Print",
  sysreq: "Sys_Req",
  pause: "Pause",
  break: "Break",
  menu: "Menu",
  apps: "Menu",
  contextmenu: "Menu",
  clear: "Clear",
  volumeup: "XF86AudioRaiseVolume",
  audiovolumeup: "XF86AudioRaiseVolume",
  volumedown: "XF86AudioLowerVolume",
  audiovolumedown: "XF86AudioLowerVolume",
  volumemute: "XF86AudioMute",
  audiovolumemute: "XF86AudioMute",
  mute: "XF86AudioMute",
  mediaplaypause: "XF86AudioPlay",
  mediaplay: "XF86AudioPlay",
  mediastop: "XF86AudioStop",
  mediatracknext: "XF86AudioNext",
  medianexttrack: "XF86AudioNext",
  mediatrackprevious: "XF86AudioPrev",
  mediaprevtrack: "XF86AudioPrev",
  browserback: "XF86Back",
  browserforward: "XF86Forward",
  browserrefresh: "XF86Refresh",
  minus: "minus",
  hyphen: "minus",
  dash: "minus",
  plus: "plus",
  equal: "equal",
  equals: "equal",
  comma: "comma",
  period: "period",
  dot: "period",
  slash: "slash",
  divide: "KP_Divide",
  backslash: "backslash",
  semicolon: "semicolon",
  quote: "apostrophe",
  apostrophe: "apostrophe",
  backquote: "grave",
  backtick: "grave",
  grave: "grave",
  bracketleft: "bracketleft",
  bracketright: "bracketright",
  multiply: "KP_Multiply",
  add: "KP_Add",
  subtract: "KP_Subtract",
  decimal: "KP_Decimal",
};
for (let n = 1; n <= 35; n++) ALIASES[`f${n}`] = `F${n}`;
for (let n = 0; n <= 9; n++) {
  ALIASES[`numpad${n}`] = `KP_${n}`;
  ALIASES[`kp${n}`] = `KP_${n}`;
}

const MODIFIER_NAMES = new Set([
  "Shift_L",
  "Shift_R",
  "Control_L",
  "Control_R",
  "Alt_L",
  "Alt_R",
  "Meta_L",
  "Meta_R",
  "Super_L",
  "Super_R",
  "Hyper_L",
  "Hyper_R",
  "ISO_Level3_Shift",
  "Mode_switch",
]);

/** A resolved key: its canonical name and X keysym value. */
export interface KeySpec {
  /** Canonical name: the X keysym name, or the character itself for single characters. */
  name: string;
  keysym: number;
  /** Shift, Control, Alt, Super and the like. */
  isModifier: boolean;
}

/** The X keysym for one Unicode character (Latin-1 maps directly, the rest to 0x01000000 + code point). */
export function keysymForChar(char: string): number {
  const cp = char.codePointAt(0);
  if (cp === undefined) throw new RangeError("empty character");
  if ((cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff)) return cp;
  if (cp === 0x0a || cp === 0x0d) return KEYSYMS.Return!;
  if (cp === 0x09) return KEYSYMS.Tab!;
  if (cp === 0x08) return KEYSYMS.BackSpace!;
  if (cp === 0x1b) return KEYSYMS.Escape!;
  return 0x01000000 + cp;
}

function normalizeAlias(name: string): string {
  return name.toLowerCase().replace(/[\s_-]/g, "");
}

/**
 * Resolves a key name of the vocabulary, or returns undefined when the name is not one.
 * Exact keysym names win over aliases; single characters are taken as themselves.
 */
export function resolveKey(name: string): KeySpec | undefined {
  if (name.length === 0) return undefined;
  const exact = KEYSYMS[name];
  if (exact !== undefined) return { name, keysym: exact, isModifier: MODIFIER_NAMES.has(name) };
  if ([...name].length === 1) return { name, keysym: keysymForChar(name), isModifier: false };
  const alias = ALIASES[normalizeAlias(name)];
  if (alias !== undefined) return { name: alias, keysym: KEYSYMS[alias]!, isModifier: MODIFIER_NAMES.has(alias) };
  // Case-insensitive keysym names ("return", "page_up", "kp_enter").
  const lower = name.toLowerCase();
  const named = Object.keys(KEYSYMS).find((k) => k.toLowerCase() === lower);
  if (named) return { name: named, keysym: KEYSYMS[named]!, isModifier: MODIFIER_NAMES.has(named) };
  return undefined;
}

/** Thrown by {@link parseChord} and {@link resolveKeyOrThrow}; the daemon maps it to INVALID_ARGUMENT. */
export class KeyNameError extends Error {
  /** `field` is the request field the key name came from, as in the .proto (`chord[1]`, `modifiers[0]`). */
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = "KeyNameError";
  }
}

/** Resolves a key name or throws a {@link KeyNameError} that says what is accepted. */
export function resolveKeyOrThrow(name: string, field = "key"): KeySpec {
  const spec = resolveKey(name);
  if (!spec) {
    throw new KeyNameError(
      `${field}: unknown key name ${quoted(name)}; use an X keysym name (Return, Page_Up, F5), ` +
        `an alias (ctrl, shift, alt, super, enter, esc, ArrowLeft, pgdn) or a single character`,
      field,
    );
  }
  return spec;
}

/**
 * Splits a chord such as `ctrl+shift+t`, `ctrl++` or `ctrl+plus` into its resolved keys, in order.
 * Throws a {@link KeyNameError} for an empty chord or an unknown name.
 */
export function parseChord(chord: string, field = "chord"): KeySpec[] {
  const text = chord.trim();
  if (text.length === 0) throw new KeyNameError(`${field}: empty chord; give keys such as "ctrl+c" or "Return"`, field);
  const parts: string[] = [];
  let current = "";
  for (const ch of text) {
    // A "+" is a separator unless it stands where a key name is expected ("ctrl++", "+").
    if (ch === "+" && current.length > 0) {
      parts.push(current);
      current = "";
    } else {
      current += ch;
    }
  }
  if (current.length > 0) parts.push(current);
  if (text.endsWith("+") && !text.endsWith("++") && text.length > 1) {
    throw new KeyNameError(`${field}: ${quoted(chord)} ends with "+"; write "ctrl+plus" for the plus key`, field);
  }
  return parts.map((p, i) => resolveKeyOrThrow(p.trim() || p, `${field}[${i}]`));
}

/** Every canonical key name and alias, for documentation and JSON schemas. */
export function keyVocabulary(): { keysyms: string[]; aliases: Record<string, string> } {
  return { keysyms: Object.keys(KEYSYMS), aliases: { ...ALIASES } };
}
