import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, expect, test } from "vitest";
import { redisConnection } from "../../packages/controller/src/queue/redis.js";
import { runKeys } from "../../packages/controller/src/queue/protocol.js";
import { alive, descendants } from "../fixtures/processes.js";
import { writeQuickTasks } from "../fixtures/quickTasks.js";
import { startRedis, type TestRedis } from "../fixtures/redisServer.js";

// A run over a queue survives what a fleet does to it: three `pincer worker` processes take 60
// tasks; one is killed (SIGKILL) mid-task, one frozen (SIGSTOP) past its lock and then let go,
// Redis restarts once, and the coordinator itself is killed and resumed. Every task must end with
// exactly one verdict, the lost attempts recorded as env_error naming their worker, and no worker,
// Xvfb or daemon left running.

const ROOT = resolve(import.meta.dirname, "../..");
const CLI = resolve(ROOT, "packages/controller/src/cli/main.ts");
const TASKS = 60;
const LOCK_SECONDS = 2;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A worker's attempt folders in the temporary folder (`pincer-worker-<its pid>-…`). */
const workDirsOf = (pid: number) => readdirSync(tmpdir()).filter((n) => n.startsWith(`pincer-worker-${pid}-`));
/** Worker A of the first test, killed mid-task: its attempt folders stay until another worker starts on this host. */
let killedWorker: number | undefined;

