// Original file: pincer/v1/episodes.proto


export interface ListTasksRequest {
  /**
   * Only tasks whose id, instruction or tags contain this (case-insensitive); all when empty.
   */
  'filter'?: (string);
}

export interface ListTasksRequest__Output {
  /**
   * Only tasks whose id, instruction or tags contain this (case-insensitive); all when empty.
   */
  'filter': (string);
}
