import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Command, InvalidArgumentError as CliArgumentError, Option } from "commander";
import { shownPath } from "../datasets/loader.js";
import { solutionFileOf, solutionSchema } from "../datasets/solutions.js";
import { readSummary, readTrajectory, writeJsonAtomic } from "../runFolder/runFiles.js";
import { DemonstrationAgent, solutionFromDemonstration } from "../runner/demonstration.js";
import { newRunId, runDirOf, runTasks } from "../runner/runner.js";
import { addDatasetOptions, type DatasetCliOptions, loadCliDataset } from "./datasetOptions.js";
import { onInterrupt } from "./interrupt.js";
import { startCliLive } from "./liveOption.js";
import { envOption, machinesOption, screenOption } from "./machineOptions.js";
import { addProviderOptions, type MachineCliOptions, openCliPool } from "./pools.js";

/** The options of `pincer record`. */
interface RecordCliOptions extends MachineCliOptions, DatasetCliOptions {
  live: string | boolean;
  out: string;
  solution?: string;
  force: boolean;
  taskTimeout: number;
  a11y?: boolean;
  screen: { width: number; height: number };
}

/** The one task to record and the file its solution goes to; a clear error otherwise, before any machine starts. */
async function taskToRecord(target: string, o: RecordCliOptions) {
  const { registries, dataset } = await loadCliDataset(target, o);
  if (dataset.tasks.length !== 1) {
    const ids = dataset.tasks.slice(0, 8).map((t) => `${t.tool}/${t.id}`);
    const which = dataset.tasks.length === 0 ? "no runnable task" : `${dataset.tasks.length} tasks (${ids.join(", ")}${dataset.tasks.length > 8 ? ", …" : ""})`;
    throw new CliArgumentError(`pincer record records one task; ${target} has ${which}: name one with --task ID`);
  }
  const task = dataset.tasks[0]!;
  const file = o.solution ?? solutionFileOf(task);
  if (!file) throw new CliArgumentError(`tasks of the ${task.kind} format keep their solutions elsewhere: give the file to write with --solution FILE`);
  if (existsSync(file) && !o.force) {
    throw new CliArgumentError(`${shownPath(file)} exists: pass --force to replace it, or --solution FILE to write elsewhere`);
  }
  return { registries, task, file };
}

/**
 * `pincer record TASK`: a clean machine with the task's setup, the live page taken over from the
 * start; the person does the task and says done; the task is evaluated on the screen they left,
 * and when it passed their actions become the task's solution (in its format's place). The
 * demonstration stays a run folder (screens, accessibility trees with --a11y, the person's actions).
 */
async function recordCommand(target: string, o: RecordCliOptions): Promise<number> {
  const { registries, task, file } = await taskToRecord(target, o);
  const runId = `record-${task.id}-${newRunId().slice(4)}`;
  runDirOf({ outDir: o.out, runId });
  const interrupt = onInterrupt("interrupted: the demonstration is dropped; nothing was written");
  const pool = await openCliPool([task], o, 1, { ...o.screen, needsScreen: true, ...(o.a11y ? { accessibilityBus: true } : {}) });
  try {
    const live = await startCliLive(o.live, 1, { title: `pincer record ${task.tool}/${task.id}`, mode: "record", startTakenOver: true });
    process.stderr.write(`open the page, do the task "${task.instruction}" on its screen, then press "Done: evaluate"\n`);
    try {
      const { runDir } = await runTasks({
        tasks: [task],
        registries,
        pool,
        agentFor: () => new DemonstrationAgent(),
        outDir: o.out,
        runId,
        taskTimeoutMs: o.taskTimeout * 1000,
        screenshots: true,
        settle: false,
        ...(o.a11y ? { accessibility: "text" as const } : {}),
        ...(live ? { live: live.board } : {}),
        signal: interrupt.signal,
      });
      return await writeDemonstration(join(runDir, task.tool, task.id, "attempt-1"), file, runDir);
    } finally {
      await live?.close();
    }
  } catch (err) {
    if (interrupt.signal.aborted) return 130;
    throw err;
  } finally {
    interrupt.release();
    await pool.close();
  }
}

/** Writes the solution of a demonstration that passed; says why nothing was written otherwise. */
async function writeDemonstration(attemptDir: string, file: string, runDir: string): Promise<number> {
  const summary = await readSummary(attemptDir);
  const r = summary.results;
  const calls = solutionFromDemonstration(await readTrajectory(attemptDir));
  process.stdout.write(
    `demonstration: ${r.state} (score ${r.score.toFixed(2)})${r.eval_reason ? `: ${r.eval_reason}` : ""}; ${r.human?.steps ?? 0} action(s)\n`,
  );
  process.stdout.write(`recorded: ${shownPath(runDir)} (screens and actions; report.html shows them)\n`);
  if (r.state !== "passed") {
    process.stderr.write(`no solution written: the task did not pass on the screen as it was left; record it again\n`);
    return 1;
  }
  if (calls.length === 0) {
    process.stderr.write("no solution written: no action was recorded\n");
    return 1;
  }
  // Whole or not at all: a reader sees the old solution or the new one.
  await writeJsonAtomic(file, solutionSchema.parse(calls));
  process.stdout.write(`solution: ${calls.length} step(s) written to ${shownPath(file)}; prove it on fresh machines with pincer check\n`);
  return 0;
}

/** Adds `pincer record` to the program. */
export function registerRecordCommand(program: Command): void {
  const cmd = program
    .command("record")
    .description("write a task's solution by doing it: a clean machine with its setup, a live page to drive it, the actions kept as the solution")
    .argument("<task>", "a task file, or a folder with one task (or name it with --task)")
    .addOption(envOption())
    .addOption(machinesOption())
    .option("--live <address>", "where the page is served (beyond loopback it needs a token: PINCER_LIVE_TOKEN, or one made and printed)", "127.0.0.1:0")
    .option("--solution <file>", "write the solution here instead of the task format's place (solution.json beside a JSON task, …)")
    .option("--force", "replace a solution that exists", false)
    .option("--a11y", "keep each machine's accessibility tree after every action in the recording", false)
    .option("--out <dir>", "folder for the recording's run folder", "results")
    .addOption(
      new Option("--task-timeout <seconds>", "how long the demonstration may take")
        .argParser((v: string) => {
          const n = Number(v);
          if (!Number.isInteger(n) || n < 1) throw new CliArgumentError("--task-timeout must be a whole number ≥ 1");
          return n;
        })
        .default(1800),
    )
    .addOption(screenOption())
    .action(async (target: string, o: RecordCliOptions) => {
      process.exitCode = await recordCommand(target, o);
    });
  addDatasetOptions(cmd);
  addProviderOptions(cmd);
}
