import { EventEmitter } from "node:events";
import { FailedPreconditionError, InvalidArgumentError, NotFoundError } from "@pincer/shared";
import type { Env } from "../env/index.js";

/**
 * The desktop actions a person's input becomes (in screen pixels): what the live page sends and
 * what a recorded demonstration writes as solution steps.
 */
export const HUMAN_ACTIONS = ["click", "double_click", "right_click", "move", "drag", "scroll", "key", "type"] as const;
/** One of {@link HUMAN_ACTIONS}. */
export type HumanActionName = (typeof HUMAN_ACTIONS)[number];

/** A person's action on one machine of a slot they took over. */
export interface HumanCall {
  /** The task's environment the action is for. */
  env: string;
  action: HumanActionName;
  args: Record<string, unknown>;
}

/** A person's action as it ran: what the trajectory and a recorded solution keep of it. */
export interface HumanStep {
  /** `<env>__<action>`, as a solution and the trajectory name tools. */
  tool: string;
  args: Record<string, unknown>;
  ok: boolean;
  error?: string;
  /** When it began and ended, Unix ms. */
  startedAt: number;
  endedAt: number;
  /** How long the screen kept changing after it, in ms (0: no change; absent: not measured). */
  settledMs?: number;
}

/** Who drives a slot's machines: nobody (between attempts), its agent, a person (`human`), or a person who asked and waits for the agent's turn to end. */
export type SlotMode = "idle" | "agent" | "requested" | "human";

/** The last action on a slot, for the page to draw. */
export interface LastAction {
  tool: string;
  args: Record<string, unknown>;
  ok: boolean;
  by: "agent" | "human";
  /** Unix ms. */
  at: number;
}

/** What the live page shows of one slot. */
export interface SlotView {
  slot: number;
  /** The machines' names of the slot's worker, when the board shows slots of workers. */
  worker?: string;
  mode: SlotMode;
  /** Changes with each attempt: a page restarts its screen streams when it does. */
  epoch: number;
  task?: { id: string; instruction: string; attempt: number; rollout?: number };
  environments: string[];
  turn: number;
  /** The agent's steps so far. */
  steps: number;
  humanSteps: number;
  lastAction?: LastAction;
  lastMessage?: string;
  /** How the slot's last attempt ended. */
  last?: { task: string; state: string; score: number; human: boolean };
  /** Attempts finished on the slot. */
  finished: number;
}

/** What a board's attempt is told of and asks for (see {@link LiveBoard.attempt}). */
export interface AttemptLive {
  /**
   * Before each turn: returns at once unless a person took the slot over (or asked to), else runs
   * their actions with `run`, one at a time, until they hand it back.
   */
  beforeTurn(run: (call: HumanCall) => Promise<HumanStep>, signal: AbortSignal): Promise<void>;
  turn(n: number): void;
  acted(a: { tool: string; args: Record<string, unknown>; ok: boolean; step: number }): void;
  said(message: string): void;
  /** The person's part of the attempt: their steps and how many times they took it over. */
  human(): { steps: number; takeovers: number };
  ended(result: { state: string; score: number }): void;
}

interface Queued {
  call: HumanCall;
  resolve(step: HumanStep): void;
  reject(err: unknown): void;
}

interface SlotState {
  view: SlotView;
  envs: Readonly<Record<string, Env>>;
  queue: Queued[];
  wake: (() => void) | undefined;
  takeovers: number;
  steps: HumanStep[];
  /** The attempt under way (its epoch), or 0. */
  active: number;
}

/** Options of {@link LiveBoard}. */
export interface LiveBoardOptions {
  slots: number;
  /** Every slot starts taken over (a demonstration): its first turn waits for the person. */
  startTakenOver?: boolean;
}

/**
 * The live state of a run's slots, and the person's part in them: what the live page shows (each
 * slot's task, turn, last action and message, its machines), and takeover — a person asks for a
 * slot, the agent's current turn finishes, then the person's actions run on its machines (recorded
 * in the trajectory as human steps) until they hand it back and the agent observes the screen as
 * they left it. Emits "change" with the slot's view whenever it changes.
 */
export class LiveBoard extends EventEmitter {
  readonly #slots: SlotState[];
  #epoch = 0;

