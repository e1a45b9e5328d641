import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { buildCli, exited, pincerBin, queueEnv, stopAll, until } from "../fixtures/queueBin.js";
import { startRedis, type TestRedis } from "../fixtures/redisServer.js";

// Task modules load on a worker started as docs/queue.md starts it: `npx pincer worker`, which is
// plain node on the package's bin (no tsx around it). The examples' TypeScript task modules go over
// a real Redis to two such workers (one with a desktop, one with a desktop and a server) and pass.

const ROOT = resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "pincer-queue-modules-"));
const procs: ChildProcess[] = [];
let redis: TestRedis | undefined;

beforeAll(buildCli, 120_000);
afterAll(async () => {
  await stopAll(procs);
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

test("workers started through the package's bin run the examples' TypeScript task modules over the queue", async () => {
  redis = await startRedis(join(dir, "redis"));
  const keyFile = join(dir, "queue.key");
  writeFileSync(keyFile, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600 });
  const env = queueEnv({ PINCER_QUEUE: redis.url, PINCER_QUEUE_KEY_FILE: keyFile });
  const desktop = pincerBin(["worker", "--allow-task-modules", "--name", "desk"], env, "worker desk", procs);
  const pair = pincerBin(["worker", "--allow-task-modules", "--name", "pair", "--environments", "desktop,server"], env, "worker pair", procs);
  const run = pincerBin(
    ["run", join(ROOT, "examples"), "--task", "scaffold", "--task", "hand-over", "--queue", redis.url, "--out", join(dir, "results"), "--run-id", "modules"],
    env,
    "coordinator",
    procs,
  );
  const logs = () => [desktop, pair, run].map((p) => p.log()).join("\n");
  const timer = setTimeout(() => run.kill("SIGKILL"), 240_000);
  const code = await exited(run);
  clearTimeout(timer);
  expect(logs()).not.toMatch(/Unknown file extension|need a loader/);
  expect(code, logs()).toBe(0);
  const summary = (tool: string, id: string) =>
    JSON.parse(readFileSync(join(dir, "results", "modules", tool, id, "attempt-1", "summary.json"), "utf8")) as { results: Record<string, unknown> };
  expect([summary("projects", "scaffold").results.state, summary("multi", "hand-over").results.state], logs()).toEqual(["passed", "passed"]);
  expect(run.log()).toMatch(/projects\/scaffold: passed \(attempt 1, worker desk\)/);
  expect(run.log()).toMatch(/multi\/hand-over: passed \(attempt 1, worker pair\)/);
  // The workers stop on SIGTERM, as a service manager stops them.
  for (const w of [desktop, pair]) w.kill("SIGTERM");
  for (const w of [desktop, pair]) expect(await exited(w), logs()).toBe(0);
  await until("nothing left", () => procs.every((p) => p.exitCode !== null || p.signalCode !== null), logs, 10_000);
}, 300_000);
