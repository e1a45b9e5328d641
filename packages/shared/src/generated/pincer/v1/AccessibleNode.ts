// Original file: pincer/v1/accessibility.proto

import type { Bounds as _pincer_v1_Bounds, Bounds__Output as _pincer_v1_Bounds__Output } from '../../pincer/v1/Bounds.js';
import type { AccessibleNode as _pincer_v1_AccessibleNode, AccessibleNode__Output as _pincer_v1_AccessibleNode__Output } from '../../pincer/v1/AccessibleNode.js';

export interface AccessibleNode {
  /**
   * AT-SPI role name: "application", "frame", "push button", "label"...
   */
  'role'?: (string);
  'name'?: (string);
  'description'?: (string);
  /**
   * AT-SPI state names in lower case: "showing", "visible", "enabled", "focused"...
   */
  'states'?: (string)[];
  /**
   * Unset when the object has no on-screen component.
   */
  'bounds'?: (_pincer_v1_Bounds | null);
  /**
   * The Text interface's content, capped.
   */
  'text'?: (string);
  /**
   * The Value interface's current value.
   */
  'value'?: (string);
  /**
   * Object attributes the toolkit sets ("class", "id", "toolkit"...).
   */
  'attributes'?: ({[key: string]: string});
  'children'?: (_pincer_v1_AccessibleNode)[];
  /**
   * The application's name, on application nodes (the roots).
   */
  'app'?: (string);
}

export interface AccessibleNode__Output {
  /**
   * AT-SPI role name: "application", "frame", "push button", "label"...
   */
  'role': (string);
  'name': (string);
  'description': (string);
  /**
   * AT-SPI state names in lower case: "showing", "visible", "enabled", "focused"...
   */
  'states': (string)[];
  /**
   * Unset when the object has no on-screen component.
   */
  'bounds': (_pincer_v1_Bounds__Output | null);
  /**
   * The Text interface's content, capped.
   */
  'text': (string);
  /**
   * The Value interface's current value.
   */
  'value': (string);
  /**
   * Object attributes the toolkit sets ("class", "id", "toolkit"...).
   */
  'attributes': ({[key: string]: string});
  'children': (_pincer_v1_AccessibleNode__Output)[];
  /**
   * The application's name, on application nodes (the roots).
   */
  'app': (string);
}
