import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, expect, test } from "vitest";
import { jobIdOf, runKeys } from "../../packages/controller/src/queue/protocol.js";
import { redisConnection } from "../../packages/controller/src/queue/redis.js";
import { buildCli, exited, pincerBin, queueEnv, sleep, stopAll, until } from "../fixtures/queueBin.js";
import { writeQuickTasks } from "../fixtures/quickTasks.js";
import { startRedis, type TestRedis } from "../fixtures/redisServer.js";

// A worker killed mid-task (SIGKILL) loses its task within about its lock time, and a run whose
// task then ended in an infrastructure error runs that task again on `--resume`, as a local run's
// resume does, keeping the tasks that had a verdict. Real Redis, real `pincer worker` and
// coordinator processes (the package's bin), real machines.

const LOCK_SECONDS = 16;
const LOCK_MS = LOCK_SECONDS * 1000;
const QUEUE = "pincer-tasks.desktop";
const RUN = "resume";
const HELD = "mods/held";
const QUICK = "json/quick00";
const dir = mkdtempSync(join(tmpdir(), "pincer-queue-resume-"));
/** While this file exists on the worker host, the held task's setup waits: its worker is mid-task. */
const HOLD = join(dir, "hold");
const procs: ChildProcess[] = [];
let server: TestRedis | undefined;
let redis: Redis | undefined;

