import { hostname } from "node:os";
import { type Command, InvalidArgumentError as CliArgumentError, Option } from "commander";
import { portableAgentChoice, type AgentChoice } from "../agents/factory.js";
import type { DatasetTask } from "../datasets/format.js";
import type { Registries } from "../datasets/registries.js";
import type { QueuedAgent } from "../queue/protocol.js";
import type { RunSettings } from "../runner/settings.js";
import type { QueueProgress } from "../queue/coordinator.js";
import type { PriceTable } from "../agents/pricing.js";
import type { Report } from "../reports/report.js";
import { addCredentialOptions } from "./credentials.js";
import type { HealthRunsVia } from "./healthCommand.js";
import { cliRegistries } from "./datasetOptions.js";
import { addProviderOptions, openMachinePool, type MachineCliOptions } from "./pools.js";
import { onInterrupt } from "./interrupt.js";
import { startCliLive } from "./liveOption.js";

const positiveInt = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new CliArgumentError(`${name} must be a whole number ≥ 1`);
  return n;
};
const collect = (v: string, prev: string[]) => [...prev, v];

/** `--queue-key-file`, as `pincer run`, `check` and `worker` take it. */
const queueKeyOption = () =>
  new Option(
    "--queue-key-file <path>",
    "the queue's key (mode 600), the same on the coordinator and every worker: jobs and results are signed with it, and Redis never sees it " +
      "(make one: openssl rand -hex 32 > queue.key && chmod 600 queue.key; PINCER_QUEUE_KEY may hold the key itself)",
  ).env("PINCER_QUEUE_KEY_FILE");

/** The queue's key from `--queue-key-file`, PINCER_QUEUE_KEY_FILE or PINCER_QUEUE_KEY; an error saying how to make one when there is none. */
async function queueKey(file: string | undefined): Promise<Buffer> {
  const { readQueueKey } = await import("../queue/signing.js");
  return readQueueKey(file);
}

/** Reaches the queue's Redis once: an unreachable one, a refused password or a TLS failure is an error saying what to fix. */
async function checkRedis(url: string): Promise<void> {
  const { openRedis } = await import("../queue/redis.js");
  (await openRedis(url)).disconnect();
}

/** Adds `--queue`, `--queue-name` and `--queue-key-file` to `pincer run` and `pincer check`. */
export function addQueueOptions(cmd: Command): Command {
  return cmd
    .option(
      "--queue <url>",
      "run the tasks on `pincer worker`s anywhere through this Redis (redis://[:password@]host:port, rediss://… for TLS, unix:/path.sock): " +
        "workers bring the machines; results come back here. A password is best left out of the URL: PINCER_QUEUE_PASSWORD gives it",
    )
    .option("--queue-name <name>", "the queue's name (workers take tasks from the same one)", "pincer-tasks")
    .addOption(queueKeyOption());
}

/** What `pincer run --queue` needs of the run's options. */
export interface QueueRunCliOptions extends MachineCliOptions {
  queue: string;
  queueName: string;
  queueKeyFile?: string;
  out: string;
  runId?: string;
  resume: boolean;
  strict: boolean;
  printReport: boolean;
  /** `--live [address]`: the coordinator's page of the workers' live pages. */
  live?: string | boolean;
}

/** Refuses `pincer run --queue` (or `check --queue`) options that choose machines: a queue's workers have their own. */
export function refuseMachineOptions(o: MachineCliOptions, command: "run" | "check" = "run"): void {
  const given = [
    o.env.length > 0 && "--env",
    o.machines && "--machines",
    o.provider && "--provider",
    o.image && "--image",
    o.network && "--network",
    o.drivers && "--drivers",
  ].filter(Boolean);
  if (given.length > 0) {
    throw new CliArgumentError(
      `${given.join(", ")} choose machines, which a queue's workers bring: give them to \`pincer worker\` (leave them off \`pincer ${command} --queue\`)`,
    );
  }
}

