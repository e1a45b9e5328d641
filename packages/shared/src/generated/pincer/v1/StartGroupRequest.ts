// Original file: pincer/v1/episodes.proto

import type { StartEpisodeRequest as _pincer_v1_StartEpisodeRequest, StartEpisodeRequest__Output as _pincer_v1_StartEpisodeRequest__Output } from '../../pincer/v1/StartEpisodeRequest.js';

export interface StartGroupRequest {
  /**
   * The episode to start, `size` times.
   */
  'episode'?: (_pincer_v1_StartEpisodeRequest | null);
  /**
   * How many episodes; 0 means 1. At most the server's concurrency.
   */
  'size'?: (number);
}

export interface StartGroupRequest__Output {
  /**
   * The episode to start, `size` times.
   */
  'episode': (_pincer_v1_StartEpisodeRequest__Output | null);
  /**
   * How many episodes; 0 means 1. At most the server's concurrency.
   */
  'size': (number);
}
