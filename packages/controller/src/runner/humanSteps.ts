import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { IMAGE_FORMATS } from "@pincer/shared";
import { createDesktopActions } from "../actions/desktop.js";
import type { Env } from "../env/index.js";
import type { ResultStore } from "../runFolder/results.js";
import { screenshotGeometry } from "../runFolder/trajectory.js";
import type { HumanCall, HumanStep } from "./liveBoard.js";

/** The desktop actions a person's input runs as, in screen pixels (what a recorded solution names). */
const PERSON_ACTIONS = createDesktopActions();

/** How long the screen may keep changing after a person's action before the screenshot is taken anyway. */
const HUMAN_SETTLE_MAX_MS = 10_000;

/** Where a person's step is recorded: the attempt's folder and trajectory, and its clock. */
export interface HumanStepContext {
  envs: Readonly<Record<string, Env>>;
  dir: string;
  store: ResultStore;
  signal: AbortSignal;
  /** The turn the person acts after (0: before the agent's first). */
  turn: number;
  /** The person's steps so far in the attempt (the file names count them). */
  index: number;
  /** Milliseconds since the agent's part began, for the line's `at_ms`. */
  atMs(): number;
  /** Also save the machine's accessibility tree (linearised) after each action (`--a11y`; a demonstration's training data). */
  accessibility?: boolean;
}

/**
 * Runs a person's action on a machine of the attempt (outside the episode's steps: it is not the
 * agent's and counts toward none of its limits), waits for the screen to settle, and records it in
 * trajectory.jsonl as a `human` line with the screenshot taken after it.
 */
export async function runHumanStep(ctx: HumanStepContext, call: HumanCall): Promise<HumanStep> {
  const tool = `${call.env}__${call.action}`;
  const env = ctx.envs[call.env];
  const startedAt = Date.now();
  const at = ctx.atMs();
  const action = PERSON_ACTIONS[call.action];
  let error: string | undefined;
  if (!env) error = `no environment ${JSON.stringify(call.env)}`;
  else {
    const r = await action.safeCall(call.args, { env, signal: ctx.signal });
    if (!r.ok) error = r.error.message;
  }
  ctx.signal.throwIfAborted();
  const settle =
    env && !error ? await env.screen.waitForSettle({ quietMs: 300, maxMs: HUMAN_SETTLE_MAX_MS, signal: ctx.signal }).catch(() => undefined) : undefined;
  const endedAt = Date.now();
  const step: HumanStep = {
    tool,
    args: call.args,
    ok: error === undefined,
    ...(error !== undefined ? { error } : {}),
    startedAt,
    endedAt,
    ...(settle ? { settledMs: settle.lastChangeMs } : {}),
  };
  const seen = env ? await screenAfter(ctx, env, call.env).catch(() => undefined) : undefined;
  await ctx.store.appendTrajectory(ctx.dir, {
    turn: ctx.turn,
    human: true,
    tool,
    args: call.args,
    ok: step.ok,
    ...(error !== undefined ? { error: { message: error } } : {}),
    duration_ms: endedAt - startedAt,
    at_ms: at,
    ...(settle ? { settled_ms: settle.lastChangeMs } : {}),
    ...(seen ?? {}),
  });
  return step;
}

/**
 * The screen after a person's step, saved as `screenshots/human-NNN-<env>.jpg`, and its geometry;
 * with `accessibility`, the linearised tree too (`human-NNN-<env>.a11y.txt`).
 */
async function screenAfter(ctx: HumanStepContext, env: Env, name: string) {
  const prefix = join("screenshots", `human-${String(ctx.index + 1).padStart(3, "0")}-${name}`);
  const shot = await env.screen.screenshot({ format: "jpeg", quality: 80, signal: ctx.signal });
  await writeFile(join(ctx.dir, `${prefix}.${IMAGE_FORMATS.jpeg.extension}`), shot.data);
  const seen = { screenshots: { [name]: `${prefix}.${IMAGE_FORMATS.jpeg.extension}` }, screenshot_geometry: screenshotGeometry({ [name]: shot }) };
  if (!ctx.accessibility) return seen;
  const tree = await env.accessibility.tree({ linearized: true, signal: ctx.signal }).then(
    (t) => t.linearized ?? "",
    (err: unknown) => `(accessibility tree unavailable: ${(err as Error).message})`,
  );
  await writeFile(join(ctx.dir, `${prefix}.a11y.txt`), tree);
  return { ...seen, accessibility: { [name]: `${prefix}.a11y.txt` } };
}
