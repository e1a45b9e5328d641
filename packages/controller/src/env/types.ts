/** Options every `env` call takes. */
export interface CallOptions {
  /** Aborts the call; the daemon stops the work it started for it. */
  signal?: AbortSignal;
  /** Deadline for this call in milliseconds. @default the environment's `defaultTimeoutMs` (30_000) */
  timeoutMs?: number;
  /**
   * While the connection is down, wait (until the deadline) for it to come back instead of failing
   * at once with UnavailableError. @default false
   */
  waitForReady?: boolean;
}

/** A mouse button. */
export type MouseButton = "left" | "right" | "middle";

/** A pixel position on the screen: origin top-left, x right, y down. */
export interface Point {
  x: number;
  y: number;
}

/** A size in pixels. */
export interface Size {
  width: number;
  height: number;
}

/** A rectangle of the screen in pixels: its top-left corner and its size. */
export interface Region extends Point, Size {}
