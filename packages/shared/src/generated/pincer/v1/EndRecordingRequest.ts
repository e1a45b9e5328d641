// Original file: pincer/v1/episodes.proto


export interface EndRecordingRequest {
  /**
   * The episode; a closed episode too, while the video its close kept has not been sent.
   */
  'episodeId'?: (string);
  /**
   * The environment whose video to send; empty means the first one recorded.
   */
  'environment'?: (string);
}

export interface EndRecordingRequest__Output {
  /**
   * The episode; a closed episode too, while the video its close kept has not been sent.
   */
  'episodeId': (string);
  /**
   * The environment whose video to send; empty means the first one recorded.
   */
  'environment': (string);
}
