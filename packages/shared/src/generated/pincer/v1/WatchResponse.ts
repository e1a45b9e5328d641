// Original file: pincer/v1/screen.proto

import type { ImageFormat as _pincer_v1_ImageFormat, ImageFormat__Output as _pincer_v1_ImageFormat__Output } from '../../pincer/v1/ImageFormat.js';
import type { Size as _pincer_v1_Size, Size__Output as _pincer_v1_Size__Output } from '../../pincer/v1/Size.js';

/**
 * One frame of the screen.
 */
export interface WatchResponse {
  /**
   * 1 for the first frame of the stream, then one more per frame sent (frames never sent have none).
   */
  'seq'?: (number);
  /**
   * When the capture began, on the daemon's clock: milliseconds since the Unix epoch.
   */
  'capturedAtMs'?: (number | string);
  'data'?: (Buffer | Uint8Array | string);
  /**
   * JPEG or WEBP, as asked.
   */
  'format'?: (_pincer_v1_ImageFormat);
  /**
   * Size of the image.
   */
  'width'?: (number);
  'height'?: (number);
  /**
   * Size of the whole screen (the image shows all of it, scaled by width / screen.width).
   */
  'screen'?: (_pincer_v1_Size | null);
}

/**
 * One frame of the screen.
 */
export interface WatchResponse__Output {
  /**
   * 1 for the first frame of the stream, then one more per frame sent (frames never sent have none).
   */
  'seq': (number);
  /**
   * When the capture began, on the daemon's clock: milliseconds since the Unix epoch.
   */
  'capturedAtMs': (number);
  'data': (Buffer);
  /**
   * JPEG or WEBP, as asked.
   */
  'format': (_pincer_v1_ImageFormat__Output);
  /**
   * Size of the image.
   */
  'width': (number);
  'height': (number);
  /**
   * Size of the whole screen (the image shows all of it, scaled by width / screen.width).
   */
  'screen': (_pincer_v1_Size__Output | null);
}
