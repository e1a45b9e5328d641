// Original file: pincer/v1/files.proto

import type { FileType as _pincer_v1_FileType, FileType__Output as _pincer_v1_FileType__Output } from '../../pincer/v1/FileType.js';
import type { Long } from '@grpc/proto-loader';

/**
 * The file's information: the fields of FileInfo.
 */
export interface StatResponse {
  'path'?: (string);
  'name'?: (string);
  /**
   * Named file_type, not type (a keyword in Go); the field number is that of v1's first release.
   */
  'fileType'?: (_pincer_v1_FileType);
  'size'?: (number | string | Long);
  /**
   * Permission bits, e.g. 0o644 = 420.
   */
  'mode'?: (number);
  'modifiedMs'?: (number | string | Long);
  /**
   * Where a symlink points.
   */
  'symlinkTarget'?: (string);
}

/**
 * The file's information: the fields of FileInfo.
 */
export interface StatResponse__Output {
  'path': (string);
  'name': (string);
  /**
   * Named file_type, not type (a keyword in Go); the field number is that of v1's first release.
   */
  'fileType': (_pincer_v1_FileType__Output);
  'size': (number);
  /**
   * Permission bits, e.g. 0o644 = 420.
   */
  'mode': (number);
  'modifiedMs': (number);
  /**
   * Where a symlink points.
   */
  'symlinkTarget': (string);
}
