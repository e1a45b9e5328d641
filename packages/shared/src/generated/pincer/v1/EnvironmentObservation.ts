// Original file: pincer/v1/episodes.proto

import type { Region as _pincer_v1_Region, Region__Output as _pincer_v1_Region__Output } from '../../pincer/v1/Region.js';
import type { Mark as _pincer_v1_Mark, Mark__Output as _pincer_v1_Mark__Output } from '../../pincer/v1/Mark.js';

/**
 * What one environment (machine) of the episode looks like now.
 */
export interface EnvironmentObservation {
  /**
   * The environment's name in the task ("desktop" for a one-machine task).
   */
  'name'?: (string);
  /**
   * The screenshot, encoded as mime_type says; empty when not asked for.
   */
  'screenshot'?: (Buffer | Uint8Array | string);
  /**
   * The screenshot's media type ("image/png", "image/jpeg", "image/webp").
   */
  'mimeType'?: (string);
  /**
   * Size of the screenshot in pixels.
   */
  'width'?: (number);
  /**
   * See width.
   */
  'height'?: (number);
  /**
   * The screen region the screenshot shows, before scaling.
   */
  'source'?: (_pincer_v1_Region | null);
  /**
   * width / source.width: a point (x, y) in the image is at (source.x + x / scale,
   * source.y + y / scale) on the screen.
   */
  'scale'?: (number | string);
  /**
   * The accessibility tree in the form asked for; empty when not asked for or unavailable.
   */
  'accessibilityTree'?: (string);
  /**
   * Why the accessibility tree could not be read (no accessibility bus on the machine, ...); empty
   * when it was read or was not asked for (by accessibility or set_of_marks).
   */
  'accessibilityError'?: (string);
  /**
   * The set-of-marks elements, numbered as drawn on the screenshot; empty unless set_of_marks was
   * asked for and the tree was read.
   */
  'marks'?: (_pincer_v1_Mark)[];
}

/**
 * What one environment (machine) of the episode looks like now.
 */
export interface EnvironmentObservation__Output {
  /**
   * The environment's name in the task ("desktop" for a one-machine task).
   */
  'name': (string);
  /**
   * The screenshot, encoded as mime_type says; empty when not asked for.
   */
  'screenshot': (Buffer);
  /**
   * The screenshot's media type ("image/png", "image/jpeg", "image/webp").
   */
  'mimeType': (string);
  /**
   * Size of the screenshot in pixels.
   */
  'width': (number);
  /**
   * See width.
   */
  'height': (number);
  /**
   * The screen region the screenshot shows, before scaling.
   */
  'source': (_pincer_v1_Region__Output | null);
  /**
   * width / source.width: a point (x, y) in the image is at (source.x + x / scale,
   * source.y + y / scale) on the screen.
   */
  'scale': (number);
  /**
   * The accessibility tree in the form asked for; empty when not asked for or unavailable.
   */
  'accessibilityTree': (string);
  /**
   * Why the accessibility tree could not be read (no accessibility bus on the machine, ...); empty
   * when it was read or was not asked for (by accessibility or set_of_marks).
   */
  'accessibilityError': (string);
  /**
   * The set-of-marks elements, numbered as drawn on the screenshot; empty unless set_of_marks was
   * asked for and the tree was read.
   */
  'marks': (_pincer_v1_Mark__Output)[];
}
