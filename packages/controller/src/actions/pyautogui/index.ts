import { z } from "zod";
import { action } from "../action.js";
import { MAX_SLEEP_SECONDS } from "./calls.js";
import { PYAUTOGUI_ACTION_NAME } from "./computer13.js";
import { parsePyautoguiCode, runPyautoguiCode } from "./interpret.js";

export { MAX_SLEEP_SECONDS, MAX_STEPS } from "./calls.js";
export {
  computer13Calls,
  computer13Code,
  OSWORLD_PAUSE_SECONDS,
  type OsworldSpecial,
  osworldSpecialCalls,
  type OsworldToolCall,
  PYAUTOGUI_ACTION_NAME,
  pyautoguiActionCalls,
} from "./computer13.js";
export {
  DEFAULT_PAUSE_SECONDS,
  parsePyautoguiCode,
  type PyautoguiProgram,
  type RunPyautoguiOptions,
  runPyautoguiCode,
  VOCABULARY,
} from "./interpret.js";
export { pincerKey } from "./keys.js";
export { COMMAND_TIMEOUT_SECONDS } from "./modules.js";
export type { Expr, Stmt } from "./parse.js";
export type { PyValue } from "./tokens.js";

const code = z
  .string()
  .min(1)
  .superRefine((src, ctx) => {
    try {
      parsePyautoguiCode(src);
    } catch (err) {
      ctx.addIssue({ code: "custom", message: (err as Error).message });
    }
  })
  .describe(
    "Python using pyautogui (click, doubleClick, rightClick, moveTo, dragTo, mouseDown/Up, scroll, write, press, hotkey, keyDown/Up, " +
      "position, size), time.sleep, pyperclip.copy/paste, subprocess.run and os.system; for loops and assignments",
  );

/**
 * Runs pyautogui code as OSWorld agents write it (OSWorld's `pyautogui` action space): the
 * controller reads the code and performs its input, clipboard and command calls on `env`; no code
 * reaches the machine. The code is read whole and checked before any input; `time.sleep` waits at
 * most {@link MAX_SLEEP_SECONDS} s a call, and pyautogui's PAUSE (0.1 s) follows each pyautogui call.
 */
export const pyautoguiAction = action({
  name: PYAUTOGUI_ACTION_NAME,
  description:
    "Run Python code that drives the mouse and keyboard with pyautogui, e.g. " +
    "\"pyautogui.click(412, 300); pyautogui.write('hello'); pyautogui.press('enter')\". Screen coordinates are pixels.",
  params: z.object({ code }),
  run: ({ code }, { env, signal }) => runPyautoguiCode(env, code, signal),
});