const dir = mkdtempSync(join(tmpdir(), "pincer-queue-chaos-"));
const procs: ChildProcess[] = [];
let redisServer: TestRedis | undefined;
afterAll(async () => {
  for (const p of procs) {
    if (p.exitCode === null && p.signalCode === null) {
      p.kill("SIGCONT");
      p.kill("SIGKILL");
    }
  }
  await redisServer?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The queue's key, shared by the coordinator and the workers through their environment. */
const QUEUE_KEY = randomBytes(32).toString("hex");

function cli(args: string[], name: string): ChildProcess & { log: () => string } {
  const child = spawn(process.execPath, ["--conditions=@pincer/source", "--import", "tsx", CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, PINCER_QUEUE_KEY: QUEUE_KEY },
    stdio: ["ignore", "pipe", "pipe"],
  }) as ChildProcess & { log: () => string };
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  child.log = () => `--- ${name}\n${out}`;
  procs.push(child);
  return child;
}

const exited = (p: ChildProcess) =>
  p.exitCode !== null || p.signalCode !== null ? Promise.resolve(p.exitCode) : new Promise<number | null>((r) => p.once("exit", (code) => r(code)));

async function until(what: string, check: () => Promise<boolean> | boolean, logs: () => string, ms = 90_000): Promise<void> {
  for (const end = Date.now() + ms; !(await check()); await sleep(100)) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${logs()}`);
  }
}

test("60 tasks over 3 workers: a worker killed, one frozen past its lock, Redis restarted, the coordinator killed and resumed", async () => {
  // Each solution waits a little, so that workers are killed with tasks under way.
  writeQuickTasks(join(dir, "dataset"), { count: TASKS, tool: "queue", prefix: "q", waitSeconds: (i) => 0.5 + (i % 5) / 10 });
  redisServer = await startRedis(join(dir, "redis"));
  const url = redisServer.url;
  const redis = redisConnection(url);
  // While Redis restarts, the client reconnects; its connection errors are expected then.
  redis.on("error", () => undefined);
  const keys = runKeys("chaos");
  const workerArgs = (name: string) => ["worker", "--queue", url, "--name", name, "--concurrency", "2", "--lock-seconds", String(LOCK_SECONDS)];
  const workers = { A: cli(workerArgs("A"), "worker A"), B: cli(workerArgs("B"), "worker B"), C: cli(workerArgs("C"), "worker C") };
  const runArgs = ["run", join(dir, "dataset"), "--queue", url, "--out", join(dir, "results"), "--run-id", "chaos", "--attempts", "4"];
  let coordinator = cli(runArgs, "coordinator");
  const logs = () => [...Object.values(workers), coordinator].map((p) => p.log()).join("\n");
  const done = async () => redis.hlen(keys.done);
  const activeOf = async (w: string) => Object.values(await redis.hgetall(keys.active)).some((v) => JSON.parse(v).worker === w);
  try {
    await until("a few tasks done and worker A in a task", async () => (await done()) >= 4 && (await activeOf("A")), logs);
    const machinesOfA = descendants(workers.A.pid!);
    workers.A.kill("SIGKILL");
    await exited(workers.A);
    killedWorker = workers.A.pid!;
    expect(workDirsOf(killedWorker).length).toBeGreaterThanOrEqual(1);

    await until("worker B in a task", () => activeOf("B"), logs);
    workers.B.kill("SIGSTOP");
    // Past its lock and the others' stalled check: its task goes to C, which records B's attempt as
    // lost when it begins the task (at least three lock periods; longer on a loaded machine).
    await sleep(LOCK_SECONDS * 3 * 1000);
    const lostOfB = async () => (await redis.lrange(keys.results, 0, -1)).some((r) => JSON.parse(r).kind === "lost" && JSON.parse(r).entry.worker === "B");
    await until("worker B's task taken over", lostOfB, logs);
    workers.B.kill("SIGCONT");

    await until("half the tasks done", async () => (await done()) >= TASKS / 2, logs);
    await redisServer.restart();

    await until("two thirds done", async () => (await done()) >= (TASKS * 2) / 3, logs);
    coordinator.kill("SIGKILL");
    await exited(coordinator);
    const finishedBefore = await redis.hgetall(keys.done);
    const attemptsBefore = await redis.hgetall(keys.attempts);
    coordinator = cli([...runArgs, "--resume"], "coordinator, resumed");
    expect(await exited(coordinator), logs()).toBe(0);
    // Nothing finished before the coordinator died was begun again.
    const attemptsAfter = await redis.hgetall(keys.attempts);
    for (const task of Object.keys(finishedBefore)) expect(attemptsAfter[task], task).toBe(attemptsBefore[task]);

    // Every task: exactly one attempt with a verdict (it passed), any others lost or refused as env_error.
    const runDir = join(dir, "results", "chaos");
    const lost: string[] = [];
    for (let i = 0; i < TASKS; i++) {
      const taskDir = join(runDir, "queue", `q${String(i).padStart(2, "0")}`);
      const attempts = readdirSync(taskDir).filter((d) => /^attempt-\d+$/.test(d));
      const summaries = attempts.map((a) => JSON.parse(readFileSync(join(taskDir, a, "summary.json"), "utf8")));
      expect(summaries.filter((s) => s.results.state === "passed").length, `${taskDir}: ${JSON.stringify(summaries)}`).toBe(1);
      for (const s of summaries.filter((s) => s.results.state !== "passed")) {
        expect(s.results.state).toBe("env_error");
        lost.push(s.results.error);
      }
    }
    // In Redis: one final record per task, that of the passed attempt; no attempt both lost and counted.
    const records = (await redis.lrange(keys.results, 0, -1)).map((r) => JSON.parse(r));
    const doneHash = await redis.hgetall(keys.done);
    for (let i = 0; i < TASKS; i++) {
      const task = `queue/q${String(i).padStart(2, "0")}`;
      const mine = records.filter((r) => r.task === task);
      const finals = mine.filter((r) => r.kind !== "lost" && r.final);
      expect(
        finals.map((r) => [r.kind, r.state]),
        JSON.stringify(mine),
      ).toEqual([["attempt", "passed"]]);
      expect(doneHash[task]).toBe(String(finals[0].attempt));
      const lostNumbers = mine.filter((r) => r.kind === "lost").map((r) => r.entry.attempt);
      const counted = mine.filter((r) => r.kind !== "lost").map((r) => r.attempt);
      expect(
        lostNumbers.filter((n) => counted.includes(n)),
        JSON.stringify(mine),
      ).toEqual([]);
    }
    expect(
      lost.some((e) => /worker A\b/.test(e)),
      lost.join("\n"),
    ).toBe(true);
    expect(
      lost.some((e) => /worker B\b/.test(e)),
      lost.join("\n"),
    ).toBe(true);
    const report = JSON.parse(readFileSync(join(runDir, "report.json"), "utf8"));
    expect([report.tasks, report.passed, report.perTask.length]).toEqual([TASKS, TASKS, TASKS]);

    // Machines of the killed worker went with it; the others stop on SIGTERM, theirs with them.
    const rest = [workers.B, workers.C];
    const machines = [...machinesOfA, ...rest.flatMap((w) => descendants(w.pid!))];
    for (const w of rest) w.kill("SIGTERM");
    for (const w of rest) expect(await exited(w), logs()).toBe(0);
    for (const end = Date.now() + 15_000; machines.some((p) => alive(p.pid)) && Date.now() < end; ) await sleep(100);
    expect(machines.filter((p) => alive(p.pid)).map((p) => p.cmd)).toEqual([]);
  } finally {
    redis.disconnect();
  }
}, 300_000);

test("a task that keeps failing for infrastructure reasons is retried with backoff and ends with each attempt's reason", async () => {
  const root = join(dir, "failing");
  const t = join(root, "broken", "unreachable");
  mkdirSync(t, { recursive: true });
  writeFileSync(
    join(t, "unreachable.json"),
    JSON.stringify({
      id: "unreachable",
      instruction: "Nothing to do: the setup cannot fetch its file.",
      config: [{ func: "execute", arguments: { command: "echo 'setup server unreachable' >&2; exit 7" } }],
      evaluation: { func: "compare_text_file", arguments: { local_expected: "expected.txt", vm_result: "/tmp/pincer-queue-chaos/never.txt" } },
    }),
  );
  writeFileSync(join(t, "expected.txt"), "x\n");
  redisServer ??= await startRedis(join(dir, "redis"));
  const url = redisServer.url;
  const worker = cli(["worker", "--queue", url, "--name", "solo", "--queue-name", "failing"], "worker solo");
  const run = cli(
    ["run", root, "--queue", url, "--queue-name", "failing", "--out", join(dir, "failing-results"), "--run-id", "failing", "--attempts", "3"],
    "run",
  );
  try {
    // Exit 3: the run ended with infrastructure errors (as a local run does).
    expect(await exited(run), `${run.log()}\n${worker.log()}`).toBe(3);
    const taskDir = join(dir, "failing-results", "failing", "broken", "unreachable");
    const summaries = [1, 2, 3].map((n) => JSON.parse(readFileSync(join(taskDir, `attempt-${n}`, "summary.json"), "utf8")));
    expect(summaries.map((s) => s.results.state)).toEqual(["setup_error", "setup_error", "setup_error"]);
    for (const s of summaries) expect(s.results.error).toMatch(/exited with code 7:\s+setup server unreachable/);
    // Exponential backoff from 1 s: the third attempt starts ≥ 1 + 2 s after the first.
    const starts = summaries.map((s) => Date.parse(s.results.started_at));
    expect(starts[2]! - starts[0]!).toBeGreaterThanOrEqual(3_000);
    expect(run.log()).toMatch(/broken\/unreachable: setup_error after 3 attempt/);
    // The worker started here removed the attempt folders worker A (killed in the test above) left.
    expect(killedWorker).toBeDefined();
    expect(workDirsOf(killedWorker!)).toEqual([]);
  } finally {
    worker.kill("SIGTERM");
    await exited(worker);
  }
}, 120_000);