beforeAll(buildCli, 120_000);
afterAll(async () => {
  await stopAll(procs);
  redis?.disconnect();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** The dataset: a JSON task that passes at once, and a task module whose setup waits while HOLD exists. */
function writeDataset(root: string): void {
  writeQuickTasks(root, { count: 1, tool: "json", prefix: "quick", waitSeconds: () => 0 });
  mkdirSync(join(root, "mods"), { recursive: true });
  writeFileSync(
    join(root, "mods", "held.task.mjs"),
    `import { existsSync } from "node:fs";
import { action, evaluator } from "@pincer/controller";
import { defineTask } from "@pincer/controller/datasets";

const hold = action({
  name: "hold_while_marked",
  description: "Waits while the test's marker file exists on the worker host.",
  run: async (_params, { signal }) => {
    while (existsSync(${JSON.stringify(HOLD)}) && !signal?.aborted) await new Promise((r) => setTimeout(r, 100));
  },
});
const done = evaluator({ name: "always_done", description: "Passes.", run: async () => true });

export default defineTask({ id: "held", instruction: "Nothing to do.", build: () => ({ setup: [hold], evaluator: done }), solution: [] });
`,
  );
}

const summaries = (tool: string, id: string) => {
  const taskDir = join(dir, "results", RUN, tool, id);
  return readdirSync(taskDir)
    .filter((d) => /^attempt-\d+$/.test(d))
    .sort()
    .map((d) => JSON.parse(readFileSync(join(taskDir, d, "summary.json"), "utf8")).results as Record<string, string | number | null>);
};

test("a killed worker's task returns within about its lock time; --resume runs the task that ended in env_error again and keeps the rest", async () => {
  writeDataset(join(dir, "dataset"));
  writeFileSync(HOLD, "");
  server = await startRedis(join(dir, "redis"));
  redis = redisConnection(server.url);
  const keyFile = join(dir, "queue.key");
  writeFileSync(keyFile, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600 });
  const env = queueEnv({ PINCER_QUEUE: server.url, PINCER_QUEUE_KEY_FILE: keyFile });
  const lock = ["--lock-seconds", String(LOCK_SECONDS)];
  const workerA = pincerBin(["worker", "--allow-task-modules", "--name", "A", ...lock], env, "worker A", procs);
  const runArgs = ["run", join(dir, "dataset"), "--queue", server.url, "--out", join(dir, "results"), "--run-id", RUN];
  const first = pincerBin(runArgs, env, "coordinator", procs);
  // Worker B does not run task modules: once it takes the held task over, the attempt is an env_error.
  let workerB: ReturnType<typeof pincerBin> | undefined;
  const logs = () => [workerA, workerB, first].map((p) => p?.log() ?? "").join("\n");
  const keys = runKeys(RUN);
  const r = redis;
  const activeOn = async (task: string, worker: string) => {
    const v = await r.hget(keys.active, task);
    return !!v && JSON.parse(v).worker === worker;
  };
  await until("worker A in the held task", () => activeOn(HELD, "A"), logs);
  workerB = pincerBin(["worker", "--name", "B", ...lock], env, "worker B", procs);
  await until(
    "worker B ready, and the quick task done",
    async () => /taking tasks from/.test(workerB!.log()) && (await r.hexists(keys.done, QUICK)) === 1,
    logs,
  );

  // The kill comes right after worker A renewed its lock (the lock then lasts LOCK_SECONDS), and,
  // where stalled checks are as far apart as the lock, when the next check cannot come for another
  // 0.45 × the lock (renewals come at least every half lock, so one of two in a row finds that):
  // settings whose check waits for the next interval after the lock lapses take over 1.45 × the lock
  // then (measured: 29, 30 and 45 s for a 16 s lock), while checks a tenth of the lock apart take at
  // most 1.1 × the lock and a moment to be taken (measured: 17 s and 18 s).
  const lockKey = `bull:${QUEUE}:${jobIdOf(RUN, HELD)}:lock`;
  const checkKey = `bull:${QUEUE}:stalled-check`;
  const waitFrom = Date.now();
  let nextCheckMs = 0;
  for (let prev = await r.pttl(lockKey); ; await sleep(20)) {
    const ttl = await r.pttl(lockKey);
    const renewed = ttl > prev + 500;
    prev = ttl;
    if (renewed) nextCheckMs = await r.pttl(checkKey);
    if (renewed && (nextCheckMs >= 0.45 * LOCK_MS || Date.now() - waitFrom > 1.5 * LOCK_MS)) break;
    if (Date.now() - waitFrom > 4 * LOCK_MS) throw new Error(`worker A's lock was never renewed\n${logs()}`);
  }
  workerA.kill("SIGKILL");
  const killedAt = Date.now();
  const lostOfA = async () =>
    (await r.lrange(keys.results, 0, -1)).some((x) => {
      const rec = JSON.parse(x);
      return rec.kind === "lost" && rec.task === HELD && rec.entry.worker === "A";
    });
  await until("worker A's attempt recorded lost", lostOfA, logs, 5 * LOCK_MS);
  const backSeconds = (Date.now() - killedAt) / 1000;
  process.stderr.write(
    `the killed worker's task was taken over ${backSeconds.toFixed(1)} s after the kill (lock ${LOCK_SECONDS} s; ` +
      `no stalled check for ${nextCheckMs} ms at the kill, which came ${((killedAt - waitFrom) / 1000).toFixed(1)} s into the wait)\n`,
  );
  expect.soft(backSeconds, `taken over ${backSeconds} s after the kill, lock ${LOCK_SECONDS} s`).toBeLessThan(LOCK_SECONDS * 1.35);

  // Worker B ends attempt 2 as env_error (it does not run task modules): the run ends with exit 3.
  expect(await exited(first), logs()).toBe(3);
  expect(first.log()).toMatch(/fix the cause and run them again with .*--resume --run-id resume .*--queue unix:\S+redis\.sock /);
  const before = summaries("mods", "held");
  expect(before.map((s) => [s.state, s.worker])).toEqual([
    ["env_error", "A"],
    ["env_error", "B"],
  ]);
  expect(before[0]!.error).toMatch(/worker A stopped during this attempt/);
  expect(before[1]!.error).toMatch(/--allow-task-modules/);
  expect(summaries("json", "quick00").map((s) => s.state)).toEqual(["passed"]);
  const quickAttempts = await r.hget(keys.attempts, QUICK);

  // The cause fixed (a worker that runs task modules, the task no longer held): --resume runs it again.
  workerB.kill("SIGTERM");
  expect(await exited(workerB), logs()).toBe(0);
  rmSync(HOLD);
  const workerC = pincerBin(["worker", "--allow-task-modules", "--name", "C"], env, "worker C", procs);
  const resumed = pincerBin([...runArgs, "--resume"], env, "coordinator, resumed", procs);
  const logs2 = () => [workerC, resumed].map((p) => p.log()).join("\n");
  expect(await exited(resumed), logs2()).toBe(0);
  const after = summaries("mods", "held");
  expect(after.map((s) => s.state)).toEqual(["env_error", "env_error", "passed"]);
  expect(resumed.log()).toMatch(/mods\/held: passed \(attempt 3, worker C\)/);
  // The task with a verdict is kept: not run again, not counted twice.
  expect(summaries("json", "quick00").map((s) => s.state)).toEqual(["passed"]);
  expect(await r.hget(keys.attempts, QUICK)).toBe(quickAttempts);
  const report = JSON.parse(readFileSync(join(dir, "results", RUN, "report.json"), "utf8"));
  expect([report.tasks, report.passed, report.errors, report.perTask.length]).toEqual([2, 2, 0, 2]);
  workerC.kill("SIGTERM");
  expect(await exited(workerC), logs2()).toBe(0);
}, 300_000);
