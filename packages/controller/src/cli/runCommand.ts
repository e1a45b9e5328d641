import { join, dirname, basename, resolve } from "node:path";
import { type Command, InvalidArgumentError as CliArgumentError, Option } from "commander";
import { agentFactory, type AgentChoice, parseMaxHistory, PROGRAM_AGENT, PROVIDER_AGENTS } from "../agents/factory.js";
import type { HistoryOptions } from "../agents/history.js";
import { coverageOf, formatProblems, shownPath, type Dataset } from "../datasets/loader.js";
import type { SettleOptions } from "../env/index.js";
import { redacted } from "../queue/redis.js";
import { reportMarkdown, type Report } from "../reports/report.js";
import { isInfraState } from "../runFolder/results.js";
import { newRunId, runDirOf, runTasks, type RunnerOptions } from "../runner/runner.js";
import { runSettings, type RunSettings } from "../runner/settings.js";
import { addCredentialOptions } from "./credentials.js";
import { addDatasetOptions, type DatasetCliOptions, loadCliDataset } from "./datasetOptions.js";
import { onInterrupt } from "./interrupt.js";
import { LIVE_OPTION_HELP, startCliLive, VNC_OPTION_HELP } from "./liveOption.js";
import { envOption, machinesOption, screenOption } from "./machineOptions.js";
import { addProviderOptions, openCliPool, type MachineCliOptions } from "./pools.js";
import { createProgressPrinter } from "./progress.js";
import { addQueueOptions, runQueueCommand } from "./queueCommands.js";
import { parseSettle } from "./settleOption.js";

const positiveInt = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new CliArgumentError(`${name} must be a whole number ≥ 1`);
  return n;
};
const nonNegativeInt = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new CliArgumentError(`${name} must be a whole number ≥ 0`);
  return n;
};

/** Options of the model-provider agents on `pincer run`. */
interface AgentCliOptions {
  model?: string;
  baseUrl?: string;
  maxHistory?: HistoryOptions;
  price?: string;
  modelTimeout?: number;
  modelRetries?: number;
  agentEnv?: string[];
}

/** The model settings of `pincer run`'s agent options. */
function agentChoiceOf(o: AgentCliOptions): Omit<AgentChoice, "kind"> {
  return {
    ...(o.model ? { model: o.model } : {}),
    ...(o.baseUrl ? { baseUrl: o.baseUrl } : {}),
    ...(o.maxHistory ? { maxHistory: o.maxHistory } : {}),
    ...(o.price ? { price: o.price } : {}),
    ...(o.modelTimeout !== undefined ? { modelTimeoutMs: o.modelTimeout * 1000 } : {}),
    ...(o.modelRetries !== undefined ? { modelRetries: o.modelRetries } : {}),
    ...(o.agentEnv?.length ? { agentEnv: o.agentEnv } : {}),
  };
}

/** Says which valid tasks a run leaves out because they need functions Pincer lacks (never silently). */
function reportLeftOut(dataset: Dataset): void {
  if (dataset.unsupported.length === 0) return;
  const missing = coverageOf(dataset)
    .missing.slice(0, 5)
    .map((m) => `${m.kind} ${m.name}${m.reason ? `, which ${m.reason}` : ""}`);
  process.stderr.write(`${dataset.unsupported.length} valid task(s) left out: they need functions Pincer lacks or does not run (${missing.join("; ")}, …)\n`);
}

/** The options of `pincer run`. */
interface RunCliOptions extends AgentCliOptions, MachineCliOptions, DatasetCliOptions {
  agent: string;
  concurrency: number;
  maxSteps: string;
  out: string;
  runId?: string;
  /** `--live [address]`: serve the live page (true: on loopback, a free port). */
  live?: string | boolean;
  /** `--vnc`: VNC servers for the slots' machines. */
  vnc?: boolean;
  resume: boolean;
  attempts: number;
  rollouts: number;
  taskTimeout: number;
  screenshots: boolean;
  settle: SettleOptions | false | "auto";
  a11y?: true | "text" | "marks";
  record: boolean;
  screen: { width: number; height: number };
  strict: boolean;
  printReport: boolean;
  queue?: string;
  queueName: string;
}

/** The run's settings as the flags of `pincer run` give them: the one place flags become {@link RunSettings}. */
function runSettingsFromFlags(o: RunCliOptions): RunSettings {
  const maxSteps: number | "auto" = o.maxSteps === "auto" ? "auto" : Number(o.maxSteps);
  if (maxSteps !== "auto" && (!Number.isInteger(maxSteps) || maxSteps < 1)) throw new CliArgumentError("--max-steps must be a whole number ≥ 1 or auto");
  return runSettings({
    attempts: o.attempts,
    rollouts: o.rollouts,
    maxSteps,
    taskTimeoutMs: o.taskTimeout * 1000,
    screenshots: o.screenshots,
    settle: o.settle,
    ...(o.a11y ? { accessibility: o.a11y === true ? "text" : o.a11y } : {}),
    record: o.record,
  });
}

