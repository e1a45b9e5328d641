// Original file: pincer/v1/input.proto


export interface KeyDownRequest {
  'key'?: (string);
}

export interface KeyDownRequest__Output {
  'key': (string);
}
