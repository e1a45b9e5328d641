// Original file: pincer/v1/input.proto

import type { MouseButton as _pincer_v1_MouseButton, MouseButton__Output as _pincer_v1_MouseButton__Output } from '../../pincer/v1/MouseButton.js';
import type { Point as _pincer_v1_Point, Point__Output as _pincer_v1_Point__Output } from '../../pincer/v1/Point.js';

export interface ButtonUpRequest {
  'button'?: (_pincer_v1_MouseButton);
  /**
   * Moves here first when set.
   */
  'at'?: (_pincer_v1_Point | null);
}

export interface ButtonUpRequest__Output {
  'button': (_pincer_v1_MouseButton__Output);
  /**
   * Moves here first when set.
   */
  'at': (_pincer_v1_Point__Output | null);
}
