// Original file: pincer/v1/system.proto

import type { Size as _pincer_v1_Size, Size__Output as _pincer_v1_Size__Output } from '../../pincer/v1/Size.js';
import type { Drivers as _pincer_v1_Drivers, Drivers__Output as _pincer_v1_Drivers__Output } from '../../pincer/v1/Drivers.js';

export interface GetInfoResponse {
  'hostname'?: (string);
  /**
   * Node's os.platform(): "linux", "darwin", "win32".
   */
  'os'?: (string);
  /**
   * Kernel release, e.g. "6.1.0-18-amd64".
   */
  'osRelease'?: (string);
  /**
   * Node's os.arch(): "x64", "arm64".
   */
  'arch'?: (string);
  'daemonVersion'?: (string);
  /**
   * Wire protocol version: "pincer.v1".
   */
  'protocolVersion'?: (string);
  'nodeVersion'?: (string);
  /**
   * The X display the daemon drives (":1"), empty when there is none.
   */
  'display'?: (string);
  /**
   * Size of the screen; unset when no display is usable.
   */
  'screen'?: (_pincer_v1_Size | null);
  /**
   * What this daemon supports here, e.g. "input.mouse", "input.keyboard",
   * "input.unicode", "screen.capture", "screen.webp".
   */
  'capabilities'?: (string)[];
  /**
   * Why a capability is missing, e.g. "input: cannot open display :9".
   */
  'warnings'?: (string)[];
  /**
   * Seconds since the daemon started.
   */
  'uptimeSeconds'?: (number | string);
  /**
   * The drivers that do the daemon's work (`pincer-daemon --drivers`).
   */
  'drivers'?: (_pincer_v1_Drivers | null);
}

export interface GetInfoResponse__Output {
  'hostname': (string);
  /**
   * Node's os.platform(): "linux", "darwin", "win32".
   */
  'os': (string);
  /**
   * Kernel release, e.g. "6.1.0-18-amd64".
   */
  'osRelease': (string);
  /**
   * Node's os.arch(): "x64", "arm64".
   */
  'arch': (string);
  'daemonVersion': (string);
  /**
   * Wire protocol version: "pincer.v1".
   */
  'protocolVersion': (string);
  'nodeVersion': (string);
  /**
   * The X display the daemon drives (":1"), empty when there is none.
   */
  'display': (string);
  /**
   * Size of the screen; unset when no display is usable.
   */
  'screen': (_pincer_v1_Size__Output | null);
  /**
   * What this daemon supports here, e.g. "input.mouse", "input.keyboard",
   * "input.unicode", "screen.capture", "screen.webp".
   */
  'capabilities': (string)[];
  /**
   * Why a capability is missing, e.g. "input: cannot open display :9".
   */
  'warnings': (string)[];
  /**
   * Seconds since the daemon started.
   */
  'uptimeSeconds': (number);
  /**
   * The drivers that do the daemon's work (`pincer-daemon --drivers`).
   */
  'drivers': (_pincer_v1_Drivers__Output | null);
}
