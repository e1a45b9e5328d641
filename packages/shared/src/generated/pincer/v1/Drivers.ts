// Original file: pincer/v1/system.proto


/**
 * Which implementation does each job of a daemon.
 */
export interface Drivers {
  /**
   * The driver set: "native" (XTEST, MIT-SHM and the native spawner on X11) or "portable"
   * (nut-js, sharp and execa).
   */
  'set'?: (string);
  /**
   * Mouse and keyboard: "xtest" or "nut-js".
   */
  'input'?: (string);
  /**
   * Screen capture: "mit-shm", "getimage", "screenshot-desktop" or "nut-js".
   */
  'screen'?: (string);
  /**
   * Window list, focus and close: "x11" or "nut-js".
   */
  'windows'?: (string);
  /**
   * Clipboard text: "x11" or "nut-js".
   */
  'clipboard'?: (string);
  /**
   * Commands: "pincer-spawner", "node-spawner" or "execa".
   */
  'processes'?: (string);
}

/**
 * Which implementation does each job of a daemon.
 */
export interface Drivers__Output {
  /**
   * The driver set: "native" (XTEST, MIT-SHM and the native spawner on X11) or "portable"
   * (nut-js, sharp and execa).
   */
  'set': (string);
  /**
   * Mouse and keyboard: "xtest" or "nut-js".
   */
  'input': (string);
  /**
   * Screen capture: "mit-shm", "getimage", "screenshot-desktop" or "nut-js".
   */
  'screen': (string);
  /**
   * Window list, focus and close: "x11" or "nut-js".
   */
  'windows': (string);
  /**
   * Clipboard text: "x11" or "nut-js".
   */
  'clipboard': (string);
  /**
   * Commands: "pincer-spawner", "node-spawner" or "execa".
   */
  'processes': (string);
}
