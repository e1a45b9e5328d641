// Original file: pincer/v1/episodes.proto


export interface EvaluateRequest {
  /**
   * The episode.
   */
  'episodeId'?: (string);
}

export interface EvaluateRequest__Output {
  /**
   * The episode.
   */
  'episodeId': (string);
}
