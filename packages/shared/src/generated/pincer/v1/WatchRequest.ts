// Original file: pincer/v1/screen.proto

import type { ImageFormat as _pincer_v1_ImageFormat, ImageFormat__Output as _pincer_v1_ImageFormat__Output } from '../../pincer/v1/ImageFormat.js';

export interface WatchRequest {
  /**
   * JPEG or WEBP; unspecified means JPEG. PNG and raw RGB are refused (too slow, too large to stream).
   */
  'format'?: (_pincer_v1_ImageFormat);
  /**
   * JPEG and WebP quality 1-100; 0 means 70.
   */
  'quality'?: (number);
  /**
   * Downscale (never upscale) to at most this width, keeping the aspect ratio; 0 = the screen's width.
   */
  'maxWidth'?: (number);
  /**
   * The most frames a second, 1-30; 0 means 10. It is also how often the daemon looks for a change.
   */
  'maxFps'?: (number);
}

export interface WatchRequest__Output {
  /**
   * JPEG or WEBP; unspecified means JPEG. PNG and raw RGB are refused (too slow, too large to stream).
   */
  'format': (_pincer_v1_ImageFormat__Output);
  /**
   * JPEG and WebP quality 1-100; 0 means 70.
   */
  'quality': (number);
  /**
   * Downscale (never upscale) to at most this width, keeping the aspect ratio; 0 = the screen's width.
   */
  'maxWidth': (number);
  /**
   * The most frames a second, 1-30; 0 means 10. It is also how often the daemon looks for a change.
   */
  'maxFps': (number);
}