/** Prints a queue run's progress: a line per finished or lost attempt, workers' share, and queues no worker serves. */
function queueProgressPrinter(stream: NodeJS.WriteStream = process.stderr) {
  const warned = new Set<string>();
  let lastCounts = "";
  return (p: QueueProgress) => {
    for (const u of p.unserved) {
      if (warned.has(u.queue)) continue;
      warned.add(u.queue);
      stream.write(`waiting: no worker takes tasks from ${u.queue}; start one with: pincer worker --queue URL --environments ${u.environments.join(",")}\n`);
    }
    const rec = p.last;
    const counts = `${p.done}/${p.total} ${p.running.map((r) => `${r.task}@${r.worker}`).join()} ${p.lost} ${p.refused}`;
    // A line when something happened: an attempt read, or the tasks done, running or lost changed.
    if (!rec && counts === lastCounts) return;
    lastCounts = counts;
    if (rec?.kind === "attempt") stream.write(`${rec.task}: ${rec.state} (attempt ${rec.attempt}, worker ${rec.worker})`);
    else if (rec?.kind === "error") stream.write(`${rec.task}: env_error (attempt ${rec.attempt}, worker ${rec.worker}: ${rec.error})`);
    else if (rec?.kind === "lost") stream.write(`${rec.task}: attempt ${rec.entry.attempt} lost with worker ${rec.entry.worker}; it runs again`);
    const workers = Object.entries(p.byWorker)
      .map(([w, n]) => `${w} ${n}`)
      .join(", ");
    const refused = p.refused > 0 ? `, ${p.refused} result(s) refused` : "";
    stream.write(`${rec ? " — " : ""}${p.done}/${p.total} done, ${p.running.length} running${workers ? ` (${workers})` : ""}, ${p.lost} lost${refused}\n`);
  };
}

/** What `pincer check --repeat N --queue` needs of its options. */
export interface QueueCheckCliOptions extends MachineCliOptions {
  queue: string;
  queueName: string;
  queueKeyFile?: string;
}

/**
 * The runs of `pincer check --repeat N --queue`: each a queue run taken by `pincer worker`s, its
 * progress printed as `pincer run --queue` prints it. Refuses the options that choose machines.
 */
export async function queueHealthRuns(
  dir: string,
  o: QueueCheckCliOptions,
  input: { tasks: readonly DatasetTask[]; registries: Registries },
): Promise<HealthRunsVia> {
  refuseMachineOptions(o, "check");
  const key = await queueKey(o.queueKeyFile);
  await checkRedis(o.queue);
  const { queueHealthExecutor } = await import("../queue/healthRuns.js");
  return (signal) => {
    let printer: ReturnType<typeof queueProgressPrinter> | undefined;
    let current = "";
    const execute = queueHealthExecutor({
      url: o.queue,
      key,
      queueName: o.queueName,
      ...input,
      datasetRoot: dir,
      datasetFormats: Array.isArray(o.format) ? o.format.filter((f): f is string => typeof f === "string") : [],
      signal,
      onProgress: (run, p) => {
        // A printer per run: each run's tasks are new to the queue.
        if (run !== current) [printer, current] = [queueProgressPrinter(), run];
        printer!(p);
      },
    });
    return async (run) => {
      try {
        await execute(run);
      } catch (err) {
        if (signal.aborted) {
          process.stderr.write(`the workers still run the tasks of ${run.runId} they have taken or will take; their results are not collected\n`);
        }
        throw err;
      }
    };
  };
}

