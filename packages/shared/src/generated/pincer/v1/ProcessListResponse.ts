// Original file: pincer/v1/process.proto

import type { ProcessInfo as _pincer_v1_ProcessInfo, ProcessInfo__Output as _pincer_v1_ProcessInfo__Output } from '../../pincer/v1/ProcessInfo.js';

export interface ProcessListResponse {
  'processes'?: (_pincer_v1_ProcessInfo)[];
}

export interface ProcessListResponse__Output {
  'processes': (_pincer_v1_ProcessInfo__Output)[];
}
