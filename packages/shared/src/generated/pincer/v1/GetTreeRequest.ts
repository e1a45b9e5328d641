// Original file: pincer/v1/accessibility.proto


export interface GetTreeRequest {
  /**
   * Levels below an application node; 0 means 50.
   */
  'maxDepth'?: (number);
  /**
   * Most nodes returned; 0 means 5000. At most 100000.
   */
  'maxNodes'?: (number);
  /**
   * Also nodes that are not on screen (not showing, not visible, or without bounds).
   */
  'includeHidden'?: (boolean);
  /**
   * Only applications whose name contains this (case-insensitive); all when empty.
   */
  'app'?: (string);
  /**
   * Deadline of the walk; what was read by then is returned, marked truncated. 0 means 5000 ms.
   */
  'timeoutMs'?: (number);
  /**
   * Longest text kept per node; 0 means 2000 characters.
   */
  'maxTextLength'?: (number);
  /**
   * Also return the tree as linearised text (OSWorld's form: one tab-separated line per node).
   */
  'linearized'?: (boolean);
}

export interface GetTreeRequest__Output {
  /**
   * Levels below an application node; 0 means 50.
   */
  'maxDepth': (number);
  /**
   * Most nodes returned; 0 means 5000. At most 100000.
   */
  'maxNodes': (number);
  /**
   * Also nodes that are not on screen (not showing, not visible, or without bounds).
   */
  'includeHidden': (boolean);
  /**
   * Only applications whose name contains this (case-insensitive); all when empty.
   */
  'app': (string);
  /**
   * Deadline of the walk; what was read by then is returned, marked truncated. 0 means 5000 ms.
   */
  'timeoutMs': (number);
  /**
   * Longest text kept per node; 0 means 2000 characters.
   */
  'maxTextLength': (number);
  /**
   * Also return the tree as linearised text (OSWorld's form: one tab-separated line per node).
   */
  'linearized': (boolean);
}
