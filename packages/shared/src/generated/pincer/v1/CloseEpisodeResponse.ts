// Original file: pincer/v1/episodes.proto


export interface CloseEpisodeResponse {
  /**
   * The attempt's status as summary.json records it ("passed", "failed", "env_error", ...).
   */
  'state'?: (string);
  /**
   * The final score in [0, 1].
   */
  'score'?: (number | string);
  /**
   * The attempt's folder, on the server's host.
   */
  'attemptDir'?: (string);
  /**
   * Why the episode ended ("success", "agent_complete", "step_limit", ...; "lease_expired" when the
   * server closed it).
   */
  'endReason'?: (string);
}

export interface CloseEpisodeResponse__Output {
  /**
   * The attempt's status as summary.json records it ("passed", "failed", "env_error", ...).
   */
  'state': (string);
  /**
   * The final score in [0, 1].
   */
  'score': (number);
  /**
   * The attempt's folder, on the server's host.
   */
  'attemptDir': (string);
  /**
   * Why the episode ended ("success", "agent_complete", "step_limit", ...; "lease_expired" when the
   * server closed it).
   */
  'endReason': (string);
}
