import type { SettleRecord } from "../benchmark/screenObservation.js";
import type { Screenshot } from "../env/index.js";

/** A model turn's usage as the trajectory's assistant message records it. */
export interface TurnUsageRecord {
  input_tokens: number;
  output_tokens: number;
  requests: number;
  failed_requests?: number;
  retries?: number;
  cost_usd?: number;
}

/**
 * Where a saved screenshot's pixels lie on the screen: image size, the screen region it shows, the
 * scale (image width / region width), the whole screen's size and the pointer when it was taken.
 * A screen point (x, y) is at image pixel ((x - source.x) * scale, (y - source.y) * scale).
 */
export interface ScreenshotGeometry {
  width: number;
  height: number;
  scale: number;
  source: { x: number; y: number; width: number; height: number };
  screen: { width: number; height: number };
  cursor: { x: number; y: number };
}

/** The geometry of each environment's screenshot, for the trajectory. */
export function screenshotGeometry(shots: Readonly<Record<string, Screenshot>>): Record<string, ScreenshotGeometry> {
  return Object.fromEntries(
    Object.entries(shots).map(([name, s]) => [
      name,
      {
        width: s.width,
        height: s.height,
        scale: s.scale,
        source: { x: s.source.x, y: s.source.y, width: s.source.width, height: s.source.height },
        screen: { width: s.screen.width, height: s.screen.height },
        cursor: { x: s.cursor.x, y: s.cursor.y },
      },
    ]),
  );
}

/** What the agent saw before a turn: its screenshot files (paths in the attempt folder) and their geometry. */
export interface TurnScreens {
  screenshots: Record<string, string>;
  screenshot_geometry: Record<string, ScreenshotGeometry>;
  /** Per environment, the wait for its screen to settle before the screenshot, when the run waits. */
  settle?: Record<string, SettleRecord>;
  /** Per environment, the file holding the accessibility tree sent with the screenshots, when the run sends it. */
  accessibility?: Record<string, string>;
}

/** What the model gave for a turn, recorded on the turn's first trajectory line. */
export interface TurnModelRecord {
  /** The model's text besides its tool calls. */
  message?: string;
  model_ms: number;
  usage?: TurnUsageRecord;
}

/**
 * One line of trajectory.jsonl. Every line has the turn and what the agent saw before it
 * (`screenshots`, `screenshot_geometry`); then one of:
 * - a step: `step`, `tool`, `args`, `ok`, `result` or `error`, `evaluation` (the evaluator graph's
 *   state after the step), `reason` (why the episode ended, or null), `duration_ms`, `at_ms`; the
 *   turn's first step also carries its {@link TurnModelRecord};
 * - `done: true`: the agent said it was done (with `evaluation`, `at_ms` and the turn's model record);
 * - `agent_error`: the agent failed (with `at_ms`);
 * - `final: true`: the screens once the episode ended, after its last evaluation and once they
 *   settled (with the wait's `settle`; the turn is one past the last).
 */
export interface TrajectoryLine extends Partial<TurnScreens>, Partial<TurnModelRecord> {
  turn: number;
  step?: number;
  tool?: string;
  args?: Record<string, unknown>;
  ok?: boolean;
  result?: unknown;
  error?: { type?: string; message?: string } & Record<string, unknown>;
  /** The evaluator graph's state after the step: each node's status, the score and why (`reason`). */
  evaluation?: { nodes?: Record<string, string>; completionRatio?: number; score?: number; reason?: string; success?: boolean; errors?: unknown[] };
  reason?: string | null;
  duration_ms?: number;
  /**
   * When the step's action began (on a `done` or `agent_error` line: when the agent said so), in
   * milliseconds since the agent's part of the attempt began. `pincer replay` keeps these times.
   * Absent in runs written before Pincer recorded it.
   */
  at_ms?: number;
  done?: boolean;
  agent_error?: string;
  final?: boolean;
}
