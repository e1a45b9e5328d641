// Original file: pincer/v1/process.proto

import type { ProcessStarted as _pincer_v1_ProcessStarted, ProcessStarted__Output as _pincer_v1_ProcessStarted__Output } from '../../pincer/v1/ProcessStarted.js';
import type { ProcessExited as _pincer_v1_ProcessExited, ProcessExited__Output as _pincer_v1_ProcessExited__Output } from '../../pincer/v1/ProcessExited.js';

/**
 * One event of a started command.
 */
export interface StartResponse {
  'started'?: (_pincer_v1_ProcessStarted | null);
  'stdout'?: (Buffer | Uint8Array | string);
  'stderr'?: (Buffer | Uint8Array | string);
  'exited'?: (_pincer_v1_ProcessExited | null);
  'event'?: "started"|"stdout"|"stderr"|"exited";
}

/**
 * One event of a started command.
 */
export interface StartResponse__Output {
  'started'?: (_pincer_v1_ProcessStarted__Output | null);
  'stdout'?: (Buffer);
  'stderr'?: (Buffer);
  'exited'?: (_pincer_v1_ProcessExited__Output | null);
  'event'?: "started"|"stdout"|"stderr"|"exited";
}
