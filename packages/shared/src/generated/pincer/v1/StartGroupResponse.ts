// Original file: pincer/v1/episodes.proto

import type { StartEpisodeResponse as _pincer_v1_StartEpisodeResponse, StartEpisodeResponse__Output as _pincer_v1_StartEpisodeResponse__Output } from '../../pincer/v1/StartEpisodeResponse.js';

export interface StartGroupResponse {
  /**
   * The episode's place in the group, from 0; episodes are sent as they start, not in this order.
   */
  'index'?: (number);
  /**
   * The started episode, as StartEpisode answers it.
   */
  'episode'?: (_pincer_v1_StartEpisodeResponse | null);
  /**
   * How many episodes of the group are still to be sent after this one.
   */
  'remaining'?: (number);
}

export interface StartGroupResponse__Output {
  /**
   * The episode's place in the group, from 0; episodes are sent as they start, not in this order.
   */
  'index': (number);
  /**
   * The started episode, as StartEpisode answers it.
   */
  'episode': (_pincer_v1_StartEpisodeResponse__Output | null);
  /**
   * How many episodes of the group are still to be sent after this one.
   */
  'remaining': (number);
}
