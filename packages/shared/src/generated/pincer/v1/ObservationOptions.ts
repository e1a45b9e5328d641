// Original file: pincer/v1/episodes.proto

import type { ImageFormat as _pincer_v1_ImageFormat, ImageFormat__Output as _pincer_v1_ImageFormat__Output } from '../../pincer/v1/ImageFormat.js';
import type { AccessibilityForm as _pincer_v1_AccessibilityForm, AccessibilityForm__Output as _pincer_v1_AccessibilityForm__Output } from '../../pincer/v1/AccessibilityForm.js';

/**
 * What an observation should contain.
 */
export interface ObservationOptions {
  /**
   * Include a screenshot of every environment.
   */
  'screenshot'?: (boolean);
  /**
   * The screenshots' encoding; unspecified means PNG.
   */
  'format'?: (_pincer_v1_ImageFormat);
  /**
   * Downscale (never upscale) to fit in max_width x max_height, keeping the aspect ratio.
   * 0 on both: full size.
   */
  'maxWidth'?: (number);
  /**
   * See max_width.
   */
  'maxHeight'?: (number);
  /**
   * Which accessibility tree to include, if any.
   */
  'accessibility'?: (_pincer_v1_AccessibilityForm);
  /**
   * Set-of-marks: number the interactive elements of the accessibility tree, list them in
   * EnvironmentObservation.marks, and draw each one's box and number on the screenshot (when one
   * is asked for). Reads the tree even when accessibility is none; with ACCESSIBILITY_FORM_TEXT the
   * tree's lines are numbered as the marks are.
   */
  'setOfMarks'?: (boolean);
}

/**
 * What an observation should contain.
 */
export interface ObservationOptions__Output {
  /**
   * Include a screenshot of every environment.
   */
  'screenshot': (boolean);
  /**
   * The screenshots' encoding; unspecified means PNG.
   */
  'format': (_pincer_v1_ImageFormat__Output);
  /**
   * Downscale (never upscale) to fit in max_width x max_height, keeping the aspect ratio.
   * 0 on both: full size.
   */
  'maxWidth': (number);
  /**
   * See max_width.
   */
  'maxHeight': (number);
  /**
   * Which accessibility tree to include, if any.
   */
  'accessibility': (_pincer_v1_AccessibilityForm__Output);
  /**
   * Set-of-marks: number the interactive elements of the accessibility tree, list them in
   * EnvironmentObservation.marks, and draw each one's box and number on the screenshot (when one
   * is asked for). Reads the tree even when accessibility is none; with ACCESSIBILITY_FORM_TEXT the
   * tree's lines are numbered as the marks are.
   */
  'setOfMarks': (boolean);
}
