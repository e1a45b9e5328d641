// Original file: pincer/v1/system.proto


export interface SetClipboardRequest {
  'text'?: (string);
}

export interface SetClipboardRequest__Output {
  'text': (string);
}
