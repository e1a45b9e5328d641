import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, expect, test } from "vitest";
import type { HealthReport } from "@pincer/controller/runner";
import { runPincer } from "../fixtures/cli.js";
import { alive, descendants } from "../fixtures/processes.js";
import { startRedis, type TestRedis } from "../fixtures/redisServer.js";

// pincer check --repeat 3 --queue: the health check's four runs go through a real redis-server to
// two real `pincer worker` processes (local sandboxes), and come back as run folders with the same
// health report a local check writes. test/fixtures/health-queue: t/good is healthy, t/lenient passes
// with no actions, and t/counted's setup counts its attempts in a file on this host and its evaluator
// fails in every even one: the runs go one after another, so runs 1 and 3 pass and run 2 fails whichever
// worker takes them (a count kept in a task module would restart on each worker attempt).

const ROOT = resolve(import.meta.dirname, "../..");
const CLI = resolve(ROOT, "packages/controller/src/cli/main.ts");
const DATASET = "test/fixtures/health-queue";
const dir = mkdtempSync(join(tmpdir(), "pincer-health-queue-"));
const counter = join(dir, "attempts.txt");
/** The queue's key, in the environment of the check and of its workers. */
const QUEUE_KEY = randomBytes(32).toString("hex");
const workers: Array<ChildProcess & { log: () => string }> = [];
let redis: TestRedis | undefined;

afterAll(async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill("SIGKILL");
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function startWorker(url: string, name: string): ChildProcess & { log: () => string } {
  // t/counted is a task module: these workers are started to allow them (code execution on this host, which the test owns).
  const args = ["worker", "--queue", url, "--name", name, "--allow-task-modules"];
  const child = spawn(process.execPath, ["--conditions=@pincer/source", "--import", "tsx", CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, PINCER_TEST_ATTEMPT_COUNTER: counter, PINCER_QUEUE_KEY: QUEUE_KEY },
    stdio: ["ignore", "ignore", "pipe"],
  }) as ChildProcess & { log: () => string };
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  child.log = () => `--- worker ${name}\n${err}`;
  workers.push(child);
  return child;
}

const exited = (p: ChildProcess) =>
  p.exitCode !== null || p.signalCode !== null ? Promise.resolve(p.exitCode) : new Promise<number | null>((r) => p.once("exit", (code) => r(code)));

