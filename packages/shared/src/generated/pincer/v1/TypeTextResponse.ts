// Original file: pincer/v1/input.proto


export interface TypeTextResponse {
  'heldKeys'?: (string)[];
}

export interface TypeTextResponse__Output {
  'heldKeys': (string)[];
}
