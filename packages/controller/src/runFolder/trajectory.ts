import type { SettleRecord } from "../benchmark/screenObservation.js";
import type { Screenshot } from "../env/index.js";
import type { ScreenshotGeometry } from "./schemas.js";

/**
 * One line of trajectory.jsonl (its schema is in schemas.ts): the turn and what the agent saw
 * before it (`screenshots`, `screenshot_geometry`); then one of a step (`step`, `tool`, `args`,
 * `ok`, `result` or `error`, `evaluation`, `reason`, `duration_ms`, `at_ms`; the turn's first step
 * also carries its {@link TurnModelRecord}), `done: true`, `agent_error`, or `final: true` (the
 * screens once the episode ended). A screen point (x, y) is at image pixel
 * ((x - source.x) * scale, (y - source.y) * scale) of a screenshot with that geometry.
 */
export type { ScreenshotGeometry, TrajectoryLine } from "./schemas.js";

/** A model turn's usage as the trajectory's assistant message records it. */
export interface TurnUsageRecord {
  input_tokens: number;
  output_tokens: number;
  requests: number;
  failed_requests?: number;
  retries?: number;
  cost_usd?: number;
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
