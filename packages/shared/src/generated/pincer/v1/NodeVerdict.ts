// Original file: pincer/v1/episodes.proto


/**
 * One node of a graph evaluator (or the whole evaluator for a plain one) and how it stands.
 */
export interface NodeVerdict {
  /**
   * The node's name.
   */
  'node'?: (string);
  /**
   * Its status: "passed", "failed", "error", or "pending" (a node before it has not passed).
   */
  'status'?: (string);
  /**
   * Its score in [0, 1].
   */
  'score'?: (number | string);
  /**
   * Why it has that status, when known.
   */
  'reason'?: (string);
}

/**
 * One node of a graph evaluator (or the whole evaluator for a plain one) and how it stands.
 */
export interface NodeVerdict__Output {
  /**
   * The node's name.
   */
  'node': (string);
  /**
   * Its status: "passed", "failed", "error", or "pending" (a node before it has not passed).
   */
  'status': (string);
  /**
   * Its score in [0, 1].
   */
  'score': (number);
  /**
   * Why it has that status, when known.
   */
  'reason': (string);
}
