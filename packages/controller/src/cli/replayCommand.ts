import { join, relative, resolve } from "node:path";
import { type Command, InvalidArgumentError as CliArgumentError, Option } from "commander";
import type { SettleOptions } from "../env/index.js";
import type { TaskComparison } from "../replay/stepDifferences.js";
import { DEFAULT_SCREEN_THRESHOLD, type ReplayReport } from "../replay/stepDifferences.js";
import { replayRun } from "../replay/replay.js";
import { loadReplaySource, readRunManifest } from "../replay/source.js";
import { newRunId } from "../runner/runner.js";
import { addCredentialOptions } from "./credentials.js";
import { cliRegistries } from "./datasetOptions.js";
import { envOption, machinesOption, parseScreen } from "./machineOptions.js";
import { addProviderOptions, openCliPool, type MachineCliOptions } from "./pools.js";
import { createProgressPrinter } from "./progress.js";
import { parseSettle } from "./settleOption.js";
import { importTaskModule } from "../datasets/moduleImport.js";
import { onInterrupt } from "./interrupt.js";

/** The options of `pincer replay`. */
interface ReplayCliOptions extends MachineCliOptions {
  task: string[];
  dataset?: string;
  out: string;
  runId?: string;
  attempts: number;
  concurrency: number;
  screenThreshold: number;
  screenshots: boolean;
  settle: SettleOptions | false | "auto";
  screen?: { width: number; height: number };
}

const collect = (v: string, prev: string[]) => [...prev, v];

function positiveInt(flag: string) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new CliArgumentError(`${flag} must be a whole number ≥ 1`);
    return n;
  };
}

function fraction(v: string): number {
  const n = Number(v);
  if (!(n >= 0 && n <= 1) || v.trim() === "") throw new CliArgumentError("--screen-threshold is a fraction of the pixels, from 0 to 1 (e.g. 0.01 for 1%)");
  return n;
}

/** One line of a task whose replay differs: what differs of the outcome, and the first diverging step. */
function differenceLine(c: TaskComparison): string {
  const d = c.first_divergence;
  const step = d ? `first diverging step ${d.step} (${d.tool}): ${d.differences.map((x) => x.detail).join("; ")}` : "no step differs";
  return `  ${c.task}: ${[...c.outcome_differences, step].join("; ")}\n`;
}

/** Prints what the replay found: the tasks whose outcome differs, then those that only diverged at a step. */
function printReplay(replay: ReplayReport, runDir: string): void {
  const out = process.stdout;
  const different = replay.per_task.filter((c) => c.outcome === "different");
  const stepsOnly = replay.per_task.filter((c) => c.outcome === "same" && c.first_divergence);
  out.write(
    `\nreplay of ${replay.replay_of.run_id}: ${replay.tasks} task(s); ${replay.same_outcome} with the same outcome (score and state), ` +
      `${different.length} different; ${replay.diverged} diverged at some step\n`,
  );
  if (different.length > 0) {
    out.write("outcome differs:\n");
    for (const c of different) out.write(differenceLine(c));
  }
  if (stepsOnly.length > 0) {
    out.write("same outcome, but a step differs:\n");
    for (const c of stepsOnly) out.write(differenceLine(c));
  }
  const shown = (p: string) => (relative(process.cwd(), p).startsWith("..") ? resolve(p) : relative(process.cwd(), p) || ".");
  out.write(`results: ${shown(runDir)} (replay.json: each task beside its original)\n`);
  out.write(`comparison: ${shown(join(runDir, "compare.html"))} (the replay beside its original, step by step, in a browser)\n`);
}

async function replayCommand(runDir: string, o: ReplayCliOptions): Promise<number> {
  const manifest = await readRunManifest(runDir);
  const registries = await cliRegistries(manifest.dataset?.formats ?? []);
  const source = await loadReplaySource(runDir, { registries, tasks: o.task, importModule: importTaskModule, ...(o.dataset ? { dataset: o.dataset } : {}) });
  for (const w of source.warnings) process.stderr.write(`warning: ${w}\n`);
  const runId = o.runId ?? newRunId();
  const interrupt = onInterrupt("interrupted: stopping the replay");
  const screen = o.screen ?? source.screen ?? { width: 1280, height: 800 };
  const pool = await openCliPool(
    source.tasks.map((t) => t.task),
    o,
    o.concurrency,
    screen,
  );
  const printer = createProgressPrinter();
  try {
    const done = await replayRun({
      source,
      pool,
      registries,
      outDir: o.out,
      runId,
      attempts: o.attempts,
      screenshots: o.screenshots,
      ...(o.settle !== "auto" ? { settle: o.settle } : {}),
      screenThreshold: o.screenThreshold,
      signal: interrupt.signal,
      onProgress: (p) => printer.update(p),
    });
    printer.end();
    printReplay(done.replay, done.runDir);
    return done.replay.same_outcome === done.replay.tasks ? 0 : 1;
  } catch (err) {
    printer.end();
    if (interrupt.signal.aborted) {
      process.stderr.write(`replay interrupted: ${join(o.out, runId)} is incomplete; replay again with another --run-id\n`);
      return 130;
    }
    throw err;
  } finally {
    interrupt.release();
    await pool.close();
  }
}

/** `pincer replay RUN_DIR`: re-runs a finished run's recorded actions on fresh machines and compares. */
export function registerReplayCommand(program: Command): void {
  const cmd = program
    .command("replay")
    .description(
      "re-run a finished run's recorded actions, with the recorded waits, on fresh machines without a model; evaluate again and name " +
        "each task's first step that diverges (replay.json, compare.html)",
    )
    .argument("<run_dir>", "a finished run folder, as pincer run writes it (e.g. results/run-20260101-120000)")
    .addOption(
      new Option("--task <pattern>", "only these tasks of the run: an id or tool/id, * and ? as wildcards (repeat for several)")
        .argParser(collect)
        .default([], "all"),
    )
    .option("--dataset <dir>", "load the tasks from this folder instead of the one the run recorded (a dataset that moved)")
    .addOption(envOption())
    .addOption(machinesOption())
    .option("--concurrency <n>", "tasks at once", positiveInt("--concurrency"), 1)
    .option("--out <dir>", "folder for the replay's run folder", "results")
    .option("--run-id <id>", "name of the replay's run folder (default: run-<UTC time>)")
    .option("--attempts <k>", "attempts per task; only infrastructure errors are retried", positiveInt("--attempts"), 1)
    .addOption(
      new Option("--screen-threshold <fraction>", "a screen differs when more than this fraction of its pixels differ")
        .argParser(fraction)
        .default(DEFAULT_SCREEN_THRESHOLD),
    )
    .option("--no-screenshots", "do not save a screenshot before each turn (the screens are then not compared)")
    .addOption(
      new Option("--settle <auto|off|quiet[:initial[:max]]>", "the wait for each screen to settle before its screenshot; auto = as the recorded run waited")
        .argParser(parseSettle)
        .default("auto"),
    )
    .addOption(
      new Option("--screen <WxH>", "screen size of local machines (default: the size the recorded run's screenshots show, else 1280x800)").argParser(
        parseScreen,
      ),
    )
    .action(async (runDir: string, o: ReplayCliOptions) => {
      process.exitCode = await replayCommand(runDir, o);
    });
  addCredentialOptions(cmd);
  addProviderOptions(cmd);
}