/** `pincer run --queue`: the run's tasks through the queue, its results and reports here. */
export async function runQueueCommand(
  dir: string,
  o: QueueRunCliOptions,
  run: { tasks: readonly DatasetTask[]; registries: Registries; agent: AgentChoice; settings: RunSettings },
): Promise<{ runDir: string; report: Report } | "interrupted"> {
  refuseMachineOptions(o);
  if (run.agent.baseUrl) {
    throw new CliArgumentError(
      "--base-url names the model's endpoint, which a queue's workers choose (a job never carries one): give it to `pincer worker --base-url`, " +
        "or set OPENAI_BASE_URL / ANTHROPIC_BASE_URL on the worker hosts",
    );
  }
  const key = await queueKey(o.queueKeyFile);
  let agent: QueuedAgent;
  try {
    // What a job may carry of the choice: names and numbers (its endpoint is refused above; a price file is read here, into a table).
    const { kind, model, maxHistory, price, modelTimeoutMs, modelRetries, command, agentEnv } = portableAgentChoice(run.agent);
    agent = {
      kind,
      ...(command ? { command } : {}),
      ...(agentEnv?.length ? { agentEnv } : {}),
      ...(model ? { model } : {}),
      ...(maxHistory ? { maxHistory } : {}),
      ...(price ? { price: price as PriceTable } : {}),
      ...(modelTimeoutMs !== undefined ? { modelTimeoutMs } : {}),
      ...(modelRetries !== undefined ? { modelRetries } : {}),
    };
  } catch (err) {
    throw new CliArgumentError((err as Error).message);
  }
  const { newRunId } = await import("../runner/runner.js");
  const { runOnQueue } = await import("../queue/coordinator.js");
  // Redis (its password, its TLS) before a word about the run: a queue that cannot be used says so at once.
  await checkRedis(o.queue);
  const runId = o.runId ?? newRunId();
  const relay = o.live === undefined || o.live === false ? undefined : await startQueueRelay(o, key, runId);
  const interrupt = onInterrupt();
  process.stderr.write(`run ${runId}: ${run.tasks.length} task(s) to the queue ${o.queueName} (workers take them)\n`);
  try {
    return await runOnQueue({
      url: o.queue,
      key,
      queueName: o.queueName,
      tasks: run.tasks,
      registries: run.registries,
      datasetRoot: dir,
      datasetFormats: Array.isArray(o.format) ? o.format.filter((f): f is string => typeof f === "string") : [],
      settings: { ...run.settings, agent },
      outDir: o.out,
      runId,
      resume: o.resume,
      signal: interrupt.signal,
      onProgress: queueProgressPrinter(),
    });
  } catch (err) {
    if (!interrupt.signal.aborted) throw err;
    process.stderr.write(
      `\nstopped: the workers go on with the run's tasks; collect their results with: pincer run ${dir} --queue ${o.queue.replace(/\/\/[^@]*@/, "//")} ` +
        `--resume --run-id ${runId} --out ${o.out}\n`,
    );
    return "interrupted";
  } finally {
    interrupt.release();
    await relay?.close();
  }
}

/** The coordinator's live page (`--live`): the workers' own pages, found in Redis (signed with the queue's key) and relayed. */
async function startQueueRelay(o: QueueRunCliOptions, key: Buffer, runId: string): Promise<{ close(): Promise<void> }> {
  const { openRedis } = await import("../queue/redis.js");
  const { liveWorkers } = await import("../queue/liveWorkers.js");
  const { startRelayServer } = await import("../live/relay.js");
  const redis = await openRedis(o.queue);
  const warned = new Set<string>();
  const refused = (why: string) => {
    if (!warned.has(why)) process.stderr.write(`live: left out ${why}\n`);
    warned.add(why);
  };
  const listen = o.live === true ? "127.0.0.1:0" : String(o.live);
  const token = process.env.PINCER_LIVE_TOKEN;
  const server = await startRelayServer({
    listen,
    ...(token ? { token } : {}),
    title: `pincer run ${runId}: workers`,
    workers: () => liveWorkers(redis, key, o.queueName, refused),
  }).catch((err: unknown) => {
    redis.disconnect();
    throw err;
  });
  process.stderr.write(`live: ${server.url} (the workers started with --live)\n`);
  return {
    close: async () => {
      await server.close();
      redis.disconnect();
    },
  };
}

