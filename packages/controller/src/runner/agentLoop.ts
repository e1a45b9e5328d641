import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { toErrorInfo } from "../actions/errors.js";
import { TimeoutError } from "@pincer/shared";
import { ModelRequestError } from "../agents/modelCall.js";
import type { Agent, AgentObservation, AgentTurn } from "../agents/types.js";
import type { Benchmark } from "../benchmark/benchmark.js";
import { classifyFailure } from "../benchmark/failures.js";
import type { StepResult } from "../benchmark/types.js";
import type { Screenshot } from "../env/index.js";
import { SCREEN_OBSERVATION, type ScreenObservation, type SettleRecord } from "../benchmark/screenObservation.js";
import { settleObservedScreens } from "./finalScreen.js";
import type { ResultStore } from "../runFolder/results.js";
import { screenshotGeometry, type TurnModelRecord, type TurnScreens } from "../runFolder/trajectory.js";
import { turnTokens, turnUsageRecord, type AttemptUsage } from "./usage.js";

/**
 * What the agent loop works with. What the agent sees is what `bench.observe()` returns: each
 * environment's screen observation (see screenObservation.ts), when the benchmark's environments
 * have one (the runner gives them one when the agent looks or screenshots are saved).
 */
export interface AgentLoopInput {
  bench: Benchmark;
  agent: Agent;
  /** The attempt's folder: trajectory.jsonl and screenshots/. */
  dir: string;
  store: ResultStore;
  /** Receives the agent's turns and the tool results. */
  messages: unknown[];
  usage: AttemptUsage;
  signal: AbortSignal;
}

/** The loop's input and `performance.now()` when the agent's part began: lines carry `at_ms` from it. */
type LoopRun = AgentLoopInput & { startedAt: number };

/** Milliseconds since the agent's part began, for a trajectory line's `at_ms`. */
const sinceStart = (run: LoopRun, t = performance.now()) => Math.round(t - run.startedAt);

interface Observation {
  screenshots: Record<string, Screenshot>;
  settle: Record<string, SettleRecord>;
  /** Environment → the linearised accessibility tree, when the observation reads it. */
  accessibility?: Record<string, string>;
}

/** An observation as saved: `files` and `treeFiles` are paths in the attempt folder. */
type Observed = Observation & { files: Record<string, string>; treeFiles?: Record<string, string> };

/** The benchmark's observation of every environment's screen, regrouped by what it holds. */
async function observeScreens(bench: Benchmark, signal: AbortSignal): Promise<Observation> {
  const { environments } = await bench.observe({ signal });
  const out: Observation = { screenshots: {}, settle: {} };
  for (const [name, values] of Object.entries(environments)) {
    const screen = values[SCREEN_OBSERVATION] as ScreenObservation | undefined;
    if (!screen) continue;
    if (screen.screenshot) out.screenshots[name] = screen.screenshot;
    if (screen.settle) out.settle[name] = screen.settle;
    if (screen.accessibility !== undefined) out.accessibility = { ...out.accessibility, [name]: screen.accessibility };
  }
  return out;
}

/** Observes (when the benchmark's environments have a screen observation) and saves; `files` are paths in the attempt folder. */
async function observe(input: AgentLoopInput, turn: number): Promise<Observed> {
  const seen = await observeScreens(input.bench, input.signal);
  const prefix = join("screenshots", `turn-${String(turn).padStart(3, "0")}`);
  const files: Record<string, string> = {};
  for (const [name, shot] of Object.entries(seen.screenshots)) {
    files[name] = `${prefix}-${name}.${shot.format === "png" ? "png" : "jpg"}`;
    await writeFile(join(input.dir, files[name]), shot.data);
  }
  if (!seen.accessibility) return { ...seen, files };
  const treeFiles: Record<string, string> = {};
  for (const [name, text] of Object.entries(seen.accessibility)) {
    treeFiles[name] = `${prefix}-${name}.a11y.txt`;
    await writeFile(join(input.dir, treeFiles[name]), text);
  }
  return { ...seen, files, treeFiles };
}

/** The trajectory's record of an observation. */
function seenIn(o: Observed): TurnScreens {
  const seen: TurnScreens = { screenshots: o.files, screenshot_geometry: screenshotGeometry(o.screenshots) };
  return {
    ...seen,
    ...(Object.keys(o.settle).length > 0 ? { settle: o.settle } : {}),
    ...(o.treeFiles ? { accessibility: o.treeFiles } : {}),
  };
}

/** Keeps results readable in trajectories: binary data (screenshots) becomes its size. */
function summarizeResult(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return `<${value.length} bytes>`;
  if (value && typeof value === "object" && !Array.isArray(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, Buffer.isBuffer(v) ? `<${v.length} bytes>` : v]));
  }
  return value;
}

