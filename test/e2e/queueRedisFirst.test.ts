import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { descendants } from "../fixtures/processes.js";
import { buildCli, exited, pincerBin, queueEnv, stopAll, until } from "../fixtures/queueBin.js";
import { writeQuickTasks } from "../fixtures/quickTasks.js";
import { startRedis, type TestRedis } from "../fixtures/redisServer.js";

// The coordinator (`pincer run --queue`) and a worker check the queue's Redis, its password
// included, before anything else: a Redis with requirepass given no password or a wrong one, or
// no Redis at all, ends them at once with what to fix — no machine started, no task said to be
// queued, no run folder made. Started as installed (the package's bin), against a real Redis.

const PASSWORD = randomBytes(12).toString("hex");
const dir = mkdtempSync(join(tmpdir(), "pincer-queue-redis-first-"));
const procs: ChildProcess[] = [];
let server: TestRedis;
let env: NodeJS.ProcessEnv;
const dataset = join(dir, "dataset");

beforeAll(async () => {
  buildCli();
  server = await startRedis(join(dir, "redis"), { password: PASSWORD });
  const keyFile = join(dir, "queue.key");
  writeFileSync(keyFile, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600 });
  env = queueEnv({ PINCER_QUEUE_KEY_FILE: keyFile });
  writeQuickTasks(dataset, { count: 3, tool: "first", prefix: "r", waitSeconds: () => 0 });
}, 120_000);
afterAll(async () => {
  await stopAll(procs);
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** Runs `pincer ARGS` to its end (SIGKILL after `ms`), watching every process it starts. */
async function watch(args: string[], extraEnv: NodeJS.ProcessEnv = {}, ms = 30_000) {
  const started = Date.now();
  const p = pincerBin(args, { ...env, ...extraEnv }, args[0]!, procs);
  const seen = new Set<string>();
  const poll = setInterval(() => {
    for (const d of descendants(p.pid!)) seen.add(d.cmd);
  }, 50);
  const timer = setTimeout(() => p.kill("SIGKILL"), ms);
  const code = await exited(p);
  clearTimeout(timer);
  clearInterval(poll);
  return { code, seconds: (Date.now() - started) / 1000, log: p.log(), seen: [...seen] };
}

const wrongPassword = () => `unix:${server.socket}?password=not-${PASSWORD}`;
const REFUSED = /the queue's Redis at unix:.* refused the password .*: give its requirepass in the URL or PINCER_QUEUE_PASSWORD/;

describe("a Redis with a password", () => {
  test("a worker given no password or a wrong one stops at once saying what to fix, with no machine started", async () => {
    for (const url of [server.url, wrongPassword()]) {
      const r = await watch(["worker", "--queue", url]);
      expect(r.code, r.log).toBe(1);
      expect(r.log).toMatch(REFUSED);
      expect(r.log).not.toContain(`not-${PASSWORD}`);
      expect(r.seconds, r.log).toBeLessThan(10);
      expect(r.seen, r.log).toEqual([]);
      expect(r.log).not.toMatch(/slot|machine/i);
    }
  }, 60_000);

  test("a coordinator given no password or a wrong one stops at once, before it queues anything or makes a run folder", async () => {
    for (const url of [server.url, wrongPassword()]) {
      const out = join(dir, `results-${randomBytes(4).toString("hex")}`);
      const r = await watch(["run", dataset, "--queue", url, "--out", out]);
      expect(r.code, r.log).toBe(1);
      expect(r.log).toMatch(REFUSED);
      expect(r.log).not.toMatch(/to the queue|workers take them/);
      expect(r.seconds, r.log).toBeLessThan(10);
      expect(existsSync(out)).toBe(false);
    }
  }, 60_000);

  test("PINCER_QUEUE_PASSWORD gives the password: the worker starts", async () => {
    const worker = pincerBin(["worker", "--queue", server.url], { ...env, PINCER_QUEUE_PASSWORD: PASSWORD }, "worker", procs);
    await until(
      "the worker taking tasks",
      () => /taking tasks from/.test(worker.log()),
      () => worker.log(),
      60_000,
    );
    worker.kill("SIGTERM");
    expect(await exited(worker), worker.log()).toBe(0);
  }, 90_000);
});

test("a coordinator with no Redis there says so before anything is queued, and makes no run folder", async () => {
  const out = join(dir, "results-absent");
  const r = await watch(["run", dataset, "--queue", `unix:${join(dir, "absent.sock")}`, "--out", out]);
  expect(r.code, r.log).toBe(1);
  expect(r.log).toMatch(/cannot reach the queue's Redis at unix:.*absent\.sock.*: is redis-server running there/);
  expect(r.log).not.toMatch(/to the queue|workers take them/);
  expect(r.seconds, r.log).toBeLessThan(20);
  expect(existsSync(out)).toBe(false);
}, 60_000);
