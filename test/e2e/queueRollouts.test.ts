import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { createRegistries, loadDataset } from "@pincer/controller/datasets";
import { localProvider, openPool, type MachinePool } from "@pincer/controller/machines";
import { type QueueWorker, runOnQueue, startWorker } from "@pincer/controller/queue";
import { SCRIPTED_QUEUE_SETTINGS, writeQuickTasks } from "../fixtures/quickTasks.js";
import { startRedis, type TestRedis } from "../fixtures/redisServer.js";

// Two rollouts of one task through the queue (real Redis, a worker with two local machines, the
// coordinator): one job per rollout, run at once on the worker's two slots, gathered into
// <tool>/<id>/rollout-<r>/attempt-<n>/ and the report; a resume of the finished run runs nothing again.

const dir = mkdtempSync(join(tmpdir(), "pincer-queue-rollouts-"));
let server: TestRedis | undefined;
let pool: MachinePool | undefined;
let worker: QueueWorker | undefined;
let programWorker: QueueWorker | undefined;

afterAll(async () => {
  await worker?.close(true);
  await programWorker?.close(true);
  await pool?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

test("--rollouts 2 over a queue: a job per rollout, both in the run folder's rollout layout and the report; resume keeps them", async () => {
  const root = join(dir, "dataset");
  writeQuickTasks(root, { count: 1, tool: "q", prefix: "q", waitSeconds: () => 1 });
  const registries = createRegistries();
  const { tasks } = await loadDataset(root, registries);
  server = await startRedis(join(dir, "redis"));
  const key = randomBytes(32);
  pool = await openPool(localProvider({ width: 800, height: 600 }), ["desktop"], 2);
  const lines: string[] = [];
  worker = await startWorker({ url: server.url, pool, registries, key, name: "W", queueName: "rollouts", log: (l) => lines.push(l) });
  const run = (resume: boolean) =>
    runOnQueue({
      url: server!.url,
      key,
      queueName: "rollouts",
      tasks,
      registries,
      datasetRoot: root,
      settings: { ...SCRIPTED_QUEUE_SETTINGS, rollouts: 2 },
      outDir: join(dir, "results"),
      runId: "qr",
      resume,
      pollMs: 50,
    });
  const { runDir, report } = await run(false);
  const taskDir = join(runDir, "q", "q00");
  expect(readdirSync(taskDir).sort()).toEqual(["rollout-1", "rollout-2"]);
  const summary = (r: number) => JSON.parse(readFileSync(join(taskDir, `rollout-${r}`, "attempt-1", "summary.json"), "utf8")).results;
  expect([summary(1), summary(2)].map((s) => [s.rollout, s.attempt, s.state])).toEqual([
    [1, 1, "passed"],
    [2, 1, "passed"],
  ]);
  // The worker ran each rollout as a job of its own, at once on its two slots.
  expect(lines.filter((l) => /W: q\/q00\/rollout-[12] attempt 1/.test(l))).toHaveLength(2);
  const started = [summary(1), summary(2)].map((s) => Date.parse(s.started_at));
  const finished = [summary(1), summary(2)].map((s) => Date.parse(s.finished_at));
  expect(started[0]! < finished[1]! && started[1]! < finished[0]!).toBe(true);
  expect(report.perTask[0]!.rollouts).toMatchObject({ planned: 2, n: 2, c: 2, passAt: { "1": 1, "2": 1 }, bestOfN: 1 });
  expect(readFileSync(join(runDir, "report.md"), "utf8")).toMatch(/\| q00 \| 1: 1\.00, 2: 1\.00 \| 2 \| 2 \| 0 \| 1\.000 \| 1\.000 \|/);
  expect(JSON.parse(readFileSync(join(runDir, "manifest.json"), "utf8"))).toMatchObject({ rollouts: 2 });
  // Resumed, the finished run runs nothing again: both rollouts have their verdict.
  const before = lines.length;
  const again = await run(true);
  expect(again.report.perTask[0]!.rollouts).toMatchObject({ n: 2, c: 2 });
  expect(lines.slice(before).filter((l) => / attempt \d/.test(l))).toEqual([]);
  expect(readdirSync(join(taskDir, "rollout-1"))).toEqual(["attempt-1"]);
}, 120_000);

test("an agent program's rollouts over a queue, on a worker started with --allow-agent-programs: pass@1 0.5, pass@2 1", async () => {
  const root = join(dir, "program-dataset");
  writeQuickTasks(root, { count: 1, tool: "p", prefix: "p", waitSeconds: () => 0 });
  const registries = createRegistries();
  const { tasks } = await loadDataset(root, registries);
  server ??= await startRedis(join(dir, "redis"));
  pool ??= await openPool(localProvider({ width: 800, height: 600 }), ["desktop"], 2);
  const key = randomBytes(32);
  const lines: string[] = [];
  programWorker = await startWorker({
    url: server.url,
    pool,
    registries,
    key,
    name: "P",
    queueName: "program-rollouts",
    allowAgentPrograms: true,
    log: (l) => lines.push(l),
  });
  const agent = { kind: "command", command: [process.execPath, join(import.meta.dirname, "../fixtures/agent-programs/rolloutAgent.mjs")] };
  const { runDir, report } = await runOnQueue({
    url: server.url,
    key,
    queueName: "program-rollouts",
    tasks,
    registries,
    datasetRoot: root,
    settings: { ...SCRIPTED_QUEUE_SETTINGS, agent, rollouts: 2 },
    outDir: join(dir, "results"),
    runId: "qp",
    pollMs: 50,
  });
  expect(report.perTask[0]!.rollouts, lines.join("\n")).toMatchObject({ planned: 2, n: 2, c: 1, passAt: { "1": 0.5, "2": 1 }, bestOfN: 1 });
  const log = (r: number) => readFileSync(join(runDir, "p", "p00", `rollout-${r}`, "attempt-1", "agent", "stdout.log"), "utf8");
  expect([log(1), log(2)]).toEqual(["rollout 1 done\n", "rollout 2 done\n"]);
}, 120_000);
