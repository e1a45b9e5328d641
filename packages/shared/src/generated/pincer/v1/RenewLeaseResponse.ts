// Original file: pincer/v1/episodes.proto


export interface RenewLeaseResponse {
  /**
   * The lease granted, in seconds from now.
   */
  'leaseSeconds'?: (number);
}

export interface RenewLeaseResponse__Output {
  /**
   * The lease granted, in seconds from now.
   */
  'leaseSeconds': (number);
}
