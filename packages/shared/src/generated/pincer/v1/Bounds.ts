// Original file: pincer/v1/accessibility.proto


/**
 * A rectangle in screen pixels; x and y may be negative for objects partly off screen.
 */
export interface Bounds {
  'x'?: (number);
  'y'?: (number);
  'width'?: (number);
  'height'?: (number);
}

/**
 * A rectangle in screen pixels; x and y may be negative for objects partly off screen.
 */
export interface Bounds__Output {
  'x': (number);
  'y': (number);
  'width': (number);
  'height': (number);
}
