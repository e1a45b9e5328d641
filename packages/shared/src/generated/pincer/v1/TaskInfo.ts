// Original file: pincer/v1/episodes.proto


/**
 * What ListTasks says of one task.
 */
export interface TaskInfo {
  /**
   * The task's id, for StartEpisodeRequest.task_id.
   */
  'id'?: (string);
  /**
   * What the agent is asked to do.
   */
  'instruction'?: (string);
  /**
   * The task's tags.
   */
  'tags'?: (string)[];
  /**
   * The names of the task's environments (machines).
   */
  'environments'?: (string)[];
  /**
   * The kinds of Action the task accepts: "tool_call", "special", and "pyautogui", "computer_13",
   * "anthropic_computer" and "openai_computer" when the server has them.
   */
  'actionSpaces'?: (string)[];
  /**
   * The most steps an episode of the task may take.
   */
  'maxSteps'?: (number);
}

/**
 * What ListTasks says of one task.
 */
export interface TaskInfo__Output {
  /**
   * The task's id, for StartEpisodeRequest.task_id.
   */
  'id': (string);
  /**
   * What the agent is asked to do.
   */
  'instruction': (string);
  /**
   * The task's tags.
   */
  'tags': (string)[];
  /**
   * The names of the task's environments (machines).
   */
  'environments': (string)[];
  /**
   * The kinds of Action the task accepts: "tool_call", "special", and "pyautogui", "computer_13",
   * "anthropic_computer" and "openai_computer" when the server has them.
   */
  'actionSpaces': (string)[];
  /**
   * The most steps an episode of the task may take.
   */
  'maxSteps': (number);
}
