// Original file: pincer/v1/input.proto


export interface KeyUpResponse {
  'heldKeys'?: (string)[];
}

export interface KeyUpResponse__Output {
  'heldKeys': (string)[];
}
