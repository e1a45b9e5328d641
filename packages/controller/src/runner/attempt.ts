import { FailedPreconditionError } from "@pincer/shared";
import type { AnyAction } from "../actions/action.js";
import type { Agent } from "../agents/types.js";
import type { Benchmark } from "../benchmark/benchmark.js";
import type { EndReason, Observation, StepCall, StepResult } from "../benchmark/types.js";
import type { DatasetTask } from "../datasets/format.js";
import type { Registries } from "../datasets/registries.js";
import type { Env } from "../env/index.js";
import type { EvaluationState } from "../evaluators/metrics.js";
import type { ResultStore, Summary } from "../runFolder/results.js";
import { writeSummary } from "../runFolder/runFiles.js";
import type { Task } from "../tasks/task.js";
import { EpisodeTurns, runAgentLoop, type Turn } from "./agentLoop.js";
import { type RecordingResults, startRecordings } from "./recording.js";
import { maxStepsFor, observationFor, type RunSettings } from "./settings.js";
import { attemptResults, endsInVerdict, summaryOf, type AttemptEnd, type AttemptRecord, type SummarySettings } from "./summary.js";
import { buildBenchmark, only } from "./taskBuilder.js";
import { AttemptUsage } from "./usage.js";
import type { AttemptLive } from "./liveBoard.js";

export { environmentsOf } from "./taskBuilder.js";

/**
 * Who acts in an attempt: an {@link Agent}, or (for an attempt driven from outside with
 * {@link Attempt.step}) what summary.json names and what the observation needs of one.
 */
export type AttemptAgent = Pick<Agent, "name" | "model" | "wantsScreenshots" | "actions"> & Partial<Pick<Agent, "start" | "act" | "finish">>;

/** One attempt of one task: the task, its machines, the run's settings, who acts and where the results go. */
export interface AttemptInput {
  task: DatasetTask;
  /** The attempt's number (1 first), its folder `<tool>/<id>/attempt-<n>` in `store`. */
  attempt: number;
  /** The rollout it belongs to in a run of several rollouts per task (`store` is then the rollout's); summary.json names it. */
  rollout?: number;
  /** The task's machines, by environment name. */
  envs: Readonly<Record<string, Env>>;
  /** Each environment's address, for summary.json. */
  addresses: Readonly<Record<string, string>>;
  /** How the machines were reset before this attempt, for summary.json. */
  reset?: Readonly<Record<string, { provider: string; method: string; ms: number }>>;
  /** Why the machines could not be reset: the attempt then ends with env_error at once (the machine failed, not the task). */
  resetError?: string;
  /** The dataset formats (the one that loaded the task builds it) and the JSON task format's functions. */
  registries: Registries;
  agent: AttemptAgent;
  settings: RunSettings;
  store: ResultStore;
  signal: AbortSignal;
  /** Actions every environment also offers besides the agent's (an episode server's action spaces). */
  extraActions?: readonly AnyAction[];
  /**
   * The encoding of the screenshots each turn records (and the agent sees): JPEG by default; an
   * episode server records PNG, the encoding its clients get unless they ask otherwise, so that a
   * step's observation can be the recorded one.
   */
  screenshotFormat?: "jpeg" | "png";
  /** A live view of the attempt (`--live`): the page's slot, where a person may take it over between turns. */
  live?: AttemptLive;
}

/** What {@link Attempt.start} and {@link Attempt.step} give back: what the agent sees next, the evaluation so far, and whether the attempt is done. */
export interface AttemptStep {
  /** The screens before the next action; absent once the attempt is done. */
  observation?: Observation;
  /** The results of the step's calls, in order (errors included); empty for `start`. */
  results: StepResult[];
  /** The task evaluator's state after the last call that ran; null when none ran. */
  evaluation: EvaluationState | null;
  /** The task evaluator's score so far, in [0, 1] (a graph gives partial credit); 0 before any evaluation. */
  reward: number;
  /** The episode ended: call {@link Attempt.finish}. */
  done: boolean;
  /** Why it ended; null while it goes on. */
  reason: EndReason | null;
}

/** How long an attempt waits for a machine whose connection is down to come back. */
export const MACHINE_READY_TIMEOUT_MS = 30_000;

