import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpus, tmpdir } from "node:os";
import { mkdtempSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { agentFactory } from "../../packages/controller/src/agents/factory.js";
import { loadDataset } from "../../packages/controller/src/datasets/loader.js";
import { createRegistries } from "../../packages/controller/src/datasets/registries.js";
import { localProvider } from "../../packages/controller/src/machines/localProvider.js";
import { openPool } from "../../packages/controller/src/machines/provider.js";
import { runOnQueue } from "../../packages/controller/src/queue/coordinator.js";
import { runTasks } from "../../packages/controller/src/runner/runner.js";
import { Queue } from "bullmq";
import { readFile } from "node:fs/promises";
import { redisConnection } from "../../packages/controller/src/queue/redis.js";
import { SCRIPTED_QUEUE_SETTINGS, writeQuickTasks } from "../../test/fixtures/quickTasks.js";
import { startRedis } from "../../test/fixtures/redisServer.js";

/**
 * The same quick scripted tasks run locally with concurrency 1, 2 and 4, and through a queue on a
 * local redis-server with 1, 2 and 4 `pincer worker` processes of one slot each: tasks per minute,
 * the time the queue adds per task, and how each scales against one. Each task's solution waits
 * 0.5 s (an agent's think time); every attempt gets a clean machine, as in a real run.
 */

const ROOT = resolve(import.meta.dirname, "../..");
const CLI = resolve(ROOT, "packages/controller/src/cli/main.ts");
const TASKS = 24;
/** The queue's key, shared by the coordinator here and the workers through their environment. */
const QUEUE_KEY = randomBytes(32).toString("hex");

/** `n` worker processes of one slot each, ready (their machines started) when this resolves. */
async function startWorkers(url: string, queueName: string, n: number): Promise<ChildProcess[]> {
  const workers = Array.from({ length: n }, (_, i) =>
    spawn(
      process.execPath,
      ["--conditions=@pincer/source", "--import", "tsx", CLI, "worker", "--queue", url, "--queue-name", queueName, "--name", `w${i + 1}`],
      {
        cwd: ROOT,
        env: { ...process.env, PINCER_QUEUE_KEY: QUEUE_KEY },
        stdio: ["ignore", "ignore", "pipe"],
      },
    ),
  );
  await Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((ok, fail) => {
          let err = "";
          w.stderr!.on("data", (d: Buffer) => {
            err += d.toString();
            if (err.includes("taking tasks from")) ok();
          });
          w.once("exit", () => fail(new Error(`a worker stopped before it was ready:\n${err}`)));
        }),
    ),
  );
  return workers;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

/**
 * The time a task spends on the queue's path, from the workers' own clocks: a job's span minus its
 * attempt's (the machine's reset and the attempt itself), plus the wait between a worker's jobs.
 * Medians, in ms.
 */
