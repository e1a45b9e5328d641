import { didYouMean, InvalidArgumentError, UnimplementedError } from "@pincer/shared";
import type { AnyAction } from "../actions/action.js";
import { computer13Calls, pyautoguiAction, pyautoguiActionCalls } from "../actions/pyautogui/index.js";
import { type ComputerCallPlan, OPENAI_COMPUTER_ACTION_NAME, planAnthropicComputerAction, planOpenAIComputerAction } from "../agents/computerCalls.js";
import { createComputerAction } from "../agents/computerUse.js";
import type { StepCall } from "../benchmark/types.js";
import type { Req } from "./wire.js";

/** How actions of the action spaces beyond tool calls (pyautogui, computer_13, computer-use) become tool calls of an episode. */
export interface ActionSpaces {
  /** Actions added to every environment of a served episode. */
  actions: readonly AnyAction[];
  /** `Action.pyautogui` code (or WAIT, DONE, FAIL) in environment `env` → calls. */
  pyautogui(env: string, code: string): StepCall[];
  /** `Action.computer_13_json`, parsed, in environment `env` → calls. */
  computer13(env: string, action: unknown): StepCall[];
  /** `Action.anthropic_computer_json`, parsed, in environment `env` of an episode with `tools` → calls, or why not. */
  anthropicComputer(env: string, input: unknown, tools: readonly string[]): ComputerCallPlan;
  /** `Action.openai_computer_json`, parsed, in environment `env` → calls, or why not. */
  openaiComputer(env: string, action: unknown): ComputerCallPlan;
}

/** What a WAIT of the OSWorld action spaces waits, as Action.Special WAIT does. */
const WAIT_SECONDS = 1;

/**
 * OSWorld's pyautogui and computer_13 action spaces: both become calls of the `pyautogui` action
 * (the code read by the controller, never run as Python), WAIT, DONE and FAIL root calls. Code that
 * cannot be read is the step's error, as in OSWorld, where it fails on the machine: the action
 * reads the whole program before it performs anything, the step counts, and the episode goes on.
 *
 * Anthropic's and OpenAI's computer-use actions become the calls Pincer's computer-use agents make
 * of them: of the `computer` and `openai_computer` actions ({@link createComputerAction} with
 * `display: "screen"`), so coordinates are pixels of the screen at its real size, never scaled; a
 * screenshot (or Anthropic's cursor_position) is a zero-second wait, since the step's observation answers it.
 */
export const OSWORLD_ACTION_SPACES: ActionSpaces = {
  actions: [
    pyautoguiAction,
    createComputerAction({ display: "screen" }),
    createComputerAction({ vocabulary: "openai", display: "screen", name: OPENAI_COMPUTER_ACTION_NAME }),
  ],
  pyautogui: (env, code) => pyautoguiActionCalls(env, code, WAIT_SECONDS),
  computer13: (env, action) => computer13Calls(env, action, WAIT_SECONDS),
  // No screenshot: the model's coordinates are the screen's.
  anthropicComputer: (env, input, tools) => planAnthropicComputerAction(input, env, undefined, new Set(tools)),
  openaiComputer: (env, action) => planOpenAIComputerAction(action, env, undefined),
};

/** The Action fields of the action spaces beyond tool calls: the space's name (as action_spaces lists it) and the field's name in errors. */
const SPACE_FIELDS = {
  pyautogui: { space: "pyautogui", field: "action.pyautogui" },
  computer_13Json: { space: "computer_13", field: "action.computer_13_json" },
  anthropicComputerJson: { space: "anthropic_computer", field: "action.anthropic_computer_json" },
  openaiComputerJson: { space: "openai_computer", field: "action.openai_computer_json" },
} as const;

/** The kinds of Action a server with `spaces` accepts, as TaskInfo.action_spaces lists them. */
export function actionSpaceNames(spaces: ActionSpaces | null): string[] {
  return ["tool_call", "special", ...(spaces ? Object.values(SPACE_FIELDS).map((f) => f.space) : [])];
}

/** `text` parsed as JSON; INVALID_ARGUMENT naming `field` when it is not. */
function parseJsonField(text: string, field: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw InvalidArgumentError.forField(field, `not JSON: ${(err as Error).message}`);
  }
}

/** The calls of an action of one of the spaces beyond tool calls; JSON that cannot be read, or an action not of its vocabulary, is INVALID_ARGUMENT. */
function callsOfSpace(
  action: NonNullable<Req<"Step">["action"]>,
  kind: keyof typeof SPACE_FIELDS,
  tools: readonly string[],
  first: string,
  spaces: ActionSpaces,
) {
  const { field } = SPACE_FIELDS[kind];
  const text = action[kind] ?? "";
  if (kind === "pyautogui") return spaces.pyautogui(first, text);
  const parsed = parseJsonField(text, field);
  if (kind === "computer_13Json") return spaces.computer13(first, parsed);
  const plan = kind === "anthropicComputerJson" ? spaces.anthropicComputer(first, parsed, tools) : spaces.openaiComputer(first, parsed);
  if ("error" in plan) throw InvalidArgumentError.forField(field, plan.error);
  return plan.calls;
}

/**
 * The calls an Action of a Step stands for, on the episode's `tools`; `first` is the environment the
 * action spaces beyond tool calls act on, `spaces` those spaces (null: not served). Bad input is INVALID_ARGUMENT.
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
      const text = action.toolCall?.argumentsJson ?? "";
      const args = text.trim() ? parseJsonField(text, "action.tool_call.arguments_json") : {};
      if (typeof args !== "object" || args === null || Array.isArray(args)) {
        throw InvalidArgumentError.forField("action.tool_call.arguments_json", "the arguments must be a JSON object");
      }
      return [{ tool: name, args }];
    }
    case "special":
      switch (action.special) {
        case "SPECIAL_WAIT":
          return [{ tool: "root__wait", args: { seconds: WAIT_SECONDS } }];
        case "SPECIAL_DONE":
          return [{ tool: "root__complete", args: {} }];
        case "SPECIAL_FAIL":
          // OSWorld's FAIL: its tasks' root `fail` declares the task infeasible; other tasks have none, and end as done.
          return [{ tool: tools.includes("root__fail") ? "root__fail" : "root__complete", args: {} }];
        default:
          throw InvalidArgumentError.forField("action.special", "choose SPECIAL_WAIT, SPECIAL_DONE or SPECIAL_FAIL");
      }
    case "pyautogui":
    case "computer_13Json":
    case "anthropicComputerJson":
    case "openaiComputerJson":
      if (!spaces) {
        throw new UnimplementedError(
          `the ${SPACE_FIELDS[action.kind].space} action space is not available on this server; ` +
            "use tool_call or special (the task's action_spaces list what is)",
        );
      }
      return callsOfSpace(action, action.kind, tools, first, spaces);
    default:
      throw InvalidArgumentError.forField(
        "action",
        "set one of tool_call, pyautogui, computer_13_json, anthropic_computer_json, openai_computer_json or special",
      );
  }
}