/**
 * The daemon version of each environment, or why it could not be asked. Asked of all machines at
 * once, each waiting up to {@link MACHINE_READY_TIMEOUT_MS} for a connection that is down (a link
 * that broke in the previous attempt) to come back, so the attempt starts on machines that answer.
 */
async function daemonVersionsOf(envs: Readonly<Record<string, Env>>, signal: AbortSignal): Promise<Record<string, string>> {
  const entries = await Promise.all(
    Object.entries(envs).map(async ([name, env]) => {
      const version = await env.system.info({ signal, timeoutMs: MACHINE_READY_TIMEOUT_MS, waitForReady: true }).then(
        (i) => i.daemonVersion,
        (e: unknown) => `unreachable: ${(e as Error).message}`,
      );
      return [name, version] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/** What summary.json keeps of the task: its fields as written, or the ones every task has. */
export function taskFields(task: DatasetTask): Record<string, unknown> {
  if (task.fields) return { ...task.fields };
  return {
    id: task.id,
    instruction: task.instruction,
    tags: task.tags,
    related_apps: task.relatedApps,
    ...(task.actionNumber !== undefined ? { action_number: task.actionNumber } : {}),
    ...(task.counterpart !== undefined ? { counterpart: task.counterpart } : {}),
    environments: task.environments,
    source: task.file,
  };
}

/**
 * One attempt of one task, its lifecycle one phase at a time: setup (the reset's outcome, daemon
 * versions, build, the task's setup, the agent's start, recordings) → turns of observe / act /
 * evaluate → teardown → verdict → record (summary.json in the attempt's folder).
 *
 * Driven by an agent, {@link Attempt.run} does it all (what `pincer run` does). Driven from outside
 * (an episode service), {@link Attempt.start} sets up and gives the first observation,
 * {@link Attempt.step} runs actions chosen elsewhere and gives the next one with the evaluation so
 * far, and {@link Attempt.finish} ends it and records. Task-level failures never throw: a task that
 * cannot be built (its module's `build()` throws, its actions clash with an environment's) ends with
 * `setup_error`. Cancellation (the signal) throws and leaves the attempt without a summary.
 */
export class Attempt {
  /** The attempt's folder (trajectory.jsonl, screenshots/, summary.json); set by `start` or `run`. */
  dir = "";
  readonly #input: AttemptInput;
  readonly #maxSteps: ReturnType<typeof maxStepsFor>;
  readonly #record: AttemptRecord;
  #built: { task: Task; bench: Benchmark } | undefined;
  #recorder: Awaited<ReturnType<typeof startRecordings>> | undefined;
  #turns: EpisodeTurns | undefined;
  #current: Turn | undefined;
  /** How the attempt ended before its agent part (a failed reset, build or setup). */
  #early: AttemptEnd | undefined;
  #loopError: string | null = null;
  #phase: "new" | "acting" | "ended" | "finished" = "new";

  constructor(input: AttemptInput) {
    this.#input = input;
    this.#maxSteps = maxStepsFor(input.task, input.settings.maxSteps);
    this.#record = {
      started: Date.now(),
      messages: [{ role: "user", content: input.task.instruction }],
      usage: new AttemptUsage(),
      daemonVersions: {},
      teardownError: null,
    };
  }

  /** The benchmark of the attempt's task, once built (for a driver that reads its state or tools). */
  get bench(): Benchmark | undefined {
    return this.#built?.bench;
  }

  /** Sets up the attempt and observes the screens the first action will act on; `done` when setup failed. */
  async start(): Promise<AttemptStep> {
    if (!(await this.#setup())) return this.#stepResult([]);
    this.#turns = new EpisodeTurns(this.#turnsInput());
    return this.#observeNext([]);
  }

  /**
   * Runs actions chosen outside (in order, until one ends the episode) on the screens last
   * observed, and observes the next. No action means the actor is done: a final evaluation decides.
   * `message` is what the actor said with them, for the trajectory.
   */
  async step(action: StepCall | readonly StepCall[], message?: string): Promise<AttemptStep> {
    if (this.#phase !== "acting" || !this.#turns || !this.#current)
      throw new FailedPreconditionError(`step: the attempt is ${this.#phase === "new" ? "not started" : "done"}`);
    const calls = Array.isArray(action) ? (action as readonly StepCall[]) : [action as StepCall];
    const turns = this.#turns;
    let results: StepResult[] = [];
    try {
      this.#record.messages.push({ role: "assistant", content: message ?? "", tool_calls: calls, done: calls.length === 0 });
      results = await turns.act(this.#current, calls, message ? { message } : {});
      if (calls.length > 0 && !this.#built!.bench.state().ended) return await this.#observeNext(results);
    } catch (err) {
      this.#loopError = await turns.failed(err);
    }
    this.#phase = "ended";
    return this.#stepResult(results);
  }

  /**
   * Ends the attempt: an episode still going ends as if its actor said it is done; the final screen,
   * the recordings' end, teardown, the verdict; writes summary.json and returns it.
   */
  async finish(): Promise<Summary> {
    if (this.#phase === "new") throw new FailedPreconditionError("finish: the attempt was not started; call start() first");
    if (this.#phase === "finished") throw new FailedPreconditionError("finish: the attempt was finished already");
    if (this.#phase === "acting") await this.step([]);
    if (this.#turns && this.#loopError === null) {
      await this.#turns.close().catch(async (err: unknown) => {
        this.#loopError = await this.#turns!.failed(err);
      });
    }
    await this.endRecording();
    return this.#conclude();
  }

  /**
   * Starts recording the screens of the environments `names` (default: all of the attempt's) into
   * the attempt folder, as `settings.record` does from the setup on, until {@link Attempt.endRecording}
   * or the attempt's end. An attempt records once.
   */
  async startRecording(names?: readonly string[]): Promise<void> {
    const state = this.#phase === "new" ? "not started" : this.#phase === "finished" ? "finished" : this.#early ? "ended at its setup" : null;
    if (state) throw new FailedPreconditionError(`startRecording: the attempt is ${state}`);
    if (this.#recorder || this.#record.recordings) throw new FailedPreconditionError("startRecording: an attempt records once; this one records or did");
    const { envs, settings, signal } = this.#input;
    const recorded = names ? only(envs, names) : envs;
    this.#recorder = await startRecordings(recorded, this.dir, { lifetimeMs: settings.taskTimeoutMs + 60_000, signal });
  }

  /** Stops the recording, if one runs: its videos stay in the attempt folder, and summary.json names them (or why there is none). */
  async endRecording(): Promise<RecordingResults | undefined> {
    const recorder = this.#recorder;
    if (!recorder) return undefined;
    this.#recorder = undefined;
    this.#record.recordings = await recorder.stop();
    return this.#record.recordings;
  }

  /** The whole attempt with its agent (which must `act`): setup, the agent loop, teardown, the verdict, summary.json. */
  async run(): Promise<Summary> {
    const { agent } = this.#input;
    if (!agent.act || !agent.start) throw new FailedPreconditionError("run: the attempt's agent must start and act; drive it with start/step/finish otherwise");
    if (await this.#setup()) {
      this.#loopError = await runAgentLoop({ ...this.#turnsInput(), agent: agent as Agent }).finally(() => this.endRecording());
    }
    return this.#conclude();
  }

  /** Setup, up to the agent's part: false when the attempt ended already (see #early). */
  async #setup(): Promise<boolean> {
    if (this.#phase !== "new") throw new FailedPreconditionError("start: the attempt was started already");
    this.#phase = "ended";
    const { task, store, signal, settings, agent } = this.#input;
    this.dir = await store.beginAttempt(task.tool, task.id, this.#input.attempt);
    if (this.#input.resetError) return this.#endEarly({ reason: "env_error", error: this.#input.resetError });
    this.#record.daemonVersions = await daemonVersionsOf(this.#input.envs, signal);
    try {
      const observation = observationFor(settings, agent);
      const { screenshotFormat } = this.#input;
      const observe = observation && screenshotFormat ? { ...observation, format: screenshotFormat } : observation;
      const { maxSteps } = this.#maxSteps;
      this.#built = buildBenchmark({ ...this.#input, observe, maxSteps, timeLimitMs: settings.taskTimeoutMs }, this.dir);
    } catch (err) {
      return this.#endEarly({ reason: "setup_error", error: `building the task: ${(err as Error).message}` });
    }
    const { bench, task: built } = this.#built;
    const t0 = performance.now();
    const start = await bench.start(built.id, { signal });
    this.#record.usage.timing.setup_ms = performance.now() - t0;
    if (!start.ok) {
      await this.#closeEpisode();
      return this.#endEarly({ reason: start.reason ?? "setup_error", error: start.error?.message ?? "setup failed" });
    }
    const tools = bench.tools("mcp").map((t) => ({ name: t.name, description: t.description ?? "", parameters: t.inputSchema as Record<string, unknown> }));
    if (settings.record) this.#recorder = await startRecordings(this.#input.envs, this.dir, { lifetimeMs: settings.taskTimeoutMs + 60_000, signal });
    const context = {
      taskId: built.id,
      instruction: built.description,
      tools,
      maxSteps: built.maxSteps,
      signal,
      dir: this.dir,
      timeLimitMs: settings.taskTimeoutMs,
    };
    try {
      await agent.start?.(context);
    } catch (err) {
      await agent.finish?.({ reason: null, lastResults: [] });
      await this.endRecording();
      await this.#closeEpisode();
      return this.#endEarly({ reason: "agent_error", error: `starting the agent: ${(err as Error).message}` });
    }
    this.#phase = "acting";
    return true;
  }

  #endEarly(end: AttemptEnd): false {
    this.#early = end;
    return false;
  }

  #turnsInput() {
    const { store, signal, live, envs } = this.#input;
    const humanTrees = this.#input.settings.accessibility !== undefined;
    const input = { bench: this.#built!.bench, dir: this.dir, store, messages: this.#record.messages, usage: this.#record.usage, signal, envs, humanTrees };
    return live ? { ...input, live } : input;
  }

  /** Begins the next turn: its observation, with the evaluation after `results`. */
  async #observeNext(results: StepResult[]): Promise<AttemptStep> {
    this.#current = await this.#turns!.begin();
    return { ...this.#stepResult(results), observation: this.#current.screens };
  }

  #stepResult(results: StepResult[]): AttemptStep {
    // Once built, the benchmark has the attempt's episode (started, or failed to start).
    const bench = this.#built?.bench;
    const state = bench?.state();
    return {
      results,
      evaluation: results.at(-1)?.evaluation ?? null,
      reward: bench ? bench.metrics().score : 0,
      done: this.#phase !== "acting" || (state?.ended ?? true),
      reason: state?.reason ?? this.#early?.reason ?? null,
    };
  }

  /** Runs the task's teardown; a failure of it is recorded, not thrown. */
  async #closeEpisode(): Promise<void> {
    try {
      await this.#built!.bench.close({ signal: this.#input.signal });
    } catch (err) {
      this.#record.teardownError = (err as Error).message;
    }
  }

  /** Teardown, the verdict and the record: summary.json, written last, when the attempt's folder is whole. */
  async #conclude(): Promise<Summary> {
    this.#phase = "finished";
    const end = this.#early ?? (await this.#endOfEpisode());
    const { task, attempt, agent, addresses, reset, signal } = this.#input;
    const settings: SummarySettings = {
      kind: task.kind,
      attempt,
      maxSteps: this.#maxSteps.maxSteps,
      maxStepsRule: this.#maxSteps.rule,
      agent,
      addresses,
      ...(reset ? { reset } : {}),
    };
    const human = this.#input.live?.human();
    const results = {
      ...attemptResults(settings, this.#record, end),
      ...(this.#input.rollout !== undefined ? { rollout: this.#input.rollout } : {}),
      // A person took part: the score is no longer the agent's alone.
      ...(human && (human.steps > 0 || human.takeovers > 0) ? { human } : {}),
    };
    // An interrupted run leaves this attempt without a summary: --resume redoes it.
    signal.throwIfAborted();
    const summary = summaryOf(taskFields(task), task.id, results);
    await writeSummary(this.dir, summary);
    this.#input.live?.ended({ state: results.state, score: results.score });
    return summary;
  }

  /** Teardown of an episode that ran, and how it ended. */
  async #endOfEpisode(): Promise<AttemptEnd> {
    await this.#closeEpisode();
    const { bench } = this.#built!;
    const st = bench.state();
    const error = this.#loopError ?? (st.error && !endsInVerdict(st.reason) ? st.error.message : null);
    return { reason: st.reason, error, metrics: bench.metrics(), steps: st.step };
  }
}