/** The agent said it is done: a final evaluation decides between success and a plain agent_complete. */
async function finishByAgent(input: LoopRun, turn: number, seen: TurnScreens, model: TurnModelRecord, tokens: number): Promise<void> {
  const { bench, signal } = input;
  if (tokens > 0) bench.addTokens(tokens);
  const e0 = performance.now();
  const at = sinceStart(input, e0);
  const evaluation = await bench.evaluate({ signal });
  input.usage.addEnvTime(performance.now() - e0);
  if (!bench.state().ended) bench.end("agent_complete");
  // The graph's state after this last evaluation (its nodes, as a step's line has them).
  await input.store.appendTrajectory(input.dir, { turn, ...seen, ...model, done: true, at_ms: at, evaluation });
}

const EXTENSIONS: Record<string, string> = { "image/png": "png", "image/jpeg": "jpg", "image/webp": "webp" };

/**
 * A step's result for the trajectory and summary: a screenshot it returned is written once as a
 * file of the attempt (`screenshots/step-NNN-<env>.<ext>`) and named by its path; other binary
 * values become their size.
 */
async function recordResult(input: AgentLoopInput, r: StepResult & { ok: true }): Promise<unknown> {
  const v = r.result as Partial<Screenshot> | undefined;
  const ext = v && Buffer.isBuffer(v.data) && typeof v.mimeType === "string" ? EXTENSIONS[v.mimeType] : undefined;
  if (!ext) return summarizeResult(r.result);
  const env = r.tool.split("__")[0] ?? "env";
  const file = join("screenshots", `step-${String(r.step).padStart(3, "0")}-${env}.${ext}`);
  await writeFile(join(input.dir, file), v!.data!);
  const { data: _data, ...rest } = v!;
  return { ...(summarizeResult(rest) as object), file };
}

/**
 * Runs the turn's calls in order until one ends the episode; the first carries the turn's tokens.
 * `onLastActed` runs when the turn's last action has finished, while its step is being evaluated.
 */
async function runCalls(
  input: LoopRun,
  turn: number,
  seen: TurnScreens,
  { turn: agentTurn, model }: { turn: AgentTurn; model: TurnModelRecord },
  onLastActed: () => void,
): Promise<StepResult[]> {
  const results: StepResult[] = [];
  const tokens = turnTokens(agentTurn.usage);
  for (const [i, call] of agentTurn.calls.entries()) {
    const e0 = performance.now();
    const last = i === agentTurn.calls.length - 1;
    const r = await input.bench.step({ ...call, tokens: i === 0 ? tokens : 0 }, { signal: input.signal, ...(last ? { onActed: onLastActed } : {}) });
    input.usage.addEnvTime(performance.now() - e0);
    results.push(r);
    const recorded = r.ok ? await recordResult(input, r) : undefined;
    input.messages.push({ role: "tool", tool: r.tool, ok: r.ok, content: r.ok ? recorded : r.error });
    await input.store.appendTrajectory(input.dir, {
      turn,
      step: r.step,
      tool: r.tool,
      args: "args" in call ? (call.args ?? {}) : {},
      ok: r.ok,
      ...(r.ok ? { result: recorded } : { error: r.error }),
      evaluation: r.evaluation,
      reason: r.reason,
      duration_ms: Math.round(r.durationMs),
      at_ms: sinceStart(input, e0),
      ...seen,
      ...(i === 0 ? model : {}),
    });
    if (r.reason) break;
  }
  return results;
}

/** How long an agent whose signal fired may take to return before the loop stops waiting for it. */
const AGENT_GRACE_MS = 2_000;

/**
 * The task's time limit over the agent's turn: the agent's signal fires when it passes (its model
 * requests are aborted), and the loop stops waiting for an agent that does not listen.
 */
function agentTimeLimit(input: LoopRun) {
  const { timeLimitMs, elapsedMs } = input.bench.state();
  const timer = new AbortController();
  const left = Math.max(0, timeLimitMs - elapsedMs);
  // Past 2^31 - 1 ms a timer fires at once; such a limit is no limit.
  const handle = left < 2 ** 31 - 1 ? setTimeout(() => timer.abort(new TimeoutError("the task's time limit ran out")), left) : undefined;
  const signal = AbortSignal.any([input.signal, timer.signal]);
  return {
    signal,
    seconds: Math.round(timeLimitMs / 100) / 10,
    expired: () => timer.signal.aborted && !input.signal.aborted,
    async bound<T>(work: Promise<T>): Promise<T> {
      // An agent that listens ends with its own error (naming its model's URL) at once; one that does
      // not is left behind after a grace period.
      let grace: NodeJS.Timeout | undefined;
      const stopped = new Promise<never>((_, reject) => {
        const later = () => (grace = setTimeout(() => reject(signal.reason), AGENT_GRACE_MS));
        if (signal.aborted) later();
        else signal.addEventListener("abort", later, { once: true });
      });
      stopped.catch(() => undefined);
      try {
        return await Promise.race([work, stopped]);
      } finally {
        clearTimeout(handle);
        clearTimeout(grace);
        work.catch(() => undefined);
      }
    },
  };
}

