// Original file: pincer/v1/episodes.proto

import type { StartEpisodeRequest as _pincer_v1_StartEpisodeRequest, StartEpisodeRequest__Output as _pincer_v1_StartEpisodeRequest__Output } from '../../pincer/v1/StartEpisodeRequest.js';

export interface StartGroupRequest {
  /**
   * The episode to start, `size` times.
   */
  'episode'?: (_pincer_v1_StartEpisodeRequest | null);
  /**
   * How many episodes; 0 means 1. More than the server's concurrency start as slots free up.
   */
  'size'?: (number);
  /**
   * Start all at once or none: wait until `size` slots are free at the same time (at most the
   * server's concurrency). Implied by episode.fail_fast, which fails with RESOURCE_EXHAUSTED
   * unless they are free now.
   */
  'together'?: (boolean);
}

export interface StartGroupRequest__Output {
  /**
   * The episode to start, `size` times.
   */
  'episode': (_pincer_v1_StartEpisodeRequest__Output | null);
  /**
   * How many episodes; 0 means 1. More than the server's concurrency start as slots free up.
   */
  'size': (number);
  /**
   * Start all at once or none: wait until `size` slots are free at the same time (at most the
   * server's concurrency). Implied by episode.fail_fast, which fails with RESOURCE_EXHAUSTED
   * unless they are free now.
   */
  'together': (boolean);
}