async function queuePath(url: string, queueName: string, runDir: string): Promise<{ inJob: number; between: number }> {
  const connection = redisConnection(url);
  const queue = new Queue(queueName, { connection });
  try {
    const jobs = (await queue.getJobs(["completed"], 0, -1)).filter((j) => j.processedOn && j.finishedOn);
    const inJob: number[] = [];
    for (const j of jobs) {
      const summary = JSON.parse(await readFile(join(runDir, j.data.taskKey, "attempt-1", "summary.json"), "utf8"));
      const r = summary.results;
      const reset = Object.values(r.machine_reset as Record<string, { ms: number }>).reduce((a, m) => a + m.ms, 0);
      inJob.push(j.finishedOn! - j.processedOn! - (Date.parse(r.finished_at) - Date.parse(r.started_at)) - reset);
    }
    const between: number[] = [];
    const byWorker = new Map<string, typeof jobs>();
    for (const j of jobs) byWorker.set(j.processedBy ?? "", [...(byWorker.get(j.processedBy ?? "") ?? []), j]);
    for (const list of byWorker.values()) {
      list.sort((a, b) => a.processedOn! - b.processedOn!);
      for (let i = 1; i < list.length; i++) between.push(list[i]!.processedOn! - list[i - 1]!.finishedOn!);
    }
    return { inJob: median(inJob), between: median(between) };
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

async function stopWorkers(workers: ChildProcess[]): Promise<void> {
  await Promise.all(workers.map((w) => new Promise((r) => (w.exitCode !== null ? r(null) : (w.once("exit", r), w.kill("SIGTERM"))))));
}

export async function queueFigures(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), "pincer-queue-bench-"));
  const redis = await startRedis(join(dir, "redis"));
  try {
    writeQuickTasks(join(dir, "dataset"), { count: TASKS, tool: "bench", prefix: "b", waitSeconds: () => 0.5 });
    const registries = createRegistries();
    const { tasks } = await loadDataset(join(dir, "dataset"), registries);
    const settings = SCRIPTED_QUEUE_SETTINGS;
    const lines = [
      `${TASKS} tasks (a 0.5 s solution each, a clean local machine per attempt), ${cpus().length} cores; queue: redis-server on a unix socket, ` +
        "workers of one slot each started before the clock\n",
      "| concurrency | local tasks/min | queue tasks/min | queue adds per task (wall) | queue path per task (workers' clocks) " +
        "| local scaling vs 1 | queue scaling vs 1 |",
      "|---|---|---|---|---|---|---|",
    ];
    const base: { local?: number; queue?: number } = {};
    for (const c of [1, 2, 4]) {
      const pool = await openPool(localProvider(), ["desktop"], c);
      let t0 = performance.now();
      const local = await runTasks({
        tasks,
        registries,
        pool,
        agentFor: agentFactory(settings.agent),
        outDir: join(dir, "results"),
        runId: `local-${c}`,
        ...settings,
      });
      const localMs = performance.now() - t0;
      await pool.close();
      const workers = await startWorkers(redis.url, `bench-${c}`, c);
      t0 = performance.now();
      const queued = await runOnQueue({
        url: redis.url,
        key: Buffer.from(QUEUE_KEY),
        queueName: `bench-${c}`,
        tasks,
        registries,
        datasetRoot: join(dir, "dataset"),
        settings,
        outDir: join(dir, "results"),
        runId: `queue-${c}`,
      });
      const queueMs = performance.now() - t0;
      const path = await queuePath(redis.url, `bench-${c}.desktop`, join(dir, "results", `queue-${c}`));
      await stopWorkers(workers);
      for (const [what, r] of [
        ["local", local.report],
        ["queue", queued.report],
      ] as const) {
        if (r.passed !== TASKS) throw new Error(`the ${what} run with concurrency ${c} passed ${r.passed} of ${TASKS}: see ${join(dir, "results")}`);
      }
      base.local ??= localMs;
      base.queue ??= queueMs;
      const perMin = (ms: number) => ((TASKS / ms) * 60_000).toFixed(1);
      const adds = ((queueMs - localMs) * c) / TASKS;
      lines.push(
        `| ${c} | ${perMin(localMs)} | ${perMin(queueMs)} | ${adds.toFixed(0)} ms ` +
          `| ${(path.inJob + path.between).toFixed(0)} ms (${path.inJob.toFixed(0)} in the job + ${path.between.toFixed(0)} between jobs) ` +
          `| ${(base.local / localMs).toFixed(2)}× | ${(base.queue / queueMs).toFixed(2)}× |`,
      );
    }
    lines.push(
      "\n“Queue adds per task (wall)”: (queue run − local run) × concurrency ÷ tasks, from the two runs' clocks; noisy when the cores are busy. " +
        "“Queue path per task”: medians of a job's span minus its attempt's (reset and run: unpacking the task, loading it, packing and sending " +
        "its folder, BullMQ's bookkeeping), plus a worker's wait between two jobs (goal ≤ 50 ms). Scaling is bounded by this machine's cores: every " +
        "attempt starts a clean machine, about 0.8 s of CPU, and each worker is a Node process of its own.",
    );
    return lines;
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
