// Original file: pincer/v1/system.proto

import type { Region as _pincer_v1_Region, Region__Output as _pincer_v1_Region__Output } from '../../pincer/v1/Region.js';

/**
 * The window after it was focused: the fields of Window.
 */
export interface FocusWindowResponse {
  /**
   * X window id.
   */
  'id'?: (number);
  'title'?: (string);
  /**
   * WM_CLASS instance and class names, e.g. "xterm" and "XTerm".
   */
  'instance'?: (string);
  /**
   * Named class_name, not class (a keyword in most languages); the field number is that of v1's first release.
   */
  'className'?: (string);
  /**
   * _NET_WM_PID when the program sets it, else 0.
   */
  'pid'?: (number);
  /**
   * Position on the screen and size, in pixels.
   */
  'geometry'?: (_pincer_v1_Region | null);
  'visible'?: (boolean);
  'focused'?: (boolean);
}

/**
 * The window after it was focused: the fields of Window.
 */
export interface FocusWindowResponse__Output {
  /**
   * X window id.
   */
  'id': (number);
  'title': (string);
  /**
   * WM_CLASS instance and class names, e.g. "xterm" and "XTerm".
   */
  'instance': (string);
  /**
   * Named class_name, not class (a keyword in most languages); the field number is that of v1's first release.
   */
  'className': (string);
  /**
   * _NET_WM_PID when the program sets it, else 0.
   */
  'pid': (number);
  /**
   * Position on the screen and size, in pixels.
   */
  'geometry': (_pincer_v1_Region__Output | null);
  'visible': (boolean);
  'focused': (boolean);
}