test("bad input says what to do before anything runs: --queue without --repeat, or with options that choose this host's machines", async () => {
  const url = "unix:/nonexistent/redis.sock";
  const plain = await runPincer(["check", DATASET, "--queue", url]);
  expect(plain.code).toBe(1);
  expect(plain.stderr).toMatch(/--queue measures task health on `pincer worker`s and needs --repeat N \(--repeat 1: /);
  const local = await runPincer(["check", DATASET, "--repeat", "2", "--queue", url, "--concurrency", "2"]);
  expect(local.code).toBe(1);
  expect(local.stderr).toMatch(/--concurrency set this host's machines, which check --queue does not use: give them to `pincer worker`/);
  const machines = await runPincer(["check", DATASET, "--repeat", "2", "--queue", url, "--env", "desktop=127.0.0.1:1"]);
  expect(machines.code).toBe(1);
  expect(machines.stderr).toMatch(
    /--env choose machines, which a queue's workers bring: give them to `pincer worker` \(leave them off `pincer check --queue`\)/,
  );
});

test("check --repeat 3 --queue over two workers: the runs as folders, the flaky and too lenient tasks named, exit 1; workers stop cleanly", async () => {
  redis = await startRedis(join(dir, "redis"));
  const a = startWorker(redis.url, "A");
  const b = startWorker(redis.url, "B");
  const logs = () => workers.map((w) => w.log()).join("\n");
  const out = join(dir, "health");
  const r = await runPincer(["check", DATASET, "--repeat", "3", "--queue", redis.url, "--out", out], { env: { ...process.env, PINCER_QUEUE_KEY: QUEUE_KEY } });
  const all = `${r.stderr}\n${r.stdout}\n${logs()}`;
  expect(r.code, all).toBe(1);
  expect(r.stdout).toMatch(/^healthy {5}t\/good: solution passed 3\/3 \(scores 1 1 1\), no actions 0, median \d+\.\d\d s$/m);
  expect(r.stdout).toMatch(/^FLAKY {7}t\/counted: solution passed 2\/3 \(scores 1 0 1\), no actions 0/m);
  expect(r.stdout).toMatch(/^TOO LENIENT t\/lenient: solution passed 3\/3 .*, no actions 1,/m);
  expect(r.stdout).toMatch(/^1 of 3 tasks healthy over 3 run\(s\) each; flaky 1: t\/counted; too lenient 1: t\/lenient$/m);
  expect(r.stderr).toMatch(/^no-actions: each task with no actions$/m);

  const health = JSON.parse(readFileSync(join(out, "health.json"), "utf8")) as HealthReport;
  expect(health).toMatchObject({ repeat: 3, tasks: 3, counts: { healthy: 1, flaky: 1, broken: 0, too_lenient: 1, unmeasured: 0 } });
  const byKey = Object.fromEntries(health.perTask.map((t) => [t.key, t]));
  expect(byKey["t/counted"]).toMatchObject({ status: "flaky", passes: 2, verdicts: 3, machineFailures: 0, scores: [1, 0, 1] });
  expect(byKey["t/lenient"]).toMatchObject({ status: "too_lenient", passes: 3, noActions: { state: "passed", score: 1 } });
  expect(byKey["t/good"]).toMatchObject({ status: "healthy", findings: [], passes: 3, noActions: { score: 0 } });
  for (const t of health.perTask) {
    for (const run of [...t.solutionRuns, t.noActions]) {
      const summary = JSON.parse(readFileSync(join(out, run.summary), "utf8"));
      expect([summary.id, summary.results.score]).toEqual([t.id, run.score]);
    }
  }
  expect(readdirSync(out).sort()).toEqual(["health.html", "health.json", "no-actions", "solution-1", "solution-2", "solution-3"]);
  // Each run a queue run with its own name in the queue, the agent named by kind, and its reports.
  const manifests = ["solution-1", "solution-2", "solution-3", "no-actions"].map((run) => JSON.parse(readFileSync(join(out, run, "manifest.json"), "utf8")));
  expect(manifests.map((m) => [m.run_id, m.agent.kind])).toEqual([
    ["solution-1", "scripted"],
    ["solution-2", "scripted"],
    ["solution-3", "scripted"],
    ["no-actions", "none"],
  ]);
  const names = manifests.map((m) => m.queue.run as string);
  for (const [i, n] of names.entries()) expect(n).toMatch(new RegExp(`^health-[0-9a-f-]{36}-${manifests[i].run_id}$`));
  expect(new Set(names.map((n) => n.slice(0, "health-".length + 36))).size).toBe(1);
  expect(existsSync(join(out, "solution-2", "report.html"))).toBe(true);
  // Every attempt was a worker's: 3 tasks × 4 runs, each begun once.
  const begun = [...logs().matchAll(/^(?:A|B): t\/\w+ attempt 1$/gm)].length;
  expect(begun, logs()).toBe(12);

  // The workers stop on SIGTERM, their machines with them.
  const machines = [a, b].flatMap((w) => descendants(w.pid!));
  expect(machines.length).toBeGreaterThan(0);
  for (const w of [a, b]) w.kill("SIGTERM");
  for (const w of [a, b]) expect(await exited(w), logs()).toBe(0);
  for (const end = Date.now() + 15_000; machines.some((p) => alive(p.pid)) && Date.now() < end; ) await new Promise((res) => setTimeout(res, 100));
  expect(machines.filter((p) => alive(p.pid)).map((p) => p.cmd)).toEqual([]);
}, 240_000);
