import { didYouMean, InvalidArgumentError, UnimplementedError } from "@pincer/shared";
import type { AnyAction } from "../actions/action.js";
import { computer13Calls, pyautoguiAction, pyautoguiActionCalls } from "../actions/pyautogui/index.js";
import type { StepCall } from "../benchmark/types.js";
import type { Req } from "./wire.js";

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

/**
 * The calls an Action of a Step stands for, on the episode's `tools`; `first` is the environment the
 * OSWorld action spaces act on, `spaces` those spaces (null: not served). Bad input is INVALID_ARGUMENT.
 */
export function callsOfAction(action: Req<"Step">["action"], tools: readonly string[], first: string, spaces: ActionSpaces | null): StepCall[] {
  switch (action?.kind) {
    case "toolCall": {
      const name = action.toolCall?.name ?? "";
      if (!tools.includes(name)) {
        throw InvalidArgumentError.forField(
          "action.tool_call.name",
          `no tool ${JSON.stringify(name)} in this episode${didYouMean(name, tools)}; StartEpisodeResponse.tools lists them`,
        );
      }
      let args: unknown = {};
      const text = action.toolCall?.argumentsJson ?? "";
      if (text.trim()) {
        try {
          args = JSON.parse(text);
        } catch (err) {
          throw InvalidArgumentError.forField("action.tool_call.arguments_json", `not JSON: ${(err as Error).message}`);
        }
      }
      if (typeof args !== "object" || args === null || Array.isArray(args)) {
        throw InvalidArgumentError.forField("action.tool_call.arguments_json", "the arguments must be a JSON object");
      }
      return [{ tool: name, args }];
    }
    case "special":
      switch (action.special) {
        case "SPECIAL_WAIT":
          return [{ tool: "root__wait", args: { seconds: 1 } }];
        case "SPECIAL_DONE":
          return [{ tool: "root__complete", args: {} }];
        case "SPECIAL_FAIL":
          // OSWorld's FAIL: its tasks' root `fail` declares the task infeasible; other tasks have none, and end as done.
          return [{ tool: tools.includes("root__fail") ? "root__fail" : "root__complete", args: {} }];
        default:
          throw InvalidArgumentError.forField("action.special", "choose SPECIAL_WAIT, SPECIAL_DONE or SPECIAL_FAIL");
      }
    case "pyautogui":
    case "computer_13Json": {
      if (!spaces) {
        throw new UnimplementedError(
          `the ${action.kind === "pyautogui" ? "pyautogui" : "computer_13"} action space is not available on this server; ` +
            "use tool_call or special (the task's action_spaces list what is)",
        );
      }
      if (action.kind === "pyautogui") return spaces.pyautogui(first, action.pyautogui ?? "");
      let parsed: unknown;
      try {
        parsed = JSON.parse(action.computer_13Json ?? "");
      } catch (err) {
        throw InvalidArgumentError.forField("action.computer_13_json", `not JSON: ${(err as Error).message}`);
      }
      return spaces.computer13(first, parsed);
    }
    default:
      throw InvalidArgumentError.forField("action", "set one of tool_call, pyautogui, computer_13_json or special");
  }
}
