// Original file: pincer/v1/system.proto


export interface FocusWindowRequest {
  'id'?: (number);
}

export interface FocusWindowRequest__Output {
  'id': (number);
}