async function runCommand(dir: string, program: string[], o: RunCliOptions): Promise<number> {
  if (program.length > 0 && o.agent !== PROGRAM_AGENT) throw new CliArgumentError(`a program after -- is run with --agent command; --agent is ${o.agent}`);
  const { registries, dataset } = await loadCliDataset(dir, o);
  if (dataset.problems.length) process.stderr.write(`${formatProblems(dataset.problems)}\n`);
  reportLeftOut(dataset);
  if (dataset.tasks.length === 0) {
    process.stderr.write("no runnable tasks; fix the problems above (pincer validate lists them)\n");
    return 2;
  }
  const settings = runSettingsFromFlags(o);
  // Before any machine starts: a run to resume must be named and exist.
  runDirOf({ outDir: o.out, resume: o.resume, ...(o.runId ? { runId: o.runId } : {}) });
  if (o.agent === "scripted") {
    const without = dataset.tasks.filter((t) => !t.solution).map((t) => t.id);
    if (without.length) process.stderr.write(`warning: no solution.json for ${without.join(", ")}: the scripted agent takes no action there\n`);
  }
  if (o.queue) {
    if (o.vnc) throw new CliArgumentError("--vnc serves this host's machines; with --queue the workers have them: give --vnc to pincer worker");
    const agent = { kind: o.agent, ...agentChoiceOf(o), ...(program.length ? { command: program } : {}) };
    const done = await runQueueCommand(dir, { ...o, queue: o.queue }, { tasks: dataset.tasks, registries, agent, settings });
    return done === "interrupted" ? 130 : finishRun(done, o);
  }
  let agentFor: ReturnType<typeof agentFactory>;
  try {
    agentFor = agentFactory({ kind: o.agent, ...agentChoiceOf(o), ...(program.length ? { command: program } : {}) });
  } catch (err) {
    throw new CliArgumentError((err as Error).message);
  }
  const interrupt = onInterrupt("interrupted: stopping running tasks (their attempts are redone by --resume)");
  // --a11y: local machines get the buses the accessibility tree is read from.
  // A model looks at the screens (and --a11y reads the desktop): remote machines must show theirs before the first task.
  const needsScreen = !["scripted", "none"].includes(o.agent) || o.a11y !== undefined;
  const pool = await openCliPool(dataset.tasks, o, o.concurrency, { ...o.screen, needsScreen, ...(o.a11y ? { accessibilityBus: true } : {}) });
  const printer = createProgressPrinter();
  const runId = o.runId ?? newRunId();
  const vnc = o.vnc ? { vnc: Object.keys(pool.slots[0]?.envs ?? {}) } : {};
  const live = await startCliLive(o.live, pool.slots.length, { title: `pincer run ${runId}`, ...vnc }).catch(async (err: unknown) => {
    await pool.close();
    throw err;
  });
  try {
    const opts: RunnerOptions = {
      tasks: dataset.tasks,
      registries,
      pool,
      agentFor,
      outDir: o.out,
      runId,
      resume: o.resume,
      dataset: { root: dataset.root, formats: (o.format ?? []).map((f) => resolve(f)) },
      ...settings,
      signal: interrupt.signal,
      onProgress: (p) => printer.update(p),
      ...(live ? { live: live.board } : {}),
    };
    const done = await runTasks(opts);
    printer.end();
    return finishRun(done, o);
  } catch (err) {
    printer.end();
    if (interrupt.signal.aborted) {
      process.stderr.write(`run interrupted; continue it with: pincer run ${dir} --resume --run-id ${runId} --out ${o.out}\n`);
      return 130;
    }
    throw err;
  } finally {
    interrupt.release();
    await live?.close();
    await pool.close();
  }
}

/** Prints where a finished run's results are and its figures; returns the exit code. */
function finishRun({ runDir, report }: { runDir: string; report: Report }, o: { printReport: boolean; strict: boolean; queue?: string }): number {
  if (o.printReport) process.stdout.write(`\n${reportMarkdown(report)}`);
  process.stdout.write(`\nresults: ${shownPath(runDir)}\n`);
  process.stdout.write(`viewer: ${shownPath(join(runDir, "report.html"))} (each task step by step, in a browser)\n`);
  process.stdout.write(
    `tasks ${report.tasks}: passed ${report.passed}, failed ${report.failed}, errors ${report.errors}; success rate ` +
      `${(report.successRate * 100).toFixed(1)}%, mean score ${report.meanScore.toFixed(3)}\n`,
  );
  return exitCode(report, o.strict, runDir, o.queue);
}

