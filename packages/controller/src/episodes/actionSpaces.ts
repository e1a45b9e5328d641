import type { AnyAction } from "../actions/action.js";
import { computer13Calls, pyautoguiAction, pyautoguiActionCalls } from "../actions/pyautogui/index.js";
import type { StepCall } from "../benchmark/types.js";

/** How actions of the pyautogui and computer_13 action spaces become tool calls of an episode. */
export interface ActionSpaces {
  /** Actions added to every environment of a served episode. */
  actions: readonly AnyAction[];
  /** `Action.pyautogui` code (or WAIT, DONE, FAIL) in environment `env` → calls. */
  pyautogui(env: string, code: string): StepCall[];
  /** `Action.computer_13_json`, parsed, in environment `env` → calls. */
  computer13(env: string, action: unknown): StepCall[];
}

/** What a WAIT of the OSWorld action spaces waits, as Action.Special WAIT does. */
const WAIT_SECONDS = 1;

/**
 * OSWorld's pyautogui and computer_13 action spaces: both become calls of the `pyautogui` action
 * (the code read by the controller, never run as Python), WAIT, DONE and FAIL root calls. Code that
 * cannot be read is the step's error, as in OSWorld, where it fails on the machine: the action
 * reads the whole program before it performs anything, the step counts, and the episode goes on.
 */
export const OSWORLD_ACTION_SPACES: ActionSpaces = {
  actions: [pyautoguiAction],
  pyautogui: (env, code) => pyautoguiActionCalls(env, code, WAIT_SECONDS),
  computer13: (env, action) => computer13Calls(env, action, WAIT_SECONDS),
};
