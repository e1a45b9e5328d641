// Original file: pincer/v1/input.proto

import type { Point as _pincer_v1_Point, Point__Output as _pincer_v1_Point__Output } from '../../pincer/v1/Point.js';

export interface ButtonDownResponse {
  'cursor'?: (_pincer_v1_Point | null);
}

export interface ButtonDownResponse__Output {
  'cursor': (_pincer_v1_Point__Output | null);
}
