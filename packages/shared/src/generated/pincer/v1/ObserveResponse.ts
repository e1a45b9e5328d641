// Original file: pincer/v1/episodes.proto

import type { Observation as _pincer_v1_Observation, Observation__Output as _pincer_v1_Observation__Output } from '../../pincer/v1/Observation.js';

export interface ObserveResponse {
  /**
   * The screens now.
   */
  'observation'?: (_pincer_v1_Observation | null);
}

export interface ObserveResponse__Output {
  /**
   * The screens now.
   */
  'observation': (_pincer_v1_Observation__Output | null);
}
