// Original file: pincer/v1/episodes.proto

import type { StartEpisodeResponse as _pincer_v1_StartEpisodeResponse, StartEpisodeResponse__Output as _pincer_v1_StartEpisodeResponse__Output } from '../../pincer/v1/StartEpisodeResponse.js';

export interface StartGroupResponse {
  /**
   * One per episode, in order.
   */
  'episodes'?: (_pincer_v1_StartEpisodeResponse)[];
}

export interface StartGroupResponse__Output {
  /**
   * One per episode, in order.
   */
  'episodes': (_pincer_v1_StartEpisodeResponse__Output)[];
}
