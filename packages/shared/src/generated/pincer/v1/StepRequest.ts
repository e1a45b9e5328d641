// Original file: pincer/v1/episodes.proto

import type { Action as _pincer_v1_Action, Action__Output as _pincer_v1_Action__Output } from '../../pincer/v1/Action.js';
import type { ObservationOptions as _pincer_v1_ObservationOptions, ObservationOptions__Output as _pincer_v1_ObservationOptions__Output } from '../../pincer/v1/ObservationOptions.js';

export interface StepRequest {
  /**
   * The episode.
   */
  'episodeId'?: (string);
  /**
   * The action to run.
   */
  'action'?: (_pincer_v1_Action | null);
  /**
   * Seconds to wait after the action before observing; 0 means none.
   */
  'pauseSeconds'?: (number | string);
  /**
   * What the observation should contain.
   */
  'observation'?: (_pincer_v1_ObservationOptions | null);
}

export interface StepRequest__Output {
  /**
   * The episode.
   */
  'episodeId': (string);
  /**
   * The action to run.
   */
  'action': (_pincer_v1_Action__Output | null);
  /**
   * Seconds to wait after the action before observing; 0 means none.
   */
  'pauseSeconds': (number);
  /**
   * What the observation should contain.
   */
  'observation': (_pincer_v1_ObservationOptions__Output | null);
}
