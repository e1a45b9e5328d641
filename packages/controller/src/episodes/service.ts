import { randomUUID } from "node:crypto";
import { FailedPreconditionError, InvalidArgumentError, NotFoundError, sleep } from "@pincer/shared";
import { isTerminal } from "../benchmark/types.js";
import type { DatasetTask } from "../datasets/format.js";
import type { Registries } from "../datasets/registries.js";
import type { Screenshot } from "../env/index.js";
import type { MachinePool, MachineSlot } from "../machines/provider.js";
import { writeRunReport } from "../reports/writeReports.js";
import type { ResultStore, Summary } from "../runFolder/results.js";
import type { AttemptLive, LiveBoard } from "../runner/liveBoard.js";
import { Attempt, environmentsOf, type AttemptStep } from "../runner/attempt.js";
import { ownProcesses, type OwnProcesses } from "../runner/ownProcesses.js";
import { only } from "../runner/runner.js";
import { maxStepsFor, type RunSettings } from "../runner/settings.js";
import { type ActionSpaces, actionSpaceNames, callsOfAction, OSWORLD_ACTION_SPACES } from "./actionSpaces.js";
import { observeEnvs, type WireObservation } from "./observe.js";
import type { MachineAccess } from "./machineAccess.js";
import { TaskCatalog } from "./catalog.js";
import { EpisodeRecording, sendVideo } from "./recordings.js";
import { startGroup } from "./groups.js";
import { SlotQueue } from "./slots.js";
import { resultJsonOf, verdictsOf } from "./answers.js";
import type { Req, Res } from "./wire.js";

/** A lease when the start asks for none, in seconds. */
export const DEFAULT_LEASE_SECONDS = 300;
/** The longest lease granted, in seconds. */
export const MAX_LEASE_SECONDS = 24 * 3600;
/** The most episodes one StartGroup starts. */
export const MAX_GROUP_SIZE = 1024;

/** What an episode service serves: a dataset's tasks over a pool, into one run folder. */
export interface EpisodeServiceOptions {
  tasks: readonly DatasetTask[];
  registries: Registries;
  pool: MachinePool;
  settings: RunSettings;
  store: ResultStore;
  runId: string;
  runDir: string;
  /**
   * Extra actions every environment of a served episode offers, and how the pyautogui and
   * computer_13 action spaces become calls of them; null: those spaces are refused.
   * @default OSWORLD_ACTION_SPACES
   */
  actionSpaces?: ActionSpaces | null;
  /**
   * Grants each episode direct access to its machines' daemons (`pincer serve --grant-machines`),
   * revoked when it closes. @default none: agents act through Step only
   */
  machineAccess?: MachineAccess;
  /** Lines for the server's log. */
  log?(line: string): void;
  /**
   * The live page's board (`pincer serve --live`), one slot per slot of the pool: each episode is
   * shown on its slot, and a person who takes the slot over acts before the client's next step.
   */
  live?: LiveBoard;
}

interface Episode {
  id: string;
  task: DatasetTask;
  slot: MachineSlot;
  attempt: Attempt;
  own: OwnProcesses;
  leaseMs: number;
  /** The lease's timer, once set. */
  timer?: NodeJS.Timeout;
  /** Calls of this episode run one at a time, in order. */
  queue: Promise<unknown>;
  done: boolean;
  reason: string | null;
  controller: AbortController;
  recording: EpisodeRecording;
}

/** What a closed episode answers to a second close and to anything else. */
interface Closed {
  response: Res<"CloseEpisode">;
  why: string;
  /** Its videos not yet sent, when the close stopped its recording. */
  recording: EpisodeRecording;
}

/**
 * The Episodes service: episodes of a dataset's tasks (or of OSWorld tasks sent whole) on the
 * pool's slots, each an {@link Attempt} driven by the client, each holding a lease. Every closed
 * episode is an attempt folder of the run folder, and the run's report is rewritten.
 */
export class EpisodeService {
  readonly #o: EpisodeServiceOptions;
  readonly #slots: SlotQueue;
  readonly #episodes = new Map<string, Episode>();
  readonly #closed = new Map<string, Closed>();
  /** Attempt numbers given per task (tool/id). */
  readonly #attempts = new Map<string, number>();
  /** Every task an episode ran, for the report. */
  readonly #ran = new Map<string, { id: string; tool: string }>();
  readonly #catalog: TaskCatalog;
  #reports: Promise<unknown> = Promise.resolve();
  #shutting = false;

  readonly #spaces: ActionSpaces | null;

  constructor(opts: EpisodeServiceOptions) {
    this.#o = opts;
    this.#spaces = opts.actionSpaces === undefined ? OSWORLD_ACTION_SPACES : opts.actionSpaces;
    this.#slots = new SlotQueue(opts.pool.slots);
    this.#catalog = new TaskCatalog(opts, actionSpaceNames(this.#spaces));
  }

