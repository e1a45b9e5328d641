// Original file: pincer/v1/screen.proto

import type { Region as _pincer_v1_Region, Region__Output as _pincer_v1_Region__Output } from '../../pincer/v1/Region.js';

export interface WaitForSettleRequest {
  /**
   * Part of the screen to watch; the whole screen when unset.
   */
  'region'?: (_pincer_v1_Region | null);
  /**
   * How long the screen must stay unchanged; 0 means 300 ms.
   */
  'quietMs'?: (number);
  /**
   * The longest wait; 0 means 5000 ms. At most 120000.
   */
  'timeoutMs'?: (number);
  /**
   * How long an unchanged screen may stay unchanged at the start before it counts as settled, for
   * programs that take a while to begin drawing; 0 means quiet_ms. At most timeout_ms.
   */
  'initialQuietMs'?: (number);
  /**
   * Time between frames; 0 means 25 ms.
   */
  'intervalMs'?: (number);
  /**
   * Compare the first frame with the last frame of the previous wait on the same region: a
   * difference (an action's effect drawn before this wait began) counts as a change at the start,
   * so initial_quiet_ms does not apply. Meant for act → wait → screenshot loops.
   */
  'sinceLastWait'?: (boolean);
}

export interface WaitForSettleRequest__Output {
  /**
   * Part of the screen to watch; the whole screen when unset.
   */
  'region': (_pincer_v1_Region__Output | null);
  /**
   * How long the screen must stay unchanged; 0 means 300 ms.
   */
  'quietMs': (number);
  /**
   * The longest wait; 0 means 5000 ms. At most 120000.
   */
  'timeoutMs': (number);
  /**
   * How long an unchanged screen may stay unchanged at the start before it counts as settled, for
   * programs that take a while to begin drawing; 0 means quiet_ms. At most timeout_ms.
   */
  'initialQuietMs': (number);
  /**
   * Time between frames; 0 means 25 ms.
   */
  'intervalMs': (number);
  /**
   * Compare the first frame with the last frame of the previous wait on the same region: a
   * difference (an action's effect drawn before this wait began) counts as a change at the start,
   * so initial_quiet_ms does not apply. Meant for act → wait → screenshot loops.
   */
  'sinceLastWait': (boolean);
}