/** The options of `pincer worker`. */
interface WorkerCliOptions extends MachineCliOptions {
  format: string[];
  queue: string;
  queueName: string;
  queueKeyFile?: string;
  allowTaskModules: boolean;
  allowAgentPrograms: boolean;
  baseUrl?: string;
  live?: string | boolean;
  liveUrl?: string;
  vnc?: boolean;
  environments: string[];
  concurrency: number;
  name?: string;
  lockSeconds: number;
  maxArtifactMib: number;
  a11y: boolean;
  screen: { width: number; height: number };
}

async function workerCommand(o: WorkerCliOptions): Promise<number> {
  const { startWorker } = await import("../queue/worker.js");
  const names = o.environments.length > 0 ? [...new Set(o.environments.flatMap((e) => e.split(",")).filter(Boolean))] : ["desktop"];
  if (o.environments.length > 0 && (o.env.length > 0 || o.machines)) {
    throw new CliArgumentError("--environments names local, container or qemu machines; remote ones (--env, --machines) bring their names");
  }
  // The key and Redis before any machine starts: a worker that cannot take tasks says so at once.
  const key = await queueKey(o.queueKeyFile);
  await checkRedis(o.queue);
  const registries = await cliRegistries(o.format);
  if (o.allowTaskModules) process.stderr.write("task modules allowed: a job's *.task.ts runs its code in this worker, on this host, outside any sandbox\n");
  if (o.allowAgentPrograms) process.stderr.write("agent programs allowed: a job's --agent command program runs on this host, outside any sandbox\n");
  const pool = await openMachinePool(names, o, o.concurrency, { ...o.screen, ...(o.a11y ? { accessibilityBus: true } : {}) });
  // SIGINT and SIGTERM are taken from here on: one that comes while the worker starts (it says
  // "taking tasks" before it is returned) is kept and acted on once it has, instead of killing the process.
  let onSignal: (() => void) | undefined;
  let early = 0;
  const signalled = () => (onSignal ? onSignal() : early++);
  process.on("SIGINT", signalled);
  process.on("SIGTERM", signalled);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
  const name = o.name ?? `${hostname()}:${process.pid}`;
  const { liveToken } = await import("../queue/signing.js");
  // The page's token comes from the queue's key: the coordinator derives it; it never passes through Redis.
  const vnc = o.vnc ? { vnc: Object.keys(pool.slots[0]?.envs ?? {}) } : {};
  const live = await startCliLive(o.live, pool.slots.length, { title: `pincer worker ${name}`, token: liveToken(key, name), ...vnc });
  try {
    worker = await startWorker({
      ...(live ? { live: { board: live.board, url: o.liveUrl ?? advertisedUrl(live.server) } } : {}),
      name,
      url: o.queue,
      key,
      pool,
      registries,
      allowTaskModules: o.allowTaskModules,
      allowAgentPrograms: o.allowAgentPrograms,
      ...(o.baseUrl ? { baseUrl: o.baseUrl } : {}),
      queueName: o.queueName,
      lockMs: o.lockSeconds * 1000,
      maxArtifactBytes: o.maxArtifactMib * 1024 * 1024,
      log,
    });
    const w = worker;
    await new Promise<void>((resolve) => {
      let stopping = false;
      const stop = () => {
        if (stopping) {
          log(`worker ${w.name}: stopping now; its tasks go back to the queue once their locks lapse (${o.lockSeconds} s)`);
          void w.close(true).then(resolve, resolve);
          return;
        }
        stopping = true;
        log(`worker ${w.name}: finishing its tasks, then stopping (signal again to stop now)`);
        void w.close(false).then(resolve, resolve);
      };
      onSignal = stop;
      for (; early > 0; early--) stop();
    });
    return 0;
  } finally {
    process.off("SIGINT", signalled);
    process.off("SIGTERM", signalled);
    await live?.close();
    await pool.close();
  }
}

