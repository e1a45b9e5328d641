// Original file: pincer/v1/episodes.proto

import type { Long } from '@grpc/proto-loader';

export interface EndRecordingResponse {
  /**
   * The next bytes of the video, at most 1 MiB.
   */
  'chunk'?: (Buffer | Uint8Array | string);
  /**
   * The video's media type, "video/mp4"; set on the first message only.
   */
  'mimeType'?: (string);
  /**
   * The video's whole size in bytes; set on the first message only.
   */
  'size'?: (number | string | Long);
  /**
   * The environment whose video this is (its file in the attempt folder is
   * recording-<environment>.mp4); set on the first message only.
   */
  'environment'?: (string);
}

export interface EndRecordingResponse__Output {
  /**
   * The next bytes of the video, at most 1 MiB.
   */
  'chunk': (Buffer);
  /**
   * The video's media type, "video/mp4"; set on the first message only.
   */
  'mimeType': (string);
  /**
   * The video's whole size in bytes; set on the first message only.
   */
  'size': (number);
  /**
   * The environment whose video this is (its file in the attempt folder is
   * recording-<environment>.mp4); set on the first message only.
   */
  'environment': (string);
}
