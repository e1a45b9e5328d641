// Original file: pincer/v1/input.proto


export interface PressKeysResponse {
  'heldKeys'?: (string)[];
}

export interface PressKeysResponse__Output {
  'heldKeys': (string)[];
}
