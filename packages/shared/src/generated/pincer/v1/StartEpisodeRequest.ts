// Original file: pincer/v1/episodes.proto

import type { ObservationOptions as _pincer_v1_ObservationOptions, ObservationOptions__Output as _pincer_v1_ObservationOptions__Output } from '../../pincer/v1/ObservationOptions.js';

export interface StartEpisodeRequest {
  /**
   * A task of the served dataset, by id.
   */
  'taskId'?: (string);
  /**
   * An OSWorld task (the JSON of one example file), checked as `pincer validate` checks one;
   * an invalid task is INVALID_ARGUMENT listing its problems.
   */
  'osworldTaskJson'?: (string);
  /**
   * What the first observation should contain.
   */
  'observation'?: (_pincer_v1_ObservationOptions | null);
  /**
   * How long the episode lives without a call naming it; 0 means 300 seconds.
   */
  'leaseSeconds'?: (number);
  /**
   * Fail with RESOURCE_EXHAUSTED when no machines are free, instead of waiting for them.
   */
  'failFast'?: (boolean);
  /**
   * The task to run; one must be set.
   */
  'task'?: "taskId"|"osworldTaskJson";
}

export interface StartEpisodeRequest__Output {
  /**
   * A task of the served dataset, by id.
   */
  'taskId'?: (string);
  /**
   * An OSWorld task (the JSON of one example file), checked as `pincer validate` checks one;
   * an invalid task is INVALID_ARGUMENT listing its problems.
   */
  'osworldTaskJson'?: (string);
  /**
   * What the first observation should contain.
   */
  'observation': (_pincer_v1_ObservationOptions__Output | null);
  /**
   * How long the episode lives without a call naming it; 0 means 300 seconds.
   */
  'leaseSeconds': (number);
  /**
   * Fail with RESOURCE_EXHAUSTED when no machines are free, instead of waiting for them.
   */
  'failFast': (boolean);
  /**
   * The task to run; one must be set.
   */
  'task'?: "taskId"|"osworldTaskJson";
}