  constructor(opts: LiveBoardOptions) {
    super();
    this.setMaxListeners(0);
    this.#slots = Array.from({ length: opts.slots }, (_, slot) => ({
      view: { slot, mode: opts.startTakenOver ? "requested" : "idle", epoch: 0, environments: [], turn: 0, steps: 0, humanSteps: 0, finished: 0 },
      envs: {},
      queue: [],
      wake: undefined,
      takeovers: 0,
      steps: [],
      active: 0,
    }));
  }

  /** Each slot's view, in order. */
  views(): SlotView[] {
    return this.#slots.map((s) => structuredClone(s.view));
  }

  /** A slot's machine for environment `env` while an attempt runs on it (its screen stream, a VNC view); undefined between attempts. */
  envOf(slot: number, env: string): Env | undefined {
    const s = this.#slots[slot];
    return s?.active ? s.envs[env] : undefined;
  }

  /** The person's steps of the slot's current (or last) attempt, in order. */
  humanSteps(slot: number): readonly HumanStep[] {
    return this.#slot(slot).steps;
  }

  /** A person asks for the slot: the agent's current turn ends first (mode "requested", then "human"). */
  takeOver(slot: number): SlotView {
    const s = this.#slot(slot);
    if (s.view.mode === "agent" || s.view.mode === "idle") {
      s.view.mode = "requested";
      this.#changed(s);
    }
    return structuredClone(s.view);
  }

  /** The person hands the slot back: the agent's next turn observes the screen as they left it. */
  handBack(slot: number): SlotView {
    const s = this.#slot(slot);
    if (s.view.mode === "requested" || s.view.mode === "human") {
      s.view.mode = s.active ? "agent" : "idle";
      s.wake?.();
      this.#changed(s);
    }
    return structuredClone(s.view);
  }

  /** Runs a person's action on the slot's machine; the slot must be taken over (mode "human"). */
  human(slot: number, call: HumanCall): Promise<HumanStep> {
    const s = this.#slot(slot);
    if (!HUMAN_ACTIONS.includes(call.action)) {
      throw new InvalidArgumentError(`action: ${JSON.stringify(call.action)} is none of ${HUMAN_ACTIONS.join(", ")}`);
    }
    if (!s.view.environments.includes(call.env)) {
      throw new InvalidArgumentError(
        `env: slot ${slot}'s task has no environment ${JSON.stringify(call.env)}; it has ${s.view.environments.join(", ") || "none"}`,
      );
    }
    if (s.view.mode !== "human") {
      const why = s.view.mode === "requested" ? "waits for the agent's current turn to end" : "is not taken over; take it over first";
      throw new FailedPreconditionError(`slot ${slot} ${why}`);
    }
    return new Promise<HumanStep>((resolve, reject) => {
      s.queue.push({ call, resolve, reject });
      s.wake?.();
    });
  }

  /** A new attempt on `slot`: its machines and task; the returned handle hears of its turns and runs a person's actions. */
  attempt(slot: number, info: { task: SlotView["task"] & object; envs: Readonly<Record<string, Env>> }): AttemptLive {
    const s = this.#slot(slot);
    const epoch = ++this.#epoch;
    s.active = epoch;
    s.envs = info.envs;
    s.steps = [];
    s.takeovers = 0;
    const { lastAction: _a, lastMessage: _m, ...kept } = s.view;
    s.view = { ...kept, epoch, task: { ...info.task }, environments: Object.keys(info.envs), turn: 0, steps: 0, humanSteps: 0 };
    if (s.view.mode === "idle") s.view.mode = "agent";
    this.#changed(s);
    return this.#attemptLive(s, epoch);
  }

  #attemptLive(s: SlotState, epoch: number): AttemptLive {
    const mine = () => s.active === epoch;
    const update = (f: (v: SlotView) => void) => {
      if (!mine()) return;
      f(s.view);
      this.#changed(s);
    };
    return {
      beforeTurn: (run, signal) => (mine() ? this.#hold(s, run, signal) : Promise.resolve()),
      turn: (n) => update((v) => (v.turn = n)),
      acted: ({ tool, args, ok, step }) =>
        update((v) => {
          v.steps = step;
          v.lastAction = { tool, args, ok, by: "agent", at: Date.now() };
        }),
      said: (message) => update((v) => (v.lastMessage = message)),
      human: () => ({ steps: s.steps.length, takeovers: s.takeovers }),
      ended: ({ state, score }) => {
        if (!mine()) return;
        s.active = 0;
        for (const q of s.queue.splice(0)) q.reject(new FailedPreconditionError("the attempt ended before the action ran"));
        const v = s.view;
        v.last = { task: v.task?.id ?? "", state, score, human: s.steps.length > 0 };
        v.finished += 1;
        if (v.mode === "human") v.mode = "requested";
        else if (v.mode === "agent") v.mode = "idle";
        this.#changed(s);
      },
    };
  }

  /** The gate before a turn: while the slot is (or is asked to be) the person's, runs their actions. */
  async #hold(s: SlotState, run: (call: HumanCall) => Promise<HumanStep>, signal: AbortSignal): Promise<void> {
    if (s.view.mode !== "requested" && s.view.mode !== "human") return;
    s.view.mode = "human";
    s.takeovers += 1;
    this.#changed(s);
    while (s.view.mode === "human") {
      signal.throwIfAborted();
      const next = s.queue.shift();
      if (!next) {
        await new Promise<void>((resolve) => {
          const done = () => {
            s.wake = undefined;
            signal.removeEventListener("abort", done);
            resolve();
          };
          s.wake = done;
          signal.addEventListener("abort", done, { once: true });
        });
        continue;
      }
      try {
        const step = await run(next.call);
        s.steps.push(step);
        s.view.humanSteps = s.steps.length;
        s.view.lastAction = { tool: step.tool, args: step.args, ok: step.ok, by: "human", at: step.endedAt };
        this.#changed(s);
        next.resolve(step);
      } catch (err) {
        next.reject(err);
        if (signal.aborted) throw err;
      }
    }
    // Actions sent after the hand-back are refused, not left waiting.
    for (const q of s.queue.splice(0)) q.reject(new FailedPreconditionError("the slot was handed back before the action ran"));
  }

  #slot(slot: number): SlotState {
    const s = Number.isInteger(slot) ? this.#slots[slot] : undefined;
    if (!s) throw new NotFoundError(`no slot ${slot}; the run has slots 0 to ${this.#slots.length - 1}`);
    return s;
  }

  #changed(s: SlotState): void {
    this.emit("change", structuredClone(s.view));
  }
}
