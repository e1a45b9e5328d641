// Original file: pincer/v1/input.proto


export interface KeyDownResponse {
  'heldKeys'?: (string)[];
}

export interface KeyDownResponse__Output {
  'heldKeys': (string)[];
}
