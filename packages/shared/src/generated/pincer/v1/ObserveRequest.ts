// Original file: pincer/v1/episodes.proto

import type { ObservationOptions as _pincer_v1_ObservationOptions, ObservationOptions__Output as _pincer_v1_ObservationOptions__Output } from '../../pincer/v1/ObservationOptions.js';

export interface ObserveRequest {
  /**
   * The episode.
   */
  'episodeId'?: (string);
  /**
   * What the observation should contain.
   */
  'observation'?: (_pincer_v1_ObservationOptions | null);
}

export interface ObserveRequest__Output {
  /**
   * The episode.
   */
  'episodeId': (string);
  /**
   * What the observation should contain.
   */
  'observation': (_pincer_v1_ObservationOptions__Output | null);
}
