import { existsSync, readdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { InvalidArgumentError as CliArgumentError } from "commander";
import type { Registries } from "../datasets/registries.js";
import type { DatasetTask } from "../datasets/loader.js";
import type { MachinePool } from "../machines/provider.js";
import { type HealthReport, type HealthRunExecutor, measureHealth, poolHealthExecutor, type TaskHealth } from "../health/health.js";
import { newRunId, type RunProgress } from "../runner/runner.js";
import { HEALTH_STATUSES, type HealthStatus } from "../health/taskHealth.js";
import { createProgressPrinter } from "./progress.js";
import { onInterrupt } from "./interrupt.js";

/** `--repeat N`: a whole number ≥ 1, or an error that says what to write. */
export function parseRepeat(v: string): number {
  const n = Number(v);
  if (!/^\s*\d+\s*$/.test(v) || !Number.isInteger(n) || n < 1) {
    throw new CliArgumentError(`--repeat takes how many times each task's solution runs, a whole number ≥ 1 (e.g. --repeat 5); "${v}" is not one`);
  }
  return n;
}

/** `--out DIR` of `check`: a folder that does not exist yet or is empty. */
export function checkOutFolder(dir: string): string {
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new CliArgumentError(`--out ${dir} is not empty: check writes its runs into a new or empty folder; choose another`);
  }
  return dir;
}

/** The default health folder: results/health-<UTC time>. */
export function defaultHealthFolder(): string {
  return join("results", newRunId().replace(/^run-/, "health-"));
}

const LABEL: Record<HealthStatus, string> = {
  healthy: "healthy",
  flaky: "FLAKY",
  broken: "BROKEN",
  too_lenient: "TOO LENIENT",
  unmeasured: "UNMEASURED",
};

/** One task's lines: its status, passes, scores, no-action score and median time; then, unless healthy, its findings and reasons. */
function taskLines(t: TaskHealth): string[] {
  const median = t.medianMs === null ? "no verdict" : `median ${(t.medianMs / 1000).toFixed(2)} s`;
  const noActions = t.noActions.state === "env_error" ? "machine failed" : String(t.noActions.score);
  const head = `${LABEL[t.status].padEnd(11)} ${t.key}: solution passed ${t.passes}/${t.verdicts}${
    t.verdicts < t.runs ? ` (of ${t.runs} runs)` : ""
  } (scores ${t.scores.map((s) => s ?? "machine-failed").join(" ")}), no actions ${noActions}, ${median}`;
  if (t.status === "healthy") return [head];
  const reasons = t.reasons.length > 1 ? [`  reasons: ${t.reasons.map((r) => `${r.count}× ${r.reason}`).join(" | ")}`] : [];
  return [head, ...t.findings.map((f) => `  ${f.kind === "machine_failure" ? "machine" : LABEL[f.kind].toLowerCase()}: ${f.message}`), ...reasons];
}

/** The report for the console: a line per task (in dataset order), details for the unhealthy, and a summary naming them. */
export function healthConsole(report: HealthReport, dir: string): string {
  const lines = report.perTask.flatMap(taskLines);
  const named = HEALTH_STATUSES.filter((s) => s !== "healthy" && report.counts[s] > 0).map(
    (s) =>
      `${LABEL[s].toLowerCase()} ${report.counts[s]}: ${report.perTask
        .filter((t) => t.status === s)
        .map((t) => t.key)
        .join(", ")}`,
  );
  const shown = relative(process.cwd(), dir).startsWith("..") ? resolve(dir) : relative(process.cwd(), dir) || ".";
  lines.push(
    "",
    `${report.counts.healthy} of ${report.tasks} tasks healthy over ${report.repeat} run(s) each${named.length ? `; ${named.join("; ")}` : ""}`,
    `report: ${join(shown, "health.json")}`,
    `page: ${join(shown, "health.html")} (each run's summary.json and run viewer are linked from it)`,
  );
  if (report.counts.unmeasured > 0) {
    lines.push("unmeasured: machines failed in some runs and the rest were sound; that is not the tasks' fault: check them again once the machines are sound");
  }
  return `${lines.join("\n")}\n`;
}

/**
 * Exit code of a health check: 0 when every task is healthy, 1 when a task is not (flaky, broken,
 * too lenient), 3 when only machine failures kept some from being measured.
 */
export function healthExitCode(report: HealthReport): number {
  const { healthy, unmeasured } = report.counts;
  if (healthy + unmeasured < report.tasks) return 1;
  return unmeasured > 0 ? 3 : 0;
}

/** How `pincer check --repeat` runs its runs: given the signal that interrupts them, an executor of runs that prints their progress. */
export type HealthRunsVia = (signal: AbortSignal) => HealthRunExecutor;

/** The runs on a pool of this host's machines, with a progress line per run. */
export function poolHealthRuns(input: { tasks: readonly DatasetTask[]; registries: Registries; pool: MachinePool }): HealthRunsVia {
  return (signal) => {
    let printer: ReturnType<typeof createProgressPrinter> | undefined;
    const onProgress = (_run: string, p: RunProgress) => {
      printer ??= createProgressPrinter();
      printer.update(p);
    };
    const execute = poolHealthExecutor({ ...input, signal, onProgress });
    return async (run) => {
      try {
        await execute(run);
      } finally {
        printer?.end();
        printer = undefined;
      }
    };
  };
}

/**
 * `pincer check --repeat N`: measures each task's health with runs made `via` a pool or a queue,
 * prints the report and returns the exit code (130 when interrupted).
 */
export async function runHealthCheck(
  input: { tasks: readonly DatasetTask[]; repeat: number; out: string; via: HealthRunsVia },
  datasetHasErrors: boolean,
): Promise<number> {
  const interrupt = onInterrupt("interrupted: stopping; the runs so far stay in the folder");
  const execute = input.via(interrupt.signal);
  try {
    const report = await measureHealth({
      tasks: input.tasks,
      repeat: input.repeat,
      outDir: input.out,
      execute: async (run) => {
        process.stderr.write(`${run.runId}: ${run.agent === "none" ? "each task with no actions" : "each task with its solution"}\n`);
        await execute(run);
      },
    });
    process.stdout.write(healthConsole(report, input.out));
    const code = healthExitCode(report);
    return code === 0 && datasetHasErrors ? 1 : code;
  } catch (err) {
    if (interrupt.signal.aborted) return 130;
    throw err;
  } finally {
    interrupt.release();
  }
}
