import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { toErrorInfo } from "../actions/errors.js";
import { IMAGE_FORMATS, imageFormatOfMime, TimeoutError } from "@pincer/shared";
import { ModelRequestError } from "../agents/modelCall.js";
import type { Agent, AgentObservation, AgentTurn } from "../agents/types.js";
import type { Benchmark } from "../benchmark/benchmark.js";
import { classifyFailure } from "../benchmark/failures.js";
import type { EndReason, Observation, StepCall, StepResult } from "../benchmark/types.js";
import type { Screenshot } from "../env/index.js";
import { settleObservedScreens } from "./finalScreen.js";
import type { ResultStore } from "../runFolder/results.js";
import { summarizeResult } from "../benchmark/resultSummary.js";
import { screenshotGeometry, type TurnModelRecord, type TurnScreens } from "../runFolder/trajectory.js";
import { turnTokens, turnUsageRecord, type AttemptUsage } from "./usage.js";
import type { AttemptLive } from "./liveBoard.js";
import { runHumanStep } from "./humanSteps.js";
import type { Env } from "../env/index.js";

/**
 * What the agent loop works with. What the agent sees is what `bench.observe()` returns: each
 * environment's screen observation (see screenObservation.ts), when the benchmark's environments
 * have one (the runner gives them one when the agent looks or screenshots are saved).
 */
export interface AgentLoopInput extends TurnsInput {
  agent: Agent;
}

/** What an attempt's turns work with, whoever chooses the actions (an agent, or a driver outside). */
export interface TurnsInput {
  bench: Benchmark;
  /** The attempt's folder: trajectory.jsonl and screenshots/. */
  dir: string;
  store: ResultStore;
  /** Receives the agent's turns and the tool results. */
  messages: unknown[];
  usage: AttemptUsage;
  signal: AbortSignal;
  /** A live view of the attempt (`--live`): told of its turns, and where a person takes it over between turns. */
  live?: AttemptLive;
  /** The attempt's machines, by environment: a person's actions run on them. */
  envs?: Readonly<Record<string, Env>>;
  /** Save the accessibility tree after each of a person's actions too (the run reads trees: `--a11y`). */
  humanTrees?: boolean;
}

/** The turns' input and `performance.now()` when the agent's part began: lines carry `at_ms` from it. */
type LoopRun = TurnsInput & { startedAt: number };

/** Milliseconds since the agent's part began, for a trajectory line's `at_ms`. */
const sinceStart = (run: LoopRun, t = performance.now()) => Math.round(t - run.startedAt);

/** An observation as saved: `files` and `treeFiles` are paths in the attempt folder. */
interface Observed {
  screens: Observation;
  files: Record<string, string>;
  treeFiles?: Record<string, string>;
}

/** Observes (when the benchmark's environments have a screen observation) and saves; `files` are paths in the attempt folder. */
async function observe(input: TurnsInput, turn: number): Promise<Observed> {
  const screens = await input.bench.observe({ signal: input.signal });
  const prefix = join("screenshots", `turn-${String(turn).padStart(3, "0")}`);
  const files: Record<string, string> = {};
  for (const [name, shot] of Object.entries(screens.screenshots)) {
    files[name] = `${prefix}-${name}.${IMAGE_FORMATS[shot.format].extension}`;
    await writeFile(join(input.dir, files[name]), shot.data);
  }
  if (!screens.accessibility) return { screens, files };
  const treeFiles: Record<string, string> = {};
  for (const [name, text] of Object.entries(screens.accessibility)) {
    treeFiles[name] = `${prefix}-${name}.a11y.txt`;
    await writeFile(join(input.dir, treeFiles[name]), text);
  }
  return { screens, files, treeFiles };
}

/** The trajectory's record of an observation. */
function seenIn(o: Observed): TurnScreens {
  const { screenshots, settle } = o.screens;
  const seen: TurnScreens = { screenshots: o.files, screenshot_geometry: screenshotGeometry(screenshots) };
  return {
    ...seen,
    ...(Object.keys(settle).length > 0 ? { settle } : {}),
    ...(o.treeFiles ? { accessibility: o.treeFiles } : {}),
  };
}

/** The agent said it is done (or its own clock ran out: `end`): a final evaluation decides between success and `end`. */
async function finishByAgent(
  input: LoopRun,
  turn: number,
  seen: TurnScreens,
  model: TurnRecord,
  tokens: number,
  end: EndReason = "agent_complete",
): Promise<void> {
  const { bench, signal } = input;
  if (tokens > 0) bench.addTokens(tokens);
  const e0 = performance.now();
  const at = sinceStart(input, e0);
  const evaluation = await bench.evaluate({ signal });
  input.usage.addEnvTime(performance.now() - e0);
  if (!bench.state().ended) bench.end(end);
  // The graph's state after this last evaluation (its nodes, as a step's line has them).
  await input.store.appendTrajectory(input.dir, { turn, ...seen, ...model, done: true, at_ms: at, evaluation: { ...evaluation } });
}

