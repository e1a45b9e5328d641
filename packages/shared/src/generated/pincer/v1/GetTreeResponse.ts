// Original file: pincer/v1/accessibility.proto

import type { AccessibleNode as _pincer_v1_AccessibleNode, AccessibleNode__Output as _pincer_v1_AccessibleNode__Output } from '../../pincer/v1/AccessibleNode.js';

export interface GetTreeResponse {
  /**
   * One node per application.
   */
  'applications'?: (_pincer_v1_AccessibleNode)[];
  /**
   * True when a limit (depth, nodes, children per node, time) left part of the tree out.
   */
  'truncated'?: (boolean);
  /**
   * Nodes in applications, all levels.
   */
  'nodeCount'?: (number);
  /**
   * The linearised text, when asked for.
   */
  'linearized'?: (string);
}

export interface GetTreeResponse__Output {
  /**
   * One node per application.
   */
  'applications': (_pincer_v1_AccessibleNode__Output)[];
  /**
   * True when a limit (depth, nodes, children per node, time) left part of the tree out.
   */
  'truncated': (boolean);
  /**
   * Nodes in applications, all levels.
   */
  'nodeCount': (number);
  /**
   * The linearised text, when asked for.
   */
  'linearized': (string);
}
