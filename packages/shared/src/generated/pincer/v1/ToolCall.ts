// Original file: pincer/v1/episodes.proto


/**
 * A call of one of the episode's tools.
 */
export interface ToolCall {
  /**
   * The tool's name as StartEpisodeResponse.tools lists it, e.g. "desktop__click".
   */
  'name'?: (string);
  /**
   * The arguments as a JSON object; empty means {}.
   */
  'argumentsJson'?: (string);
}

/**
 * A call of one of the episode's tools.
 */
export interface ToolCall__Output {
  /**
   * The tool's name as StartEpisodeResponse.tools lists it, e.g. "desktop__click".
   */
  'name': (string);
  /**
   * The arguments as a JSON object; empty means {}.
   */
  'argumentsJson': (string);
}
