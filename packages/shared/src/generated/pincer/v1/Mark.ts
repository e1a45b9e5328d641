// Original file: pincer/v1/episodes.proto

import type { Region as _pincer_v1_Region, Region__Output as _pincer_v1_Region__Output } from '../../pincer/v1/Region.js';

/**
 * One numbered element of a set-of-marks observation: an interactive or textual widget of the
 * accessibility tree, as OSWorld's filter keeps them.
 */
export interface Mark {
  /**
   * The number drawn on the screenshot, from 1, in the tree's order.
   */
  'id'?: (number);
  /**
   * Its box on the screen, in screen pixels (not the screenshot's: see EnvironmentObservation.scale).
   */
  'bounds'?: (_pincer_v1_Region | null);
  /**
   * Its accessibility role with dashes for spaces ("push-button", "entry", "menu-item").
   */
  'role'?: (string);
  /**
   * Its accessible name; may be empty when the widget shows text instead.
   */
  'name'?: (string);
}

/**
 * One numbered element of a set-of-marks observation: an interactive or textual widget of the
 * accessibility tree, as OSWorld's filter keeps them.
 */
export interface Mark__Output {
  /**
   * The number drawn on the screenshot, from 1, in the tree's order.
   */
  'id': (number);
  /**
   * Its box on the screen, in screen pixels (not the screenshot's: see EnvironmentObservation.scale).
   */
  'bounds': (_pincer_v1_Region__Output | null);
  /**
   * Its accessibility role with dashes for spaces ("push-button", "entry", "menu-item").
   */
  'role': (string);
  /**
   * Its accessible name; may be empty when the widget shows text instead.
   */
  'name': (string);
}
