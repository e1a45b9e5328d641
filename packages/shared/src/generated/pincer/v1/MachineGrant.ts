// Original file: pincer/v1/episodes.proto


/**
 * Access to one machine of an episode: call the daemon's services (Input, Screen, Files, Process,
 * System, Accessibility) at `address` with `authorization: Bearer <token>`, and the server
 * forwards each call to that machine's daemon.
 */
export interface MachineGrant {
  /**
   * The environment's name ("desktop").
   */
  'environment'?: (string);
  /**
   * The server's own address, as it listens (a client that reached the server at another address,
   * past a wildcard listen or a proxy, uses that one).
   */
  'address'?: (string);
  /**
   * The grant's token: valid until the episode closes (by the client, by its lease, or by the
   * server's shutdown); then calls with it are UNAUTHENTICATED.
   */
  'token'?: (string);
}

/**
 * Access to one machine of an episode: call the daemon's services (Input, Screen, Files, Process,
 * System, Accessibility) at `address` with `authorization: Bearer <token>`, and the server
 * forwards each call to that machine's daemon.
 */
export interface MachineGrant__Output {
  /**
   * The environment's name ("desktop").
   */
  'environment': (string);
  /**
   * The server's own address, as it listens (a client that reached the server at another address,
   * past a wildcard listen or a proxy, uses that one).
   */
  'address': (string);
  /**
   * The grant's token: valid until the episode closes (by the client, by its lease, or by the
   * server's shutdown); then calls with it are UNAUTHENTICATED.
   */
  'token': (string);
}
