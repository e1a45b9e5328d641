// Original file: pincer/v1/episodes.proto


export interface CloseEpisodeRequest {
  /**
   * The episode.
   */
  'episodeId'?: (string);
}

export interface CloseEpisodeRequest__Output {
  /**
   * The episode.
   */
  'episodeId': (string);
}
