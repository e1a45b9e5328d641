// Original file: pincer/v1/screen.proto

import type { Region as _pincer_v1_Region, Region__Output as _pincer_v1_Region__Output } from '../../pincer/v1/Region.js';

export interface WaitForSettleResponse {
  /**
   * True when the screen stayed unchanged for the quiet time; false when timeout_ms passed first.
   */
  'settled'?: (boolean);
  /**
   * Time spent waiting.
   */
  'waitedMs'?: (number);
  /**
   * Frames captured and compared.
   */
  'frames'?: (number);
  /**
   * Frames that differed from the one before.
   */
  'changes'?: (number);
  /**
   * Time from the start of the wait to the last change seen; 0 when nothing changed.
   */
  'lastChangeMs'?: (number);
  /**
   * Bounding box of everything that changed during the wait, in screen pixels; unset when nothing did.
   */
  'changed'?: (_pincer_v1_Region | null);
}

export interface WaitForSettleResponse__Output {
  /**
   * True when the screen stayed unchanged for the quiet time; false when timeout_ms passed first.
   */
  'settled': (boolean);
  /**
   * Time spent waiting.
   */
  'waitedMs': (number);
  /**
   * Frames captured and compared.
   */
  'frames': (number);
  /**
   * Frames that differed from the one before.
   */
  'changes': (number);
  /**
   * Time from the start of the wait to the last change seen; 0 when nothing changed.
   */
  'lastChangeMs': (number);
  /**
   * Bounding box of everything that changed during the wait, in screen pixels; unset when nothing did.
   */
  'changed': (_pincer_v1_Region__Output | null);
}
