// Original file: pincer/v1/episodes.proto


export interface RenewLeaseRequest {
  /**
   * The episode.
   */
  'episodeId'?: (string);
  /**
   * The new lease from now; 0 means the episode's lease.
   */
  'leaseSeconds'?: (number);
}

export interface RenewLeaseRequest__Output {
  /**
   * The episode.
   */
  'episodeId': (string);
  /**
   * The new lease from now; 0 means the episode's lease.
   */
  'leaseSeconds': (number);
}
