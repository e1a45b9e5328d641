// Original file: pincer/v1/input.proto


export interface KeyUpRequest {
  'key'?: (string);
}

export interface KeyUpRequest__Output {
  'key': (string);
}