/** The address a worker's live page is advertised at: where it listens, this host's name when that is every address. */
function advertisedUrl(server: { host: string; port: number }): string {
  const any = server.host === "0.0.0.0" || server.host === "::";
  const host = any ? hostname() : server.host.includes(":") ? `[${server.host}]` : server.host;
  return `http://${host}:${server.port}/`;
}

/** Registers `pincer worker`. */
export function registerWorkerCommand(program: Command): void {
  const cmd = program
    .command("worker")
    .description("take tasks from a queue (`pincer run --queue`) and run them on this host's machines until stopped (SIGTERM: finish, then stop)")
    .addOption(
      new Option("--queue <url>", "the queue's Redis: redis://[:password@]host:port[/db], rediss:// for TLS, or unix:/path/to/redis.sock")
        .env("PINCER_QUEUE")
        .makeOptionMandatory(),
    )
    .option("--queue-name <name>", "the queue's name, as `pincer run --queue-name` gives it", "pincer-tasks")
    .addOption(queueKeyOption())
    .option(
      "--allow-task-modules",
      "run task modules (*.task.ts) that jobs carry: this is code execution on this host, outside any machine's sandbox, by whoever holds the queue's key",
      false,
    )
    .option(
      "--allow-agent-programs",
      "run the agent programs jobs name (pincer run --agent command): code execution on this host, outside any sandbox, by whoever holds the queue's key",
      false,
    )
    .option(
      "--base-url <url>",
      "the model API endpoint of the model agents this worker runs (default: OPENAI_BASE_URL / ANTHROPIC_BASE_URL, else the provider's); never a job's",
    )
    .addOption(
      new Option("--environments <names>", "the environments of this worker's slots (comma-separated); it takes the tasks that need exactly these")
        .argParser(collect)
        .default([], "desktop"),
    )
    .addOption(
      new Option("--env <name=host:port>", "remote machines by environment name (repeat); their names are the worker's environments")
        .argParser(collect)
        .default([]),
    )
    .option("--machines <file>", "remote machines by environment name, with their token and TLS files and reset commands")
    .option("--concurrency <n>", "tasks at once (slots)", positiveInt("--concurrency"), 1)
    .option("--name <name>", "the worker's name in progress and results (default: host:pid)")
    .option(
      "--live [address]",
      "serve this worker's live page (its slots' screens, takeover) on ADDRESS; its token derives from the queue key, " +
        "and the coordinator's --live page shows it",
    )
    .option("--vnc", "also serve this worker's machines to VNC viewers (view only, a password each; its live page lists them)")
    .option("--live-url <url>", "the address the coordinator reaches this worker's live page at (default: where it listens, this host's name for 0.0.0.0)")
    .option("--lock-seconds <s>", "a task whose worker is silent this long goes to another worker", positiveInt("--lock-seconds"), 30)
    .option("--max-artifact-mib <n>", "largest attempt folder sent back", positiveInt("--max-artifact-mib"), 256)
    .addOption(
      new Option("--format <module>", "also read tasks of the dataset format this module defines (as the run's --format; repeat for several)")
        .argParser(collect)
        .default([], "JSON tasks, task modules, OSWorld"),
    )
    .option("--a11y", "local machines get an accessibility bus (for runs with --a11y)", false)
    .option("--screen <WxH>", "screen size of local machines", (v: string) => {
      const m = /^(\d+)x(\d+)$/.exec(v);
      if (!m) throw new CliArgumentError("write WIDTHxHEIGHT, e.g. 1280x800");
      return { width: Number(m[1]), height: Number(m[2]) };
    })
    .action(async (o: WorkerCliOptions) => {
      o.screen ??= { width: 1280, height: 800 };
      process.exitCode = await workerCommand(o);
    });
  addCredentialOptions(cmd);
  addProviderOptions(cmd);
}
