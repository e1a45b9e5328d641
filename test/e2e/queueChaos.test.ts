import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, expect, test } from "vitest";
import { redisConnection } from "../../packages/controller/src/queue/redis.js";
import { runKeys } from "../../packages/controller/src/queue/protocol.js";
import { alive, descendants } from "../support/processTree.js";
import { startRedis, type TestRedis } from "../support/redisServer.js";

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

/** 60 JSON tasks; each solution waits a little, so that workers are killed with tasks under way. */
function writeDataset(root: string): void {
  for (let i = 0; i < TASKS; i++) {
    const id = `q${String(i).padStart(2, "0")}`;
    const t = join(root, "queue", id);
    mkdirSync(t, { recursive: true });
    const file = `/tmp/pincer-queue-chaos/${id}/out.txt`;
    writeFileSync(join(t, "expected.txt"), `${id}\n`);
    writeFileSync(
      join(t, `${id}.json`),
      JSON.stringify({
        id,
        instruction: `Write ${id} into ${file}.`,
        config: [{ func: "execute", arguments: { command: `rm -rf /tmp/pincer-queue-chaos/${id} && mkdir -p /tmp/pincer-queue-chaos/${id}` } }],
        evaluation: { func: "compare_text_file", arguments: { local_expected: "expected.txt", vm_result: file } },
      }),
    );
    const command = `sleep 0.${5 + (i % 5)} && printf '${id}\\n' > ${file}`;
    writeFileSync(join(t, "solution.json"), JSON.stringify([{ tool: "desktop__run_command", args: { command } }]));
  }
}

function cli(args: string[], name: string): ChildProcess & { log: () => string } {
  const child = spawn(process.execPath, ["--conditions=@pincer/source", "--import", "tsx", CLI, ...args], {
    cwd: ROOT,
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
  writeDataset(join(dir, "dataset"));
  redisServer = await startRedis(join(dir, "redis"));
  const url = redisServer.url;
  const redis = redisConnection(url);
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

    await until("worker B in a task", () => activeOf("B"), logs);
    workers.B.kill("SIGSTOP");
    // Past its lock and the others' stalled check: its task goes to C.
    await sleep(LOCK_SECONDS * 3 * 1000);
    workers.B.kill("SIGCONT");

    await until("half the tasks done", async () => (await done()) >= TASKS / 2, logs);
    await redisServer.restart();

    await until("two thirds done", async () => (await done()) >= (TASKS * 2) / 3, logs);
    coordinator.kill("SIGKILL");
    await exited(coordinator);
    coordinator = cli([...runArgs, "--resume"], "coordinator, resumed");
    expect(await exited(coordinator), logs()).toBe(0);

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
