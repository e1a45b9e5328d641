// Original file: pincer/v1/files.proto


export interface FilesMoveRequest {
  /**
   * Named source and destination, not from and to (from is a keyword in Python); the field
   * numbers are those of v1's first release.
   */
  'source'?: (string);
  'destination'?: (string);
  'overwrite'?: (boolean);
}

export interface FilesMoveRequest__Output {
  /**
   * Named source and destination, not from and to (from is a keyword in Python); the field
   * numbers are those of v1's first release.
   */
  'source': (string);
  'destination': (string);
  'overwrite': (boolean);
}