/** Exit code of a finished run: 3 when tasks ended in infrastructure errors (each printed with its reason), else 1 under --strict unless all passed. */
function exitCode(report: Report, strict: boolean, runDir: string, queue?: string): number {
  const infra = report.perTask.filter((t) => isInfraState(t.state));
  if (infra.length > 0) {
    process.stderr.write(`\n${infra.length} task(s) ended in an infrastructure error, not a verdict on the agent:\n`);
    for (const t of infra) process.stderr.write(`  ${t.tool}/${t.id}: ${t.state} after ${t.attempts} attempt(s): ${t.error ?? "no reason recorded"}\n`);
    // A queue run resumes over its queue; a password in its URL is not printed.
    const hidden = queue && redacted(queue) !== queue ? " (with the queue's password in place of ***)" : "";
    const again = `--resume --run-id ${basename(runDir)} --out ${shownPath(dirname(runDir))}${queue ? ` --queue ${redacted(queue)}` : ""}${hidden}`;
    process.stderr.write(`fix the cause and run them again with ${again} (tasks with a verdict are kept)\n`);
    return 3;
  }
  return strict && report.passed !== report.tasks ? 1 : 0;
}

/** Adds `pincer run` to the program: a dataset's tasks on machines here (or through a queue), results in a run folder. */
export function registerRunCommand(program: Command): void {
  const cmd = program
    .command("run")
    .description("run a dataset of tasks and write results")
    .argument("<tasks>", "folder of tasks (<tool>/<id>/<id>.json, *.task.ts) or one task file")
    .argument("[program...]", "with --agent command: the agent program and its arguments, after --")
    .addOption(envOption())
    .addOption(machinesOption())
    .addOption(
      new Option(
        "--agent <agent>",
        `who acts: scripted (replays solution.json), none (takes no action), command (the MCP program after --), or a model: ${PROVIDER_AGENTS.join(", ")}`,
      ).default("scripted"),
    )
    .option("--model <name>", "model name, for the model agents")
    .option(
      "--agent-env <name>",
      "with --agent command: pass this variable of the runner's environment to the program (repeatable); it gets no other",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option("--base-url <url>", "model API endpoint, e.g. http://localhost:8000/v1 (default: OPENAI_BASE_URL / ANTHROPIC_BASE_URL, else the provider's)")
    .option("--max-history <turns[:screenshots]>", "turns resent to the model, and how many of the newest screenshots (default 50:3)", (v: string) =>
      parseMaxHistory(v),
    )
    .option("--model-timeout <seconds>", "deadline of each try of a model request (default 120); --task-timeout bounds all", positiveInt("--model-timeout"))
    .option("--model-retries <n>", "tries after a failed model request: 5xx, 429, no reply, an unusable reply (default 2)", nonNegativeInt("--model-retries"))
    .option("--price <in:out|file.json>", "USD per million input:output tokens, or a JSON file {model: {input, output}}; adds cost to the results")
    .option("--concurrency <n>", "tasks at once (local: slots started; remote: at most the addresses per name)", positiveInt("--concurrency"), 1)
    .option("--max-steps <n|auto>", "step limit: a number, or auto = 2 × action_number + 5 (50 without one)", "auto")
    .option("--out <dir>", "folder for run folders", "results")
    .option("--run-id <id>", "name of the run folder (default: run-<UTC time>)")
    .option("--resume", "continue the run named by --run-id: finished tasks are kept, the rest run", false)
    .option("--attempts <k>", "attempts per task; only infrastructure errors are retried", positiveInt("--attempts"), 1)
    .option("--rollouts <n>", "independent rollouts of every task, each on a clean machine (pass@k, best-of-N in the report)", positiveInt("--rollouts"), 1)
    .option("--task-timeout <seconds>", "wall-clock limit of the agent's part of a task, its model's time included", positiveInt("--task-timeout"), 600)
    .option("--no-screenshots", "do not save a screenshot before each turn")
    .option("--record", "record each machine's screen while the agent works (ffmpeg on the machine) into recording-<env>.mp4 per attempt", false)
    .addOption(
      new Option(
        "--a11y [mode]",
        "send each machine's accessibility tree (AT-SPI, linearised) with every observation; marks: also number the widgets and draw their boxes " +
          "on the screenshots (set-of-marks)",
      ).choices(["text", "marks"]),
    )
    .addOption(
      new Option(
        "--settle <auto|off|quiet[:initial[:max]]>",
        "before each turn's screenshots, wait until the screen has not changed for QUIET ms (INITIAL ms while nothing has changed since the last " +
          "screenshot), at most MAX ms; auto = 300:1500:5000 for model agents, off for the scripted one",
      )
        .argParser(parseSettle)
        .default("auto"),
    )
    .addOption(screenOption())
    .option("--live [address]", LIVE_OPTION_HELP)
    .option("--vnc", VNC_OPTION_HELP)
    .option("--strict", "exit with 1 unless every task passed", false)
    .option("--print-report", "print report.md at the end", false)
    .action(async (dir: string, program: string[], o) => {
      process.exitCode = await runCommand(dir, program, o);
    });
  addDatasetOptions(cmd);
  addCredentialOptions(cmd);
  addProviderOptions(cmd);
  addQueueOptions(cmd);
}
