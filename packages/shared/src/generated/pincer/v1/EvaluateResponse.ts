// Original file: pincer/v1/episodes.proto

import type { NodeVerdict as _pincer_v1_NodeVerdict, NodeVerdict__Output as _pincer_v1_NodeVerdict__Output } from '../../pincer/v1/NodeVerdict.js';

export interface EvaluateResponse {
  /**
   * The evaluator's score in [0, 1].
   */
  'score'?: (number | string);
  /**
   * Why, as the evaluator says it.
   */
  'reason'?: (string);
  /**
   * The score counts as success (it reached the task's pass mark).
   */
  'success'?: (boolean);
  /**
   * The evaluator's nodes.
   */
  'nodes'?: (_pincer_v1_NodeVerdict)[];
  /**
   * The evaluation ended the episode (success, or an evaluator error): close it.
   */
  'done'?: (boolean);
  /**
   * Why it ended when done.
   */
  'endReason'?: (string);
}

export interface EvaluateResponse__Output {
  /**
   * The evaluator's score in [0, 1].
   */
  'score': (number);
  /**
   * Why, as the evaluator says it.
   */
  'reason': (string);
  /**
   * The score counts as success (it reached the task's pass mark).
   */
  'success': (boolean);
  /**
   * The evaluator's nodes.
   */
  'nodes': (_pincer_v1_NodeVerdict__Output)[];
  /**
   * The evaluation ended the episode (success, or an evaluator error): close it.
   */
  'done': (boolean);
  /**
   * Why it ended when done.
   */
  'endReason': (string);
}
