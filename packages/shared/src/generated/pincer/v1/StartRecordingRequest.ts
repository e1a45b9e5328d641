// Original file: pincer/v1/episodes.proto


export interface StartRecordingRequest {
  /**
   * The episode.
   */
  'episodeId'?: (string);
  /**
   * The environment to record ("desktop"); empty means all of the task's environments.
   */
  'environment'?: (string);
}

export interface StartRecordingRequest__Output {
  /**
   * The episode.
   */
  'episodeId': (string);
  /**
   * The environment to record ("desktop"); empty means all of the task's environments.
   */
  'environment': (string);
}
