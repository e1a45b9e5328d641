// Original file: pincer/v1/episodes.proto


export interface StartRecordingResponse {
  /**
   * The environments being recorded, in the task's order.
   */
  'environments'?: (string)[];
}

export interface StartRecordingResponse__Output {
  /**
   * The environments being recorded, in the task's order.
   */
  'environments': (string)[];
}
