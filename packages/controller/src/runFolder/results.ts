import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { appendTrajectoryLine, readSummary, readTrajectory, writeJsonAtomic } from "./runFiles.js";
import { INFRA_STATES, type InfraState, type Summary, type TrajectoryLine } from "./schemas.js";

export { AGENT_STATES, INFRA_STATES, TASK_STATES } from "./schemas.js";
export type { AgentState, InfraState, Summary, TaskResults, TaskState } from "./schemas.js";

/**
 * The result folder of one run:
 * `<runDir>/manifest.json`, `<runDir>/report.json`, `<runDir>/report.md`, `<runDir>/report.html` (the run viewer), and per task attempt
 * `<runDir>/<tool>/<id>/attempt-<n>/{summary.json, trajectory.jsonl, screenshots/}`; in a run of
 * several rollouts per task (`--rollouts N`, N > 1) each rollout has its own attempts:
 * `<runDir>/<tool>/<id>/rollout-<r>/attempt-<n>/` (see {@link ResultStore.forRollout}).
 * An attempt counts as finished only once its summary.json exists; summaries are written
 * atomically (temporary file, fsync, rename), so a crash never leaves half of one.
 */
export class ResultStore {
  constructor(
    readonly runDir: string,
    /** The rollout whose attempts this store reads and writes (`rollout-<r>/` under each task); undefined: the task's own attempts. */
    readonly rollout?: number,
  ) {}

  /** The store of rollout `r`'s attempts in the same run folder; undefined: the task's own attempts (a run of one rollout). */
  forRollout(r: number | undefined): ResultStore {
    return r === this.rollout ? this : new ResultStore(this.runDir, r);
  }

  taskDir(tool: string, id: string): string {
    return join(this.runDir, tool, id);
  }

  /** The folder holding this store's attempts of a task: the task's folder, or its rollout's. */
  attemptsDir(tool: string, id: string): string {
    const dir = this.taskDir(tool, id);
    return this.rollout === undefined ? dir : join(dir, `rollout-${this.rollout}`);
  }

  attemptDir(tool: string, id: string, attempt: number): string {
    return join(this.attemptsDir(tool, id), `attempt-${attempt}`);
  }

  /** The rollouts a task has folders of (`rollout-<r>/`), in order; empty in a run of one rollout. */
  async rolloutsOf(tool: string, id: string): Promise<number[]> {
    const dir = this.taskDir(tool, id);
    if (!existsSync(dir)) return [];
    const found = (await readdir(dir)).map((name) => /^rollout-(\d+)$/.exec(name)).filter((m) => m !== null);
    return found.map((m) => Number(m[1])).sort((a, b) => a - b);
  }

  /** Writes JSON atomically: a reader sees the old file or the whole new one, never a part. */
  async writeJsonAtomic(path: string, value: unknown): Promise<void> {
    await writeJsonAtomic(path, value);
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

  /** Appends a line to the trajectory of the attempt in `dir` (see appendTrajectoryLine). */
  async appendTrajectory(dir: string, line: TrajectoryLine): Promise<void> {
    await appendTrajectoryLine(dir, line);
  }

  /** Finished attempts of a task (those with a summary), oldest first. */
  async finishedAttempts(tool: string, id: string): Promise<Array<{ attempt: number; summary: Summary }>> {
    const dir = this.attemptsDir(tool, id);
    if (!existsSync(dir)) return [];
    const out: Array<{ attempt: number; summary: Summary }> = [];
    for (const name of await readdir(dir)) {
      const m = /^attempt-(\d+)$/.exec(name);
      // An attempt is finished once its summary exists (written last, atomically).
      if (m && existsSync(join(dir, name, "summary.json"))) out.push({ attempt: Number(m[1]), summary: await readSummary(join(dir, name)) });
    }
    return out.sort((a, b) => a.attempt - b.attempt);
  }

  /** The trajectory of an attempt, one object a line; empty when it has none. */
  async readTrajectory(tool: string, id: string, attempt: number): Promise<TrajectoryLine[]> {
    return readTrajectory(this.attemptDir(tool, id, attempt));
  }
}

/** Whether `state` is an infrastructure failure (one of {@link INFRA_STATES}). */
export function isInfraState(state: string): state is InfraState {
  return (INFRA_STATES as readonly string[]).includes(state);
}
