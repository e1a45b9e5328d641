import { resolveKey } from "@pincer/shared";

/**
 * The X keysym names of Pincer's key vocabulary that are not single characters. Their values come
 * from the vocabulary itself, so a name here is always one the daemon accepts.
 */
const NAMED_KEYS = [
  "BackSpace",
  "Tab",
  "ISO_Left_Tab",
  "Linefeed",
  "Clear",
  "Return",
  "Pause",
  "Scroll_Lock",
  "Sys_Req",
  "Escape",
  "Delete",
  "Home",
  "Left",
  "Up",
  "Right",
  "Down",
  "Prior",
  "Next",
  "End",
  "Begin",
  "Select",
  "Print",
  "Execute",
  "Insert",
  "Undo",
  "Redo",
  "Menu",
  "Find",
  "Cancel",
  "Help",
  "Break",
  "Num_Lock",
  "KP_Space",
  "KP_Tab",
  "KP_Enter",
  "KP_Home",
  "KP_Left",
  "KP_Up",
  "KP_Right",
  "KP_Down",
  "KP_Prior",
  "KP_Next",
  "KP_End",
  "KP_Begin",
  "KP_Insert",
  "KP_Delete",
  "KP_Equal",
  "KP_Multiply",
  "KP_Add",
  "KP_Separator",
  "KP_Subtract",
  "KP_Decimal",
  "KP_Divide",
  ...Array.from({ length: 10 }, (_, n) => `KP_${n}`),
  ...Array.from({ length: 35 }, (_, n) => `F${n + 1}`),
  "Shift_L",
  "Shift_R",
  "Control_L",
  "Control_R",
  "Caps_Lock",
  "Shift_Lock",
  "Meta_L",
  "Meta_R",
  "Alt_L",
  "Alt_R",
  "Super_L",
  "Super_R",
  "Hyper_L",
  "Hyper_R",
  "ISO_Level3_Shift",
  "Mode_switch",
  "XF86MonBrightnessUp",
  "XF86MonBrightnessDown",
  "XF86AudioLowerVolume",
  "XF86AudioMute",
  "XF86AudioRaiseVolume",
  "XF86AudioPlay",
  "XF86AudioStop",
  "XF86AudioPrev",
  "XF86AudioNext",
  "XF86HomePage",
  "XF86Mail",
  "XF86Search",
  "XF86Calculator",
  "XF86Back",
  "XF86Forward",
  "XF86Refresh",
];

const NAME_OF_KEYSYM = new Map<number, string>();
for (const name of NAMED_KEYS) {
  const spec = resolveKey(name);
  if (spec && !NAME_OF_KEYSYM.has(spec.keysym)) NAME_OF_KEYSYM.set(spec.keysym, spec.name);
}

/**
 * The key name `env.keyboard` takes for an X keysym from an RFB KeyEvent, or undefined for a keysym
 * Pincer has no key for (dead keys, most vendor keys). Latin-1 keysyms and Unicode keysyms
 * (0x01000000 + code point) become their character; the rest go by their keysym name.
 */
export function keyNameOfKeysym(keysym: number): string | undefined {
  if ((keysym >= 0x20 && keysym <= 0x7e) || (keysym >= 0xa0 && keysym <= 0xff)) return String.fromCharCode(keysym);
  if (keysym >= 0x01000100 && keysym <= 0x0110ffff) {
    const cp = keysym - 0x01000000;
    // Surrogate halves are no characters.
    return cp >= 0xd800 && cp <= 0xdfff ? undefined : String.fromCodePoint(cp);
  }
  return NAME_OF_KEYSYM.get(keysym);
}