/**
 * A step's result for the trajectory and summary: a screenshot it returned is written once as a
 * file of the attempt (`screenshots/step-NNN-<env>.<ext>`) and named by its path; other binary
 * values become their size.
 */
async function recordResult(input: TurnsInput, r: StepResult & { ok: true }): Promise<unknown> {
  const v = r.result as Partial<Screenshot> | undefined;
  // An encoded screenshot becomes a file; raw pixels (no viewer shows them) are summarized like other bytes.
  const format = v && Buffer.isBuffer(v.data) && typeof v.mimeType === "string" ? imageFormatOfMime(v.mimeType) : undefined;
  if (!format || format === "raw") return summarizeResult(r.result);
  const ext = IMAGE_FORMATS[format].extension;
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
  { turn: agentTurn, model }: { turn: AgentTurn; model: TurnRecord },
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
    input.live?.acted({ tool: r.tool, args: ("args" in call ? (call.args ?? {}) : {}) as Record<string, unknown>, ok: r.ok, step: r.step });
    const recorded = r.ok ? await recordResult(input, r) : undefined;
    input.messages.push({ role: "tool", tool: r.tool, ok: r.ok, content: r.ok ? recorded : r.error });
    await input.store.appendTrajectory(input.dir, {
      turn,
      step: r.step,
      tool: r.tool,
      // As the model sent them (validated by the step, not here).
      args: ("args" in call ? (call.args ?? {}) : {}) as Record<string, unknown>,
      ok: r.ok,
      ...(r.ok ? { result: recorded } : { error: { ...r.error } }),
      evaluation: { ...r.evaluation },
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

/**
 * The task's time ran out while an agent on its own clock (an agent program) worked: the episode is
 * evaluated and ends with time_limit (or success), recorded as a "done" line saying so.
 */
async function timeRanOut(input: LoopRun, turn: number, seen: TurnScreens, seconds: number): Promise<{ error: string }> {
  const error = `the task's time limit of ${seconds} s ran out while the agent program worked; it was stopped with its whole process tree`;
  await finishByAgent(input, turn, seen, { message: error }, 0, "time_limit");
  return { error };
}

/** Asks the agent for its turn; a failure of the agent ends the episode with agent_error and gives its message. */
async function act(
  input: LoopRun,
  agent: Agent,
  turn: number,
  seen: TurnScreens,
  observation: AgentObservation,
): Promise<{ turn: AgentTurn; model: TurnModelRecord } | { error: string }> {
  const m0 = performance.now();
  let agentTurn: AgentTurn;
  const limit = agentTimeLimit(input);
  try {
    agentTurn = await limit.bound(agent.act({ ...observation, signal: limit.signal }));
  } catch (err) {
    input.usage.addTurn(err instanceof ModelRequestError ? err.usage : undefined, performance.now() - m0);
    if (limit.expired() && agent.ownClock) return timeRanOut(input, turn, seen, limit.seconds);
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
  if (agentTurn.message) input.live?.said(agentTurn.message);
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
  const settles = Object.keys(last.screens.settle).length > 0;
  if (!endedByStep && settles) return;
  const waited = settles ? {} : await settleObservedScreens(input.bench, input.signal);
  const final = await observe(input, turn);
  if (Object.keys(final.files).length === 0) return;
  const settled = { ...final, screens: { ...final.screens, settle: { ...waited, ...final.screens.settle } } };
  await input.store.appendTrajectory(input.dir, { turn, ...seenIn(settled), final: true });
}

/** A turn begun: its number, its observation and the trajectory's record of it. */
export interface Turn {
  turn: number;
  /** What the screens showed before the turn (none when no environment has a screen observation). */
  screens: Observation;
  /** How the turn's lines record the observation (see {@link Turn.screens}). */
  seen: TurnScreens;
}

/** What a turn's model said and how long it took, for the turn's first line; an actor outside (not a model) may have neither. */
export type TurnRecord = Partial<TurnModelRecord>;

/**
 * The turns of an attempt's agent part, one at a time: observe (screenshots, saved) → the actions
 * someone chose → step, each written to the trajectory. The agent loop ({@link runAgentLoop})
 * drives it with an agent; an attempt driven from outside (`Attempt.step`) drives it with actions
 * chosen elsewhere. Created when the agent's part begins: lines carry `at_ms` from then.
 */
export class EpisodeTurns {
  readonly #run: LoopRun;
  #turn = 0;
  // The next turn's observation, started as soon as the last action finished: its screenshots
  // share a round trip with the step's evaluation instead of following it.
  #next: Promise<Observed> | undefined;
  #lastObserved: Observed | undefined;
  #humanSteps = 0;
  /** Results of the previous turn's calls, for the next observation of the agent. */
  lastResults: StepResult[] = [];

  constructor(input: TurnsInput) {
    this.#run = { ...input, startedAt: performance.now() };
  }

  /** Begins the next turn: its observation (the one started after the last action, if any), saved. */
  async begin(): Promise<Turn> {
    if (this.#run.live) await this.#personFirst(this.#run.live);
    this.#turn += 1;
    this.#run.live?.turn(this.#turn);
    const observed = await (this.#next ?? observe(this.#run, this.#turn));
    this.#lastObserved = observed;
    this.#next = undefined;
    return { turn: this.#turn, screens: observed.screens, seen: seenIn(observed) };
  }

  /**
   * A person who took the attempt over acts first (see LiveBoard): their actions run and are
   * recorded until they hand it back; the observation started after the agent's last action is
   * then dropped, so that the agent sees the screen as the person left it.
   */
  async #personFirst(live: AttemptLive): Promise<void> {
    const run = this.#run;
    await live.beforeTurn(async (call) => {
      await this.#next?.catch(() => undefined);
      this.#next = undefined;
      const ctx = {
        envs: run.envs ?? {},
        dir: run.dir,
        store: run.store,
        signal: run.signal,
        turn: this.#turn,
        index: this.#humanSteps,
        accessibility: run.humanTrees === true,
      };
      const step = await runHumanStep({ ...ctx, atMs: () => sinceStart(run) }, call);
      this.#humanSteps += 1;
      run.messages.push({ role: "human", tool: step.tool, args: step.args, ok: step.ok, ...(step.error ? { error: step.error } : {}) });
      return step;
    }, run.signal);
  }

  /** What the agent sees of a turn: the screens as observed, at the episode's current step, and the previous turn's results. */
  agentObservation(t: Turn): Omit<AgentObservation, "signal"> {
    return { ...t.screens, step: this.#run.bench.state().step, lastResults: this.lastResults };
  }

  /** Asks the agent for the turn's calls; a failure of the agent ends the episode with agent_error and gives its message. */
  ask(agent: Agent, t: Turn): ReturnType<typeof act> {
    return act(this.#run, agent, t.turn, t.seen, { ...this.agentObservation(t), signal: this.#run.signal });
  }

  /**
   * Runs the turn's calls in order until one ends the episode (none: the agent said it is done, and
   * a final evaluation decides); the first carries the turn's tokens and `model`'s record.
   */
  async act(t: Turn, calls: readonly StepCall[], model: TurnRecord = {}, usage?: AgentTurn["usage"]): Promise<StepResult[]> {
    this.lastResults = [];
    if (calls.length === 0) {
      await finishByAgent(this.#run, t.turn, t.seen, model, turnTokens(usage));
      return [];
    }
    const upcoming = t.turn + 1;
    this.lastResults = await runCalls(this.#run, t.turn, t.seen, { turn: { calls: [...calls], ...(usage ? { usage } : {}) }, model }, () => {
      this.#next = observe(this.#run, upcoming);
      this.#next.catch(() => undefined);
    });
    return this.lastResults;
  }

  /** Once the episode ended: waits for an observation under way and records the final screen (see recordFinalScreen). */
  async close(): Promise<void> {
    // The observation started after the last action precedes the step's evaluation: not the final screen.
    const endedByStep = this.#next !== undefined;
    await this.#next;
    await recordFinalScreen(this.#run, this.#turn + 1, endedByStep, this.#lastObserved);
  }

  /**
   * An error thrown by a turn: the episode ends (a machine that failed is env_error; see
   * classifyFailure) and its message is returned. Cancellation (the signal fired) throws it again.
   */
  async failed(err: unknown): Promise<string> {
    // Nothing of the attempt is written after it ends.
    await this.#next?.catch(() => undefined);
    if (this.#run.signal.aborted) throw err;
    const info = toErrorInfo(err);
    const { bench } = this.#run;
    if (!bench.state().ended) bench.end(classifyFailure(err, "agent"), err);
    return `${info.type}: ${info.message}`;
  }
}

/**
 * The agent's part of an attempt: observe (screenshots, saved) → act → step, turn by turn, until the
 * episode ends; writes each step to the trajectory. Returns the error that ended it, if any: the
 * agent's own failure is agent_error; anything else thrown here is classified (a machine that
 * failed is env_error). Cancellation (the signal fired) throws.
 */
export async function runAgentLoop(loopInput: AgentLoopInput): Promise<string | null> {
  const { bench, signal, agent } = loopInput;
  const turns = new EpisodeTurns(loopInput);
  const finish = once(() => agent.finish?.({ reason: bench.state().reason, lastResults: turns.lastResults }).catch(() => undefined));
  try {
    while (!bench.state().ended) {
      signal.throwIfAborted();
      const t = await turns.begin();
      const acted = await turns.ask(agent, t);
      if ("error" in acted) return acted.error;
      await turns.act(t, acted.turn.calls, acted.model, acted.turn.usage);
      if (acted.turn.calls.length === 0) break;
    }
    // What the agent began (an agent program and its endpoint) ends before the final screen is taken.
    await finish();
    await turns.close();
  } catch (err) {
    return turns.failed(err);
  } finally {
    await finish();
  }
  return null;
}

/** `f` run at most once: later calls get the first call's promise. */
function once(f: () => Promise<unknown> | undefined): () => Promise<unknown> {
  let done: Promise<unknown> | undefined;
  return () => (done ??= f() ?? Promise.resolve());
}
