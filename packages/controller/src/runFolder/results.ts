import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { appendFile, mkdir, readdir, readFile, rename, rm, writeFile, open } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { EndReason } from "../benchmark/types.js";
import type { TrajectoryLine } from "./trajectory.js";

/**
 * The result folder of one run:
 * `<runDir>/manifest.json`, `<runDir>/report.json`, `<runDir>/report.md`, `<runDir>/report.html` (the run viewer), and per task attempt
 * `<runDir>/<tool>/<id>/attempt-<n>/{summary.json, trajectory.jsonl, screenshots/}`.
 * An attempt counts as finished only once its summary.json exists; summaries are written
 * atomically (temporary file, fsync, rename), so a crash never leaves half of one.
 */
export class ResultStore {
  constructor(readonly runDir: string) {}

  taskDir(tool: string, id: string): string {
    return join(this.runDir, tool, id);
  }

  attemptDir(tool: string, id: string, attempt: number): string {
    return join(this.taskDir(tool, id), `attempt-${attempt}`);
  }

  /** Writes JSON atomically: a reader sees the old file or the whole new one, never a part. */
  async writeJsonAtomic(path: string, value: unknown): Promise<void> {
    await mkdir(dirname(path), { recursive: true });
    const tmp = `${path}.${randomBytes(4).toString("hex")}.tmp`;
    const fh = await open(tmp, "w");
    try {
      await fh.writeFile(`${JSON.stringify(value, null, 2)}\n`);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
  }

  async writeTextAtomic(path: string, text: string): Promise<void> {
    const tmp = `${path}.${randomBytes(4).toString("hex")}.tmp`;
    await writeFile(tmp, text);
    await rename(tmp, path);
  }

  /** Starts an attempt folder from scratch (a left-over unfinished one is removed first). */
  async beginAttempt(tool: string, id: string, attempt: number): Promise<string> {
    const dir = this.attemptDir(tool, id, attempt);
    await rm(dir, { recursive: true, force: true });
    await mkdir(join(dir, "screenshots"), { recursive: true });
    return dir;
  }

  async appendTrajectory(dir: string, line: unknown): Promise<void> {
    await appendFile(join(dir, "trajectory.jsonl"), `${JSON.stringify(line)}\n`);
  }

  /** Finished attempts of a task (those with a summary), oldest first. */
  async finishedAttempts(tool: string, id: string): Promise<Array<{ attempt: number; summary: Summary }>> {
    const dir = this.taskDir(tool, id);
    if (!existsSync(dir)) return [];
    const out: Array<{ attempt: number; summary: Summary }> = [];
    for (const name of await readdir(dir)) {
      const m = /^attempt-(\d+)$/.exec(name);
      const file = join(dir, name, "summary.json");
      if (m && existsSync(file)) out.push({ attempt: Number(m[1]), summary: JSON.parse(await readFile(file, "utf8")) as Summary });
    }
    return out.sort((a, b) => a.attempt - b.attempt);
  }

  /** The trajectory of an attempt, one object a line; empty when it has none. */
  async readTrajectory(tool: string, id: string, attempt: number): Promise<TrajectoryLine[]> {
    const file = join(this.attemptDir(tool, id, attempt), "trajectory.jsonl");
    if (!existsSync(file)) return [];
    return (await readFile(file, "utf8"))
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as TrajectoryLine);
  }
}

/** The infrastructure failures that prevented a verdict; `--attempts` retries these. */
export const INFRA_STATES = ["setup_error", "env_error", "eval_error", "agent_error"] as const;
/** Outcomes of a task attempt: the task's verdict, or the infrastructure failure that prevented one. */
export const TASK_STATES = ["passed", "failed", ...INFRA_STATES] as const;
/** Outcome of a task attempt: one of {@link TASK_STATES}. */
export type TaskState = (typeof TASK_STATES)[number];
export type InfraState = (typeof INFRA_STATES)[number];

/** How the agent's part can end. `agent_done`: it said it was done, or the goal was reached first. */
export const AGENT_STATES = ["agent_done", "step_limit", "time_limit", "token_budget"] as const;
/** How the agent's part ended (one of {@link AGENT_STATES}); null when it did not run to an end. */
export type AgentState = (typeof AGENT_STATES)[number] | null;

/** Whether `state` is an infrastructure failure (one of {@link INFRA_STATES}). */
export function isInfraState(state: string): state is InfraState {
  return (INFRA_STATES as readonly string[]).includes(state);
}

/** The `results` part of summary.json. */
export interface TaskResults {
  score: number;
  state: TaskState;
  agent_state: AgentState;
  /** The benchmark's end reason (success, agent_complete, step_limit, …). */
  end_reason: EndReason | null;
  /** Why the evaluation failed to run, distinct from a low score; null when it ran. */
  eval_error: string | null;
  /** What the evaluation said about the outcome. */
  eval_reason: string | null;
  /** Infrastructure error of setup, environment or agent, when there was one. */
  error: string | null;
  teardown_error: string | null;
  /** With `--record`: per environment, its screen recording (`recording-<env>.mp4` in the attempt folder) or why there is none. */
  recordings?: Record<string, { file: string } | { error: string }>;
  messages: unknown[];
  total_tokens: number;
  input_tokens: number;
  output_tokens: number;
  /** Model requests answered with a usable reply. */
  model_requests?: number;
  /** Model request tries that failed (an error status, no reply within --model-timeout, a lost connection, an unusable reply). */
  model_failed_requests?: number;
  /** Model request tries made after a failed one. */
  model_retries?: number;
  /** What the model calls cost in USD, from the price table; null when no price was given. */
  cost_usd?: number | null;
  /** Wall time in milliseconds: all, and split into setup, model, environment (actions) and evaluation. */
  total_timing: { total_ms: number; setup_ms: number; model_ms: number; env_ms: number };
  steps: number;
  max_steps: number;
  max_steps_rule: string;
  agent: string;
  model: string;
  daemon_versions: Record<string, string>;
  environments: Record<string, string>;
  /** How each machine was brought to its clean state before the attempt (provider, method, ms); empty when the pool does not reset. */
  machine_reset: Record<string, { provider: string; method: string; ms: number; why?: string }>;
  attempt: number;
  metrics: Record<string, unknown>;
  started_at: string;
  finished_at: string;
}

/** summary.json: every field of the task, plus `results`. */
export type Summary = Record<string, unknown> & { id: string; results: TaskResults };