/** Asks the agent for its turn; a failure of the agent ends the episode with agent_error and gives its message. */
async function act(
  input: LoopRun,
  turn: number,
  seen: TurnScreens,
  observation: AgentObservation,
): Promise<{ turn: AgentTurn; model: TurnModelRecord } | { error: string }> {
  const m0 = performance.now();
  let agentTurn: AgentTurn;
  const limit = agentTimeLimit(input);
  try {
    agentTurn = await limit.bound(input.agent.act({ ...observation, signal: limit.signal }));
  } catch (err) {
    input.usage.addTurn(err instanceof ModelRequestError ? err.usage : undefined, performance.now() - m0);
    const failure = limit.expired()
      ? new TimeoutError(`the task's time limit of ${limit.seconds} s ran out while the agent was thinking: ${(err as Error).message}`)
      : err;
    input.bench.end("agent_error", failure);
    const error = `agent: ${(failure as Error).message}`;
    await input.store.appendTrajectory(input.dir, { turn, ...seen, agent_error: error, at_ms: sinceStart(input) });
    return { error };
  }
  const modelMs = performance.now() - m0;
  input.usage.addTurn(agentTurn.usage, modelMs);
  const usage = turnUsageRecord(agentTurn.usage);
  input.messages.push({
    role: "assistant",
    content: agentTurn.message ?? "",
    tool_calls: agentTurn.calls,
    done: agentTurn.done ?? false,
    model_ms: Math.round(modelMs),
    ...(usage ? { usage } : {}),
  });
  const model = { ...(agentTurn.message ? { message: agentTurn.message } : {}), model_ms: Math.round(modelMs), ...(usage ? { usage } : {}) };
  return { turn: agentTurn, model };
}

/**
 * Records the screen once the episode ended, after its last evaluation (a check may wait for a
 * window well past the action) and once the screen settled (finalScreen.ts waits when the run's
 * observation does not), as the trajectory's `final` line. Recorded after a step that ended the
 * episode, and after the agent's "done" when the screen it saw last was taken without a wait.
 */
async function recordFinalScreen(input: LoopRun, turn: number, endedByStep: boolean, last: Observed | undefined): Promise<void> {
  if (!last || Object.keys(last.files).length === 0) return;
  const settles = Object.keys(last.settle).length > 0;
  if (!endedByStep && settles) return;
  const waited = settles ? {} : await settleObservedScreens(input.bench, input.signal);
  const final = await observe(input, turn);
  if (Object.keys(final.files).length === 0) return;
  await input.store.appendTrajectory(input.dir, { turn, ...seenIn({ ...final, settle: { ...waited, ...final.settle } }), final: true });
}

/**
 * The agent's part of an attempt: observe (screenshots, saved) → act → step, turn by turn, until the
 * episode ends; writes each step to the trajectory. Returns the error that ended it, if any: the
 * agent's own failure is agent_error; anything else thrown here is classified (a machine that
 * failed is env_error). Cancellation (the signal fired) throws.
 */
export async function runAgentLoop(loopInput: AgentLoopInput): Promise<string | null> {
  const input: LoopRun = { ...loopInput, startedAt: performance.now() };
  const { bench, signal } = input;
  let lastResults: StepResult[] = [];
  let turn = 0;
  // The next turn's observation, started as soon as the last action finished: its screenshots
  // share a round trip with the step's evaluation instead of following it.
  let next: ReturnType<typeof observe> | undefined;
  let lastObserved: Observed | undefined;
  try {
    while (!bench.state().ended) {
      signal.throwIfAborted();
      turn += 1;
      const observed = await (next ?? observe(input, turn));
      lastObserved = observed;
      const { screenshots } = observed;
      next = undefined;
      const seen = seenIn(observed);
      const { accessibility } = observed;
      const obs = { step: bench.state().step, screenshots, lastResults, signal, ...(accessibility ? { accessibility } : {}) };
      const acted = await act(input, turn, seen, obs);
      if ("error" in acted) return acted.error;
      lastResults = [];
      if (acted.turn.calls.length === 0) {
        await finishByAgent(input, turn, seen, acted.model, turnTokens(acted.turn.usage));
        break;
      }
      const upcoming = turn + 1;
      lastResults = await runCalls(input, turn, seen, acted, () => {
        next = observe(input, upcoming);
        next.catch(() => undefined);
      });
    }
    // The observation started after the last action precedes the step's evaluation: not the final screen.
    const endedByStep = next !== undefined;
    await next;
    await recordFinalScreen(input, turn + 1, endedByStep, lastObserved);
  } catch (err) {
    // Nothing of the attempt is written after it ends.
    await next?.catch(() => undefined);
    if (signal.aborted) throw err;
    const info = toErrorInfo(err);
    if (!bench.state().ended) bench.end(classifyFailure(err, "agent"), err);
    return `${info.type}: ${info.message}`;
  }
  return null;
}
