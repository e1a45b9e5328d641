// Original file: pincer/v1/episodes.proto

/**
 * Which form of the accessibility tree an observation carries.
 */
export const AccessibilityForm = {
  /**
   * No accessibility tree.
   */
  ACCESSIBILITY_FORM_UNSPECIFIED: 'ACCESSIBILITY_FORM_UNSPECIFIED',
  /**
   * No accessibility tree (same as unspecified).
   */
  ACCESSIBILITY_FORM_NONE: 'ACCESSIBILITY_FORM_NONE',
  /**
   * Pincer's text form: what the attempt's observation gives an agent.
   */
  ACCESSIBILITY_FORM_TEXT: 'ACCESSIBILITY_FORM_TEXT',
  /**
   * OSWorld's XML form of the AT-SPI tree.
   */
  ACCESSIBILITY_FORM_OSWORLD_XML: 'ACCESSIBILITY_FORM_OSWORLD_XML',
} as const;

/**
 * Which form of the accessibility tree an observation carries.
 */
export type AccessibilityForm =
  /**
   * No accessibility tree.
   */
  | 'ACCESSIBILITY_FORM_UNSPECIFIED'
  | 0
  /**
   * No accessibility tree (same as unspecified).
   */
  | 'ACCESSIBILITY_FORM_NONE'
  | 1
  /**
   * Pincer's text form: what the attempt's observation gives an agent.
   */
  | 'ACCESSIBILITY_FORM_TEXT'
  | 2
  /**
   * OSWorld's XML form of the AT-SPI tree.
   */
  | 'ACCESSIBILITY_FORM_OSWORLD_XML'
  | 3

/**
 * Which form of the accessibility tree an observation carries.
 */
export type AccessibilityForm__Output = typeof AccessibilityForm[keyof typeof AccessibilityForm]
