import { loadTlsFiles, readTokenFile, type TlsOptions } from "@pincer/shared";
import { resolve } from "node:path";
import { type Command, InvalidArgumentError as CliArgumentError, Option } from "commander";
import type { SettleOptions } from "../env/index.js";
import { formatProblems } from "../datasets/loader.js";
import { MachineAccess } from "../episodes/machineAccess.js";
import { DEFAULT_LISTEN, startEpisodeServer } from "../episodes/server.js";
import { EpisodeService } from "../episodes/service.js";
import { ResultStore } from "../runFolder/results.js";
import { finishManifest, startManifest } from "../runFolder/runFiles.js";
import { openRunDir, runDirOf, taskFileHash } from "../runner/runner.js";
import { runSettings, runSettingsRecord } from "../runner/settings.js";
import { addDatasetOptions, type DatasetCliOptions, loadCliDataset } from "./datasetOptions.js";
import { onInterrupt } from "./interrupt.js";
import { type CliLive, LIVE_OPTION_HELP, startCliLive, VNC_OPTION_HELP } from "./liveOption.js";
import { envOption, machinesOption, screenOption } from "./machineOptions.js";
import { addProviderOptions, openMachinePool, type MachineCliOptions } from "./pools.js";
import { parseSettle } from "./settleOption.js";
import { environmentsOf } from "../runner/attempt.js";

const positiveInt = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new CliArgumentError(`${name} must be a whole number ≥ 1`);
  return n;
};

/** The options of `pincer serve`. */
interface ServeCliOptions extends MachineCliOptions, DatasetCliOptions {
  listen: string;
  tokenFile?: string;
  machineTokenFile?: string;
  grantMachines?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  tlsClientCa?: string;
  a11yBus?: boolean;
  concurrency: number;
  maxSteps: string;
  taskTimeout: number;
  out: string;
  runId?: string;
  screenshots: boolean;
  settle: SettleOptions | false | "auto";
  screen: { width: number; height: number };
  live?: string | boolean;
  vnc?: boolean;
}

/** The token of `--token-file` (its shape checked as the daemon checks its own); a file others can read is warned about. */
function readToken(file: string): string {
  try {
    const { token, warning } = readTokenFile(file);
    if (warning) process.stderr.write(`warning: ${warning}\n`);
    return token;
  } catch (err) {
    throw new CliArgumentError((err as Error).message);
  }
}

/** The server's TLS files, read; a bad one is a usage error that names its flag. */
function tlsOf(o: ServeCliOptions): TlsOptions | undefined {
  try {
    return loadTlsFiles({ cert: o.tlsCert, key: o.tlsKey, clientCa: o.tlsClientCa });
  } catch (err) {
    throw new CliArgumentError((err as Error).message);
  }
}

async function serveCommand(dir: string, o: ServeCliOptions): Promise<number> {
  const token = o.tokenFile ? readToken(o.tokenFile) : undefined;
  const tls = tlsOf(o);
  const { registries, dataset } = await loadCliDataset(dir, o);
  if (dataset.problems.length) process.stderr.write(`${formatProblems(dataset.problems)}\n`);
  const maxSteps: number | "auto" = o.maxSteps === "auto" ? "auto" : Number(o.maxSteps);
  if (maxSteps !== "auto" && (!Number.isInteger(maxSteps) || maxSteps < 1)) throw new CliArgumentError("--max-steps must be a whole number ≥ 1 or auto");
  const settings = runSettings({ maxSteps, taskTimeoutMs: o.taskTimeout * 1000, screenshots: o.screenshots, settle: o.settle });
  runDirOf({ outDir: o.out, ...(o.runId ? { runId: o.runId } : {}) });
  const interrupt = onInterrupt("stopping: closing every episode");
  // Every slot has the machines of every task, and a desktop for OSWorld tasks sent whole.
  const names = [...new Set(["desktop", ...dataset.tasks.flatMap(environmentsOf)])];
  // --token-file is this server's own token: the daemons' is --machine-token-file's.
  const { tokenFile: _own, machineTokenFile, grantMachines, tlsCert: _c, tlsKey: _k, tlsClientCa: _ca, a11yBus, ...machineOptions } = o;
  const pool = await openMachinePool(names, { ...machineOptions, ...(machineTokenFile ? { tokenFile: machineTokenFile } : {}) }, o.concurrency, {
    ...o.screen,
    needsScreen: true,
    ...(a11yBus ? { accessibilityBus: true } : {}),
  });
  let live: CliLive | undefined;
  try {
    const { runId, runDir } = await openRunDir({ outDir: o.out, ...(o.runId ? { runId: o.runId } : {}) });
    const manifest = await startManifest(
      runDir,
      {
        run_id: runId,
        provider: pool.provider,
        slots: pool.slots.map((s) => ({ ...s.addresses })),
        ...(grantMachines ? { machine_access: true } : {}),
        ...runSettingsRecord(settings),
        dataset: { root: dataset.root, formats: (o.format ?? []).map((f) => resolve(f)) },
        tasks: dataset.tasks.map((t) => {
          const sha256 = taskFileHash(t.file);
          return { id: t.id, tool: t.tool, file: t.file, ...(sha256 ? { sha256 } : {}) };
        }),
      },
      false,
    );
    const store = new ResultStore(runDir);
    const log = (line: string) => process.stderr.write(`${line}\n`);
    const machineAccess = grantMachines ? new MachineAccess({ log }) : undefined;
    live = await startCliLive(o.live, pool.slots.length, { title: `pincer serve ${runId}`, ...(o.vnc ? { vnc: names } : {}) });
    const service = new EpisodeService({
      ...(live ? { live: live.board } : {}),
      tasks: dataset.tasks,
      registries,
      pool,
      settings,
      store,
      runId,
      runDir,
      log,
      ...(machineAccess ? { machineAccess } : {}),
    });
    const server = await startEpisodeServer(service, {
      listen: o.listen,
      ...(token ? { token } : {}),
      ...(tls ? { tls } : {}),
      log,
      ...(machineAccess ? { machineAccess } : {}),
    });
    process.stdout.write(`serving episodes on ${server.address}\n`);
    process.stdout.write(`results: ${runDir}\n`);
    await new Promise<void>((res) => interrupt.signal.addEventListener("abort", () => res(), { once: true }));
    await server.close();
    await service.shutdown();
    // OSWorld tasks sent whole join the manifest's tasks, so `pincer report` reads their attempts too.
    await finishManifest(runDir, { ...manifest, tasks: [...manifest.tasks, ...service.sentTasks()] });
    return 0;
  } finally {
    interrupt.release();
    await live?.close();
    await pool.close();
  }
}

