import { type Command, InvalidArgumentError as CliArgumentError } from "commander";
import { formatProblems, type DatasetTask } from "../datasets/loader.js";
import type { Registries } from "../datasets/registries.js";
import { checkTasks, type TaskCheck } from "../health/check.js";
import { addCredentialOptions } from "./credentials.js";
import { addDatasetOptions, type DatasetCliOptions, loadCliDataset } from "./datasetOptions.js";
import { checkOutFolder, defaultHealthFolder, parseRepeat, poolHealthRuns, runHealthCheck } from "./healthCommand.js";
import { envOption, machinesOption, screenOption } from "./machineOptions.js";
import { addProviderOptions, openCliPool, type MachineCliOptions } from "./pools.js";
import { addQueueOptions, queueHealthRuns } from "./queueCommands.js";

const positiveInt = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new CliArgumentError(`${name} must be a whole number ≥ 1`);
  return n;
};
/** The options of `pincer check`. */
interface CheckCliOptions extends MachineCliOptions, DatasetCliOptions {
  concurrency: number;
  screen: { width: number; height: number };
  repeat?: number;
  out?: string;
  queue?: string;
  queueName: string;
}

/**
 * `check --queue` is a health check on workers: it needs --repeat, and refuses what sets this
 * host's machines (`given`: the options given on the command line).
 */
function checkQueueOptions(o: CheckCliOptions, given: (name: string) => boolean): void {
  if (o.repeat === undefined) {
    throw new CliArgumentError(
      "--queue measures task health on `pincer worker`s and needs --repeat N (--repeat 1: each task's solution once and no actions once, " +
        "with health.json); a check without --repeat runs on this host's machines: leave --queue off",
    );
  }
  const local = ["concurrency", "screen"].filter(given).map((n) => `--${n}`);
  if (local.length > 0) {
    throw new CliArgumentError(`${local.join(", ")} set this host's machines, which check --queue does not use: give them to \`pincer worker\``);
  }
}

async function checkCommand(dir: string, o: CheckCliOptions, given: (name: string) => boolean): Promise<number> {
  if (o.queue) checkQueueOptions(o, given);
  const { registries, dataset } = await loadCliDataset(dir, o);
  if (dataset.problems.length) process.stderr.write(`${formatProblems(dataset.problems)}\n`);
  if (dataset.tasks.length === 0) {
    process.stderr.write("no runnable tasks to check; fix the problems above (pincer validate lists them)\n");
    return 2;
  }
  const out = o.out === undefined ? undefined : checkOutFolder(o.out);
  const errors = dataset.problems.some((p) => p.severity === "error");
  if (o.queue && o.repeat !== undefined) {
    const via = await queueHealthRuns(dir, { ...o, queue: o.queue }, { tasks: dataset.tasks, registries });
    return runHealthCheck({ tasks: dataset.tasks, repeat: o.repeat, out: out ?? defaultHealthFolder(), via }, errors);
  }
  if (o.repeat === undefined) return checkSolutions(dataset.tasks, registries, o, out, errors);
  const pool = await openCliPool(dataset.tasks, o, o.concurrency, o.screen);
  const health = {
    tasks: dataset.tasks,
    repeat: o.repeat,
    out: out ?? defaultHealthFolder(),
    via: poolHealthRuns({ tasks: dataset.tasks, registries, pool }),
  };
  return runHealthCheck(health, errors).finally(() => pool.close());
}

/**
 * `pincer check` without --repeat: each task's solution must score 1 and doing nothing 0. A task
 * without a solution is reported before any machine starts, and only tasks with one are run.
 */
async function checkSolutions(tasks: readonly DatasetTask[], registries: Registries, o: CheckCliOptions, out: string | undefined, errors: boolean) {
  const unsolved = tasks.filter((t) => !t.solution);
  for (const t of unsolved) process.stdout.write(`FAIL ${t.tool}/${t.id}: no solution.json: write the tool calls that solve it beside the task file\n`);
  const solvable = tasks.filter((t) => t.solution);
  let checks: TaskCheck[] = [];
  if (solvable.length > 0) {
    const pool = await openCliPool(solvable, o, o.concurrency, o.screen);
    try {
      checks = await checkTasks({ tasks: solvable, registries, pool, ...(out ? { outDir: out } : {}) });
    } finally {
      await pool.close();
    }
  }
  for (const c of checks) process.stdout.write(`${c.ok ? "ok  " : "FAIL"} ${c.tool}/${c.id}${c.ok ? "" : `: ${c.issues.join("; ")}`}\n`);
  const good = checks.filter((c) => c.ok).length;
  process.stdout.write(`${good} of ${tasks.length} tasks check out\n`);
  return good < tasks.length || errors ? 1 : 0;
}

/** Adds `pincer check` to the program: each task's solution must score 1 and no actions 0 (with --repeat: its health over fresh machines). */
export function registerCheckCommand(program: Command): void {
  const cmd = program
    .command("check")
    .description("run each task with its solution (must score 1) and with no actions (must score 0)")
    .argument("<tasks>", "folder of tasks or one task file")
    .addOption(envOption())
    .addOption(machinesOption())
    .option("--concurrency <n>", "tasks at once", positiveInt("--concurrency"), 1)
    .option("--repeat <n>", "measure each task's health: run its solution N times (and no actions once), each on a clean machine", parseRepeat)
    .option("--out <dir>", "a new or empty folder to keep the runs in (with --repeat: and health.json, health.html; default results/health-<UTC time>)")
    .addOption(screenOption())
    .action(async (dir: string, o: CheckCliOptions, command: Command) => {
      process.exitCode = await checkCommand(dir, o, (name) => command.getOptionValueSource(name) === "cli");
    });
  addDatasetOptions(cmd);
  addCredentialOptions(cmd);
  addProviderOptions(cmd);
  addQueueOptions(cmd);
}
