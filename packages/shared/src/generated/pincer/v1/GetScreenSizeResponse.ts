// Original file: pincer/v1/screen.proto


export interface GetScreenSizeResponse {
  'width'?: (number);
  'height'?: (number);
}

export interface GetScreenSizeResponse__Output {
  'width': (number);
  'height': (number);
}