/** Adds `pincer serve` to the program: the Episodes gRPC service over a dataset's tasks. */
export function registerServeCommand(program: Command): void {
  const cmd = program
    .command("serve")
    .description("serve a dataset's tasks as episodes over gRPC (pincer.v1.Episodes), for agents and trainers in any language")
    .argument("<tasks>", "folder of tasks (<tool>/<id>/<id>.json, *.task.ts, OSWorld files) or one task file")
    .option("--listen <address>", "host:port to listen on; beyond loopback a --token-file (or --tls-client-ca) is required", DEFAULT_LISTEN)
    .option("--token-file <file>", "file holding the token every call must carry as 'authorization: Bearer <token>'")
    .option("--tls-cert <file>", "serve TLS with this PEM certificate (chain); with --tls-key")
    .option("--tls-key <file>", "PEM private key of --tls-cert")
    .option("--tls-client-ca <file>", "mutual TLS: only clients with a certificate this PEM CA signed may connect")
    .option("--a11y-bus", "give local machines an accessibility bus, so observations can carry the accessibility tree and set-of-marks")
    .option("--machine-token-file <file>", "file holding the token of the daemons given with --env (default: PINCER_TOKEN; --machines gives TLS files)")
    .option(
      "--grant-machines",
      "also hand each episode its machines' daemons, proxied by this server with a token per episode (StartEpisodeResponse.machines; see docs/security.md)",
    )
    .addOption(envOption())
    .addOption(machinesOption())
    .option("--live [address]", LIVE_OPTION_HELP)
    .option("--vnc", VNC_OPTION_HELP)
    .option("--concurrency <n>", "episodes at once (local: slots started); further starts wait", positiveInt("--concurrency"), 1)
    .option("--max-steps <n|auto>", "step limit of each episode: a number, or auto = 2 × action_number + 5 (50 without one)", "auto")
    .option("--out <dir>", "folder for run folders", "results")
    .option("--run-id <id>", "name of the run folder (default: run-<UTC time>)")
    .option("--task-timeout <seconds>", "wall-clock limit of each episode", positiveInt("--task-timeout"), 600)
    .option("--no-screenshots", "do not save a screenshot of each step in the attempt folders")
    .addOption(
      new Option("--settle <auto|off|quiet[:initial[:max]]>", "before each step's recorded screenshots, wait until the screen has not changed (see pincer run)")
        .argParser(parseSettle)
        .default("auto"),
    )
    .addOption(screenOption())
    .action(async (dir: string, o) => {
      process.exitCode = await serveCommand(dir, o);
    });
  addDatasetOptions(cmd);
  addProviderOptions(cmd);
  const examples = [
    "pincer serve examples --concurrency 2                # loopback, a free port; local machines",
    "pincer serve osworld/ --listen 0.0.0.0:7000 --token-file serve.token --provider container",
  ];
  cmd.addHelpText("after", `\nExamples:\n${examples.map((l) => `  ${l}`).join("\n")}\n`);
}