  /** Episodes open now. */
  get open(): number {
    return this.#episodes.size;
  }

  listTasks(req: Req<"ListTasks">): Res<"ListTasks"> {
    return this.#catalog.list(req);
  }

  #leaseOf(seconds: number): number {
    return Math.min(seconds || DEFAULT_LEASE_SECONDS, MAX_LEASE_SECONDS) * 1000;
  }

  async startEpisode(req: Req<"StartEpisode">, signal?: AbortSignal): Promise<Res<"StartEpisode">> {
    const task = await this.#catalog.taskOf(req);
    const [slot] = await this.#slots.acquire(1, { failFast: req.failFast, ...(signal ? { signal } : {}) });
    return this.#startOn(slot!, task, req);
  }

  /**
   * Starts the group's episodes and hands each to `send` as it starts (false from `send`: the client
   * is gone, and the episode is closed); see {@link startGroup} for how they take slots.
   */
  async startGroup(req: Req<"StartGroup">, send: (res: Res<"StartGroup">) => boolean, signal?: AbortSignal): Promise<void> {
    if (!req.episode) throw InvalidArgumentError.forField("episode", "the episode to start is required");
    const first = req.episode;
    const size = req.size || 1;
    if (size > MAX_GROUP_SIZE) throw InvalidArgumentError.forField("size", `at most ${MAX_GROUP_SIZE} episodes in a group`);
    const task = await this.#catalog.taskOf(first);
    await startGroup(
      {
        slots: this.#slots,
        startOn: (slot) => this.#startOn(slot, task, first),
        // An episode the client will not get (the group failed, or its stream is gone) is closed.
        discard: (episode) =>
          this.closeEpisode({ episodeId: episode.episodeId ?? "" }).then(
            () => undefined,
            () => undefined,
          ),
      },
      { size, together: req.together || first.failFast, failFast: first.failFast },
      send,
      signal,
    );
  }

  /** Resets the slot's machines for the task and starts an attempt on them; the slot goes back on failure. */
  async #startOn(slot: MachineSlot, task: DatasetTask, req: Req<"StartEpisode">): Promise<Res<"StartEpisode">> {
    if (this.#shutting) {
      this.#slots.release(slot);
      throw new FailedPreconditionError("the server is shutting down");
    }
    const names = environmentsOf(task);
    const controller = new AbortController();
    let own: OwnProcesses | undefined;
    let live: AttemptLive | undefined;
    try {
      let resetError: string | undefined;
      let reset: Awaited<ReturnType<NonNullable<MachineSlot["reset"]>>> | undefined;
      try {
        reset = await slot.reset?.(names, controller.signal);
      } catch (err) {
        resetError = `resetting the machines: ${(err as Error).message}`;
      }
      for (const n of names) {
        if (!slot.envs[n]) throw new FailedPreconditionError(`task ${task.id} needs an environment named ${n}, which this server's machines lack`);
      }
      own = ownProcesses(only(slot.envs, names));
      const n = this.#nextAttempt(task);
      live = this.#o.live?.attempt(slot.index, { task: { id: task.id, instruction: task.instruction, attempt: n }, envs: own.envs });
      const attempt = new Attempt({
        ...(live ? { live } : {}),
        task,
        attempt: n,
        envs: own.envs,
        addresses: only(slot.addresses, names),
        ...(reset ? { reset } : {}),
        ...(resetError ? { resetError } : {}),
        registries: this.#o.registries,
        agent: { name: "episodes", model: "client", wantsScreenshots: true },
        settings: this.#o.settings,
        store: this.#o.store,
        signal: controller.signal,
        ...(this.#spaces ? { extraActions: this.#spaces.actions } : {}),
        // What a client gets unless it asks otherwise: the step's observation can then be the recorded one.
        screenshotFormat: "png",
      });
      const first = await attempt.start();
      const ep: Episode = {
        id: randomUUID(),
        task,
        slot,
        attempt,
        own,
        leaseMs: this.#leaseOf(req.leaseSeconds),
        queue: Promise.resolve(),
        done: first.done,
        reason: first.reason,
        controller,
        recording: new EpisodeRecording(attempt, names),
      };
      this.#episodes.set(ep.id, ep);
      this.#renew(ep);
      const bench = attempt.bench;
      const tools = bench ? bench.tools("mcp").map((t) => ({ name: t.name, description: t.description ?? "", parameters: t.inputSchema })) : [];
      this.#o.log?.(`episode ${ep.id}: ${task.tool}/${task.id} attempt ${n} on slot ${slot.index}${first.done ? ` ended at once (${first.reason})` : ""}`);
      return {
        episodeId: ep.id,
        taskId: task.id,
        instruction: task.instruction,
        observation: first.done ? null : await observeEnvs(ep.own.envs, 0, req.observation, controller.signal, first.observation?.screenshots),
        maxSteps: maxStepsFor(task, this.#o.settings.maxSteps).maxSteps,
        tools: tools.map((t) => t.name),
        toolsJson: JSON.stringify(tools),
        leaseSeconds: ep.leaseMs / 1000,
        done: first.done,
        endReason: first.reason ?? "",
        // Last: a start that failed before this has no grants to revoke.
        machines: first.done ? [] : (this.#o.machineAccess?.grant(ep.id, only(slot.envs, names), () => this.#episodes.has(ep.id) && this.#renew(ep)) ?? []),
      };
    } catch (err) {
      live?.ended({ state: "not started", score: 0 });
      await own?.stop().catch(() => undefined);
      this.#slots.release(slot);
      throw err;
    }
  }

  /** The number of the task's next attempt in this run (1 first); the task joins those that ran. */
  #nextAttempt(task: DatasetTask): number {
    const key = `${task.tool}/${task.id}`;
    const n = (this.#attempts.get(key) ?? 0) + 1;
    this.#attempts.set(key, n);
    this.#ran.set(key, { id: task.id, tool: task.tool });
    return n;
  }

  /** The open episode, its lease renewed; a closed or unknown one is refused with why. */
  #episode(id: string): Episode {
    const ep = this.#episodes.get(id);
    if (ep) {
      this.#renew(ep);
      return ep;
    }
    const closed = this.#closed.get(id);
    if (closed) throw new FailedPreconditionError(`episode ${id} was closed (${closed.why}); start another`);
    throw new NotFoundError(`episode_id: no episode ${JSON.stringify(id)} on this server`);
  }

  #renew(ep: Episode, ms = ep.leaseMs): void {
    clearTimeout(ep.timer);
    ep.timer = setTimeout(() => {
      this.#o.log?.(`episode ${ep.id}: lease of ${ms / 1000} s expired; closing it`);
      this.#close(ep, `its lease of ${ms / 1000} s expired`, "lease_expired").catch((err: unknown) =>
        this.#o.log?.(`episode ${ep.id}: close failed: ${String(err)}`),
      );
    }, ms);
    ep.timer.unref?.();
  }

  /** Runs `fn` after the episode's earlier calls (refused once it closed, unless `closedToo`); the lease is renewed again when it ends. */
  #serial<T>(ep: Episode, fn: () => Promise<T>, closedToo = false): Promise<T> {
    const run = ep.queue.then(() => {
      if (!closedToo && !this.#episodes.has(ep.id)) this.#episode(ep.id);
      return fn();
    });
    ep.queue = run.catch(() => undefined);
    return run.finally(() => {
      if (this.#episodes.has(ep.id)) this.#renew(ep);
    });
  }

  #ended(ep: Episode): FailedPreconditionError {
    return new FailedPreconditionError(`episode ${ep.id} ended (${ep.reason ?? "done"}); close it with CloseEpisode and start another`);
  }

  async step(req: Req<"Step">): Promise<Res<"Step">> {
    const ep = this.#episode(req.episodeId);
    return this.#serial(ep, async () => {
      if (ep.done) throw this.#ended(ep);
      const calls = callsOfAction(req.action, ep.attempt.bench?.toolNames() ?? [], environmentsOf(ep.task)[0]!, this.#spaces);
      const r: AttemptStep = await ep.attempt.step(calls);
      ep.done = r.done;
      ep.reason = r.reason;
      const state = ep.attempt.bench?.state();
      const failed = r.results.find((x) => !x.ok) as { error?: { message: string } } | undefined;
      if (req.pauseSeconds > 0 && !r.done) await sleep(Math.min(req.pauseSeconds, 60) * 1000, ep.controller.signal);
      return {
        // Without a pause the screen is as the attempt just recorded it: its screenshots serve when they are what the client asks.
        observation: r.done ? null : await this.#observe(ep, req.observation, req.pauseSeconds > 0 ? {} : r.observation?.screenshots),
        reward: r.reward,
        done: r.done,
        terminated: r.reason !== null && isTerminal(r.reason),
        truncated: r.reason !== null && !isTerminal(r.reason),
        endReason: r.reason ?? "",
        error: failed?.error?.message ?? "",
        nodes: verdictsOf(r.evaluation, ep.attempt.bench?.events() ?? []),
        step: state?.step ?? 0,
        resultJson: resultJsonOf(r.results.at(-1)),
      };
    });
  }

  #observe(ep: Episode, opts: Req<"Observe">["observation"], recorded?: Readonly<Record<string, Screenshot>>): Promise<WireObservation> {
    return observeEnvs(ep.own.envs, ep.attempt.bench?.state().step ?? 0, opts, ep.controller.signal, recorded);
  }

  async observe(req: Req<"Observe">): Promise<Res<"Observe">> {
    const ep = this.#episode(req.episodeId);
    return this.#serial(ep, async () => ({ observation: await this.#observe(ep, req.observation) }));
  }

  async evaluate(req: Req<"Evaluate">): Promise<Res<"Evaluate">> {
    const ep = this.#episode(req.episodeId);
    return this.#serial(ep, async () => {
      const bench = ep.attempt.bench;
      if (!bench) throw this.#ended(ep);
      const evaluation = await bench.evaluate({ signal: ep.controller.signal });
      const state = bench.state();
      if (state.ended) {
        ep.done = true;
        ep.reason = state.reason;
      }
      return {
        score: evaluation.score,
        reason: evaluation.reason,
        success: evaluation.success,
        nodes: verdictsOf(evaluation, bench.events()),
        done: state.ended,
        endReason: state.reason ?? "",
      };
    });
  }

  async startRecording(req: Req<"StartRecording">): Promise<Res<"StartRecording">> {
    const ep = this.#episode(req.episodeId);
    return this.#serial(ep, async () => {
      if (ep.done) throw this.#ended(ep);
      return ep.recording.start(req.environment);
    });
  }

  /** Stops the episode's recording and sends the video asked for to `send` (false: the client is gone); after the close, the one it kept. */
  async endRecording(req: Req<"EndRecording">, send: (res: Res<"EndRecording">) => Promise<boolean>): Promise<void> {
    const closed = this.#closed.get(req.episodeId);
    const ep = closed ? undefined : this.#episode(req.episodeId);
    const video = ep ? await this.#serial(ep, () => ep.recording.end(req.environment), true) : await closed!.recording.end(req.environment);
    await sendVideo(video, send);
  }

  async renewLease(req: Req<"RenewLease">): Promise<Res<"RenewLease">> {
    const ep = this.#episode(req.episodeId);
    if (req.leaseSeconds) ep.leaseMs = this.#leaseOf(req.leaseSeconds);
    this.#renew(ep);
    return { leaseSeconds: ep.leaseMs / 1000 };
  }

  async closeEpisode(req: Req<"CloseEpisode">): Promise<Res<"CloseEpisode">> {
    const closed = this.#closed.get(req.episodeId);
    if (closed) return closed.response;
    const ep = this.#episode(req.episodeId);
    return this.#close(ep, "closed by the client");
  }

  /**
   * Ends the attempt (summary.json), stops what it started, frees the slot, rewrites the report;
   * `endReason` overrides the attempt's in the answer (a lease that lapsed).
   */
  #close(ep: Episode, why: string, endReason?: string): Promise<Res<"CloseEpisode">> {
    clearTimeout(ep.timer);
    // At once, before the final evaluation: the agent's direct calls stop here.
    this.#o.machineAccess?.revoke(ep.id, why);
    const run = ep.queue.then(async () => {
      const closed = this.#closed.get(ep.id);
      if (closed) return closed.response;
      let summary: Summary | undefined;
      let error: unknown;
      try {
        // Kept in the attempt folder (and summary.json) before the final evaluation; EndRecording can still send it.
        await ep.recording.stop();
        summary = await ep.attempt.finish();
      } catch (err) {
        error = err;
      }
      await ep.own.stop().catch(() => undefined);
      this.#episodes.delete(ep.id);
      this.#slots.release(ep.slot);
      const response: Res<"CloseEpisode"> = {
        state: summary?.results.state ?? "env_error",
        score: summary?.results.score ?? 0,
        attemptDir: ep.attempt.dir,
        endReason: endReason ?? summary?.results.end_reason ?? ep.reason ?? "",
      };
      this.#closed.set(ep.id, { response, why, recording: ep.recording });
      this.#o.log?.(`episode ${ep.id}: closed (${why}): ${response.state}, score ${response.score}`);
      await this.writeReport();
      if (error) throw error;
      return response;
    });
    ep.queue = run.catch(() => undefined);
    return run;
  }

  /** Rewrites report.json, report.md and the viewer from the attempts closed so far (one write at a time). */
  writeReport(): Promise<unknown> {
    const tasks = [...this.#ran.values()];
    this.#reports = this.#reports
      .then(() => writeRunReport(this.#o.store, this.#o.runId, tasks))
      .catch((err: unknown) => this.#o.log?.(`report: ${String(err)}`));
    return this.#reports;
  }

  /** The tasks episodes ran that are not of the dataset (OSWorld tasks sent whole), for manifest.json. */
  sentTasks(): Array<{ id: string; tool: string; file: string }> {
    return this.#catalog.sentTasks();
  }

  /** Refuses new starts and closes every open episode. */
  async shutdown(): Promise<void> {
    this.#shutting = true;
    this.#slots.close();
    await Promise.allSettled([...this.#episodes.values()].map((ep) => this.#close(ep, "the server shut down")));
    await this.writeReport();
  }
}
