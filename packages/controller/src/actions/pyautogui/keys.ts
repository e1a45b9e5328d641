import { resolveKey } from "@pincer/shared";

/**
 * pyautogui's key names (its KEYBOARD_KEYS, which OSWorld's computer_13 uses too) in Pincer's key
 * vocabulary. Most are already aliases of it (`ctrl`, `enter`, `pgdn`, `f5`, `volumeup`); this table
 * holds the rest. pyautogui lowercases every name longer than one character; single characters stay
 * as they are (`A` is shift+a).
 */
const PYAUTOGUI_KEYS: Record<string, string> = {
  "\n": "Return",
  "\r": "Return",
  "\t": "Tab",
  " ": "space",
  altleft: "Alt_L",
  altright: "Alt_R",
  ctrlleft: "Control_L",
  ctrlright: "Control_R",
  shiftleft: "Shift_L",
  shiftright: "Shift_R",
  winleft: "Super_L",
  winright: "Super_R",
  optionleft: "Alt_L",
  optionright: "Alt_R",
  prntscrn: "Print",
  separator: "KP_Separator",
  nexttrack: "XF86AudioNext",
  prevtrack: "XF86AudioPrev",
  playpause: "XF86AudioPlay",
  stop: "XF86AudioStop",
  launchmail: "XF86Mail",
  browserhome: "XF86HomePage",
  browsersearch: "XF86Search",
  modechange: "Mode_switch",
  execute: "Execute",
  select: "Select",
  help: "Help",
};
for (let n = 0; n <= 9; n++) PYAUTOGUI_KEYS[`num${n}`] = `KP_${n}`;

/** The Pincer key name of a pyautogui key name, or undefined when it names no key Pincer knows. */
export function pincerKey(name: string): string | undefined {
  const key = [...name].length > 1 ? name.toLowerCase() : name;
  const mapped = PYAUTOGUI_KEYS[key] ?? key;
  return resolveKey(mapped) ? mapped : undefined;
}
