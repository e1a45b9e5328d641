// Original file: pincer/v1/episodes.proto

import type { ToolCall as _pincer_v1_ToolCall, ToolCall__Output as _pincer_v1_ToolCall__Output } from '../../pincer/v1/ToolCall.js';

// Original file: pincer/v1/episodes.proto

/**
 * Actions that are not tool calls.
 */
export const _pincer_v1_Action_Special = {
  /**
   * Not an action: INVALID_ARGUMENT.
   */
  SPECIAL_UNSPECIFIED: 'SPECIAL_UNSPECIFIED',
  /**
   * Wait one second.
   */
  SPECIAL_WAIT: 'SPECIAL_WAIT',
  /**
   * The agent says the task is done: the episode ends and its evaluator decides.
   */
  SPECIAL_DONE: 'SPECIAL_DONE',
  /**
   * The agent says the task cannot be done (OSWorld's FAIL: declares it infeasible).
   */
  SPECIAL_FAIL: 'SPECIAL_FAIL',
} as const;

/**
 * Actions that are not tool calls.
 */
export type _pincer_v1_Action_Special =
  /**
   * Not an action: INVALID_ARGUMENT.
   */
  | 'SPECIAL_UNSPECIFIED'
  | 0
  /**
   * Wait one second.
   */
  | 'SPECIAL_WAIT'
  | 1
  /**
   * The agent says the task is done: the episode ends and its evaluator decides.
   */
  | 'SPECIAL_DONE'
  | 2
  /**
   * The agent says the task cannot be done (OSWorld's FAIL: declares it infeasible).
   */
  | 'SPECIAL_FAIL'
  | 3

/**
 * Actions that are not tool calls.
 */
export type _pincer_v1_Action_Special__Output = typeof _pincer_v1_Action_Special[keyof typeof _pincer_v1_Action_Special]

/**
 * One action of an agent, in one of the action spaces.
 */
export interface Action {
  /**
   * A call of one of the episode's tools.
   */
  'toolCall'?: (_pincer_v1_ToolCall | null);
  /**
   * Python code using pyautogui (OSWorld's pyautogui action space), interpreted by the
   * controller, not run as Python.
   */
  'pyautogui'?: (string);
  /**
   * One action of OSWorld's computer_13 action space as JSON, e.g.
   * {"action_type": "CLICK", "parameters": {"x": 10, "y": 20}}.
   */
  'computer_13Json'?: (string);
  /**
   * WAIT, DONE or FAIL.
   */
  'special'?: (_pincer_v1_Action_Special);
  /**
   * The input of Anthropic's `computer` tool (one tool_use's input) as JSON, e.g.
   * {"action": "left_click", "coordinate": [10, 20]}, coordinates in screen pixels. It runs as
   * Pincer's computer-use agents run it; "screenshot" and "cursor_position" are a step that does
   * nothing (the observation answers them).
   */
  'anthropicComputerJson'?: (string);
  /**
   * The `action` of an OpenAI computer_call as JSON, e.g. {"type": "click", "x": 10, "y": 20,
   * "button": "left"}, coordinates in screen pixels. It runs as Pincer's computer-use agents run
   * it; "screenshot" is a step that does nothing (the observation answers it).
   */
  'openaiComputerJson'?: (string);
  /**
   * The action; one must be set.
   */
  'kind'?: "toolCall"|"pyautogui"|"computer_13Json"|"special"|"anthropicComputerJson"|"openaiComputerJson";
}

/**
 * One action of an agent, in one of the action spaces.
 */
export interface Action__Output {
  /**
   * A call of one of the episode's tools.
   */
  'toolCall'?: (_pincer_v1_ToolCall__Output | null);
  /**
   * Python code using pyautogui (OSWorld's pyautogui action space), interpreted by the
   * controller, not run as Python.
   */
  'pyautogui'?: (string);
  /**
   * One action of OSWorld's computer_13 action space as JSON, e.g.
   * {"action_type": "CLICK", "parameters": {"x": 10, "y": 20}}.
   */
  'computer_13Json'?: (string);
  /**
   * WAIT, DONE or FAIL.
   */
  'special'?: (_pincer_v1_Action_Special__Output);
  /**
   * The input of Anthropic's `computer` tool (one tool_use's input) as JSON, e.g.
   * {"action": "left_click", "coordinate": [10, 20]}, coordinates in screen pixels. It runs as
   * Pincer's computer-use agents run it; "screenshot" and "cursor_position" are a step that does
   * nothing (the observation answers them).
   */
  'anthropicComputerJson'?: (string);
  /**
   * The `action` of an OpenAI computer_call as JSON, e.g. {"type": "click", "x": 10, "y": 20,
   * "button": "left"}, coordinates in screen pixels. It runs as Pincer's computer-use agents run
   * it; "screenshot" is a step that does nothing (the observation answers it).
   */
  'openaiComputerJson'?: (string);
  /**
   * The action; one must be set.
   */
  'kind'?: "toolCall"|"pyautogui"|"computer_13Json"|"special"|"anthropicComputerJson"|"openaiComputerJson";
}
