// Original file: pincer/v1/system.proto


export interface GetClipboardResponse {
  'text'?: (string);
}

export interface GetClipboardResponse__Output {
  'text': (string);
}
