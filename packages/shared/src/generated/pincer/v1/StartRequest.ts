// Original file: pincer/v1/process.proto


/**
 * The same fields as RunRequest.
 */
export interface StartRequest {
  /**
   * Program and arguments, run without a shell. Set exactly one of argv and shell.
   */
  'argv'?: (string)[];
  /**
   * A command line for /bin/sh -c.
   */
  'shell'?: (string);
  /**
   * Working directory (absolute); empty means the daemon's home directory.
   */
  'cwd'?: (string);
  /**
   * Added to (and overriding) the daemon's environment.
   */
  'env'?: ({[key: string]: string});
  'stdin'?: (Buffer | Uint8Array | string);
  /**
   * Kill the command after this long; 0 means 10 minutes.
   */
  'timeoutMs'?: (number);
  /**
   * Bytes kept of each of stdout and stderr (the rest is read and dropped); 0 means 16 MiB, the
   * daemon allows up to --max-output-bytes (32 MiB by default). A reply can so reach twice that:
   * more than the 4 MiB most gRPC clients accept by default. Raise the client's receive limit
   * (grpc.max_receive_message_length; Pincer's controller allows 80 MiB), set a smaller value here,
   * or use Start, which streams the output in chunks.
   */
  'maxOutputBytes'?: (number);
}

/**
 * The same fields as RunRequest.
 */
export interface StartRequest__Output {
  /**
   * Program and arguments, run without a shell. Set exactly one of argv and shell.
   */
  'argv': (string)[];
  /**
   * A command line for /bin/sh -c.
   */
  'shell': (string);
  /**
   * Working directory (absolute); empty means the daemon's home directory.
   */
  'cwd': (string);
  /**
   * Added to (and overriding) the daemon's environment.
   */
  'env': ({[key: string]: string});
  'stdin': (Buffer);
  /**
   * Kill the command after this long; 0 means 10 minutes.
   */
  'timeoutMs': (number);
  /**
   * Bytes kept of each of stdout and stderr (the rest is read and dropped); 0 means 16 MiB, the
   * daemon allows up to --max-output-bytes (32 MiB by default). A reply can so reach twice that:
   * more than the 4 MiB most gRPC clients accept by default. Raise the client's receive limit
   * (grpc.max_receive_message_length; Pincer's controller allows 80 MiB), set a smaller value here,
   * or use Start, which streams the output in chunks.
   */
  'maxOutputBytes': (number);
}
