import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScriptedAgent } from "../agents/scripted.js";
import { TOOL_SEPARATOR } from "../actions/names.js";
import type { DatasetTask } from "../datasets/format.js";
import type { Registries } from "../datasets/registries.js";
import type { MachinePool } from "../machines/provider.js";
import type { PerTask } from "../reports/report.js";
import { ResultStore } from "../runFolder/results.js";
import { runTasks } from "../runner/runner.js";

/** Options of {@link checkTasks}. */
export interface CheckOptions {
  tasks: readonly DatasetTask[];
  registries: Registries;
  pool: MachinePool;
  /** Where the two runs are written while they last. @default a temporary folder, removed at the end */
  outDir?: string;
  signal?: AbortSignal;
}

/** What `check` found of one task. */
export interface TaskCheck {
  tool: string;
  id: string;
  /** Its solution scored 1 and doing nothing scored 0. */
  ok: boolean;
  /** What is wrong, each saying who is at fault (the task, its solution, or the machine). */
  issues: string[];
  /** The run of its solution, and the run with no action. */
  withSolution: PerTask;
  withoutActions: PerTask;
}

/**
 * Proves tasks: each one's solution must score 1 and doing nothing must score 0, each attempt on a
 * clean machine from the pool. Says for each task what is wrong and who is at fault.
 */
export async function checkTasks(opts: CheckOptions): Promise<TaskCheck[]> {
  const out = opts.outDir ?? (await mkdtemp(join(tmpdir(), "pincer-check-")));
  try {
    const base = { tasks: opts.tasks, registries: opts.registries, pool: opts.pool, outDir: out, screenshots: false, maxSteps: "auto" as const };
    const signal = opts.signal ? { signal: opts.signal } : {};
    const solved = await runTasks({ ...base, ...signal, runId: "with-solution", agentFor: (t) => new ScriptedAgent(t.solution ?? []) });
    const idle = await runTasks({ ...base, ...signal, runId: "no-actions", agentFor: () => new ScriptedAgent([]) });
    const store = new ResultStore(solved.runDir);
    const checks: TaskCheck[] = [];
    for (const t of opts.tasks) {
      const withSolution = solved.report.perTask.find((p) => p.id === t.id)!;
      const withoutActions = idle.report.perTask.find((p) => p.id === t.id)!;
      const issues: string[] = [];
      if (!t.solution) issues.push("no solution.json");
      else if (withSolution.score !== 1) {
        issues.push(`its solution scores ${withSolution.score} (${withSolution.state}): ${await whySolutionFailed(store, t)}`);
      }
      if (withoutActions.state === "env_error") issues.push(`with no actions, its machine failed: ${withoutActions.error ?? "no reason recorded"}`);
      else if (withoutActions.score !== 0) issues.push(`with no actions it scores ${withoutActions.score} (${withoutActions.state}): it passes by itself`);
      checks.push({ tool: t.tool, id: t.id, ok: issues.length === 0, issues, withSolution, withoutActions });
    }
    return checks;
  } finally {
    if (!opts.outDir) await rm(out, { recursive: true, force: true });
  }
}

/**
 * Why a task's solution did not pass, from its last attempt's summary and trajectory: a machine
 * that failed (neither is at fault), the step that failed and its error (the solution is at fault),
 * a setup or evaluator error (the task is), or the evaluation's verdict after every step ran (one of
 * the two is wrong).
 */
export async function whySolutionFailed(store: ResultStore, task: Pick<DatasetTask, "tool" | "id">): Promise<string> {
  const last = (await store.finishedAttempts(task.tool, task.id)).at(-1);
  if (!last) return "it did not run";
  const r = last.summary.results;
  if (r.state === "env_error") {
    return `its machine failed: ${r.error ?? "no reason recorded"} (neither the task nor its solution is at fault; check it again once the machine is sound)`;
  }
  if (r.state === "setup_error") return `the task's setup failed, before any step: ${r.error ?? "no reason recorded"} (the task is at fault)`;
  if (r.state === "eval_error") {
    return `the task's evaluation failed to run: ${r.eval_error ?? r.error ?? "no reason recorded"} (the task is at fault)`;
  }
  const lines = await store.readTrajectory(task.tool, task.id, last.attempt);
  const failed = lines.find((l) => l.ok === false);
  if (failed) return `step ${failed.step} (${failed.tool}) failed: ${failed.error?.message ?? "no message"} (the solution is at fault)`;
  if (r.error) return r.error;
  const verdict = r.eval_reason ?? "no reason given";
  const lastTool = lines.filter((l) => typeof l.tool === "string").at(-1)?.tool;
  return `every step ran, and the evaluation says: ${verdict} (the solution does not reach the goal, or the expected result is wrong)${raceHint(lastTool)}`;
}

/** Actions whose effect a program makes after the action returns: a solution that ends on one may be judged too early. */
const ASYNC_ACTIONS = new Set(["launch", "open", "type", "key", "click", "double_click", "right_click", "drag", "scroll"]);

/** What to do when a solution's last step hands work to a program that may still be doing it. */
function raceHint(tool: string | undefined): string {
  const action = tool?.slice(tool.indexOf(TOOL_SEPARATOR) + TOOL_SEPARATOR.length);
  if (!tool || !action || !ASYNC_ACTIONS.has(action)) return "";
  return (
    `; its last step, ${tool}, hands work to a program that may still be doing it when the evaluation runs: ` +
    `wait for the result before the solution ends (${tool.slice(0, tool.indexOf(TOOL_SEPARATOR))}__wait_for with window_title, window_class ` +
    "or file; wait with seconds as a last resort), " +
    "or give check_window_exists a wait"
  );
}
