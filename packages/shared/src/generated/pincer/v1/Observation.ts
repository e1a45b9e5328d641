// Original file: pincer/v1/episodes.proto

import type { EnvironmentObservation as _pincer_v1_EnvironmentObservation, EnvironmentObservation__Output as _pincer_v1_EnvironmentObservation__Output } from '../../pincer/v1/EnvironmentObservation.js';

/**
 * The screens of the episode's environments at one step.
 */
export interface Observation {
  /**
   * Steps taken before this observation (0 for the first).
   */
  'step'?: (number);
  /**
   * One per environment of the task, in the task's order.
   */
  'environments'?: (_pincer_v1_EnvironmentObservation)[];
}

/**
 * The screens of the episode's environments at one step.
 */
export interface Observation__Output {
  /**
   * Steps taken before this observation (0 for the first).
   */
  'step': (number);
  /**
   * One per environment of the task, in the task's order.
   */
  'environments': (_pincer_v1_EnvironmentObservation__Output)[];
}
