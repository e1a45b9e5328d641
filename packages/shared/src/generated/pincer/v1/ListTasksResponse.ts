// Original file: pincer/v1/episodes.proto

import type { TaskInfo as _pincer_v1_TaskInfo, TaskInfo__Output as _pincer_v1_TaskInfo__Output } from '../../pincer/v1/TaskInfo.js';

export interface ListTasksResponse {
  /**
   * The tasks, in the dataset's order.
   */
  'tasks'?: (_pincer_v1_TaskInfo)[];
}

export interface ListTasksResponse__Output {
  /**
   * The tasks, in the dataset's order.
   */
  'tasks': (_pincer_v1_TaskInfo__Output)[];
}
