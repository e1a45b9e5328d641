import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, expect, test } from "vitest";
import { runOnQueue } from "../../packages/controller/src/queue/coordinator.js";
import { loadDataset } from "../../packages/controller/src/datasets/loader.js";
import { createRegistries } from "../../packages/controller/src/datasets/registries.js";
import { SCRIPTED_QUEUE_SETTINGS } from "../fixtures/quickTasks.js";
import { startRedis, type TestRedis } from "../fixtures/redisServer.js";

// examples/deploy/pincer-worker.service, tried as far as a machine without systemd as PID 1 allows:
// systemd-analyze verify passes it, and the worker is started the way the unit starts it (its
// EnvironmentFile, its ExecStart with $PINCER_WORKER_ARGS split into words, %H as the host name),
// runs a run's tasks, and stops cleanly on the unit's KillSignal.

const ROOT = resolve(import.meta.dirname, "../..");
const UNIT = readFileSync(join(ROOT, "examples/deploy/pincer-worker.service"), "utf8");
const dir = mkdtempSync(join(tmpdir(), "pincer-worker-unit-"));
let redis: TestRedis | undefined;
afterAll(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The [Service] section's settings (a key given twice keeps the last). */
function serviceSettings(unit: string): Record<string, string> {
  const section = unit.split(/^\[Service\]$/m)[1]!.split(/^\[/m)[0]!;
  return Object.fromEntries(
    section
      .split("\n")
      .filter((l) => /^[A-Za-z]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
}

/** ExecStart as systemd expands it: %H the host name, $VAR split into words, ${VAR} one word. */
function expandExecStart(line: string, env: Record<string, string>): string[] {
  return line
    .split(/\s+/)
    .flatMap((w) => (/^\$[A-Z_]+$/.test(w) ? (env[w.slice(1)] ?? "").split(/\s+/).filter(Boolean) : [w.replace(/\$\{([A-Z_]+)\}/g, (_, v) => env[v] ?? "")]))
    .map((w) => w.replace(/%H/g, hostname()));
}

test("the worker unit verifies, starts a worker that runs a run's tasks, and stops cleanly on its KillSignal", async () => {
  const s = serviceSettings(UNIT);
  const [binary] = s.ExecStart!.split(/\s+/);
  // Stand-ins for the install: the pincer binary runs this checkout's CLI; the env file is ours.
  const pincer = join(dir, "pincer");
  const tsx = import.meta.resolve("tsx"); // by URL: the unit's working folder is not this checkout
  writeFileSync(
    pincer,
    `#!/bin/sh\nexec "${process.execPath}" --conditions=@pincer/source --import ${tsx} "${join(ROOT, "packages/controller/src/cli/main.ts")}" "$@"\n`,
  );
  chmodSync(pincer, 0o755);
  redis = await startRedis(join(dir, "redis"));
  const envFile = join(dir, "worker.env");
  // The queue's key as the unit's comment says to install it: a file of mode 600 that worker.env names.
  const key = randomBytes(32).toString("hex");
  const keyFile = join(dir, "queue.key");
  writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
  writeFileSync(envFile, `PINCER_QUEUE=${redis.url}\nPINCER_QUEUE_KEY_FILE=${keyFile}\nPINCER_WORKER_ARGS=--concurrency 1 --queue-name unit-test\n`, {
    mode: 0o600,
  });
  const unitCopy = join(dir, "pincer-worker.service");
  writeFileSync(unitCopy, UNIT.replace(binary!, pincer).replace(s.EnvironmentFile!, envFile));
  const verify = spawnSync("systemd-analyze", ["verify", unitCopy], { encoding: "utf8" });
  expect(verify.error, "systemd-analyze is missing: apt-get install systemd (scripts/install-system-deps.sh)").toBeUndefined();
  expect(`${verify.stdout}${verify.stderr}`.trim()).toBe("");
  expect(verify.status).toBe(0);

  const env = Object.fromEntries(
    readFileSync(envFile, "utf8")
      .split("\n")
      .filter((l) => l.includes("="))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
  const [, ...args] = expandExecStart(s.ExecStart!, env);
  const worker = spawn(pincer, args, { cwd: dir, env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  worker.stderr!.on("data", (d: Buffer) => (log += d.toString()));
  try {
    const data = join(ROOT, "examples");
    const registries = createRegistries();
    const tasks = (await loadDataset(data, registries)).tasks.filter((t) => t.tool === "terminal" && t.id.startsWith("write-greeting"));
    expect(tasks.length).toBe(2);
    const settings = SCRIPTED_QUEUE_SETTINGS;
    const stopped = new Promise<never>((_, reject) => worker.once("exit", (code) => reject(new Error(`the worker stopped (${code}):\n${log}`))));
    const run = runOnQueue({
      url: redis.url,
      key: Buffer.from(key),
      queueName: "unit-test",
      tasks,
      registries,
      datasetRoot: data,
      settings,
      outDir: join(dir, "results"),
      runId: "unit",
    });
    const { report } = await Promise.race([run, stopped]);
    expect([report.tasks, report.passed], log).toEqual([2, 2]);
    expect(log).toContain(`worker ${hostname()}: taking tasks from unit-test.desktop`);
  } finally {
    const exited = new Promise<number | null>((r) => (worker.exitCode !== null ? r(worker.exitCode) : worker.once("exit", (code) => r(code))));
    worker.kill(s.KillSignal as NodeJS.Signals);
    expect(await exited, log).toBe(0);
  }
}, 120_000);
