import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { createGzip, gzipSync } from "node:zlib";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, expect, test } from "vitest";
import { loadDataset } from "../../packages/controller/src/datasets/loader.js";
import { createRegistries } from "../../packages/controller/src/datasets/registries.js";
import { runOnQueue } from "../../packages/controller/src/queue/coordinator.js";
import { runKeys } from "../../packages/controller/src/queue/protocol.js";
import { redisConnection } from "../../packages/controller/src/queue/redis.js";
import { sha256Hex, sign } from "../../packages/controller/src/queue/signing.js";
import { SCRIPTED_QUEUE_SETTINGS, writeQuickTasks } from "../fixtures/quickTasks.js";
import { startRedis, type TestRedis } from "../fixtures/redisServer.js";

// The coordinator takes from Redis only what a worker holding the queue's key vouches for, and
// checks even that at the boundary: a result whose folder would leave it, whose summary misses
// fields, whose folder inflates past the limit, or that no key signed becomes that attempt's
// env_error with its reason, nothing of it half-written, and the run goes on to the next task.

const KEY = randomBytes(32).toString("hex");
const RUN = "records";
const MiB = 1024 * 1024;
let dir: string;
let server: TestRedis;
let redis: Redis;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "pincer-queue-records-"));
  server = await startRedis(join(dir, "redis"));
  redis = redisConnection(server.url);
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A bundle written by hand: the magic, each file's length-prefixed JSON header and bytes, the end mark. */
function frames(files: Array<{ p: string; data: Buffer }>): Buffer[] {
  const out: Buffer[] = [Buffer.from("PINCERB1")];
  for (const f of files) {
    const header = Buffer.from(JSON.stringify({ p: f.p, m: 0o644, s: f.data.length }));
    const len = Buffer.alloc(4);
    len.writeUInt32BE(header.length);
    out.push(len, header, f.data);
  }
  return out;
}
const bundle = (files: Array<{ p: string; data: Buffer }>) => gzipSync(Buffer.concat([...frames(files), Buffer.alloc(4)]));

/** A gzip of a few kB that inflates to one file of `mib` MiB. */
async function bomb(mib: number): Promise<Buffer> {
  const header = Buffer.from(JSON.stringify({ p: "screenshots/bomb.png", m: 0o644, s: mib * MiB }));
  const len = Buffer.alloc(4);
  len.writeUInt32BE(header.length);
  async function* gen() {
    yield* [Buffer.from("PINCERB1"), len, header];
    for (let i = 0; i < mib; i++) yield Buffer.alloc(MiB);
    yield Buffer.alloc(4);
  }
  const out: Buffer[] = [];
  for await (const c of Readable.from(gen()).pipe(createGzip({ level: 9 }))) out.push(c as Buffer);
  return Buffer.concat(out);
}

/** A whole summary.json of a finished attempt. */
function summaryOf(id: string, state: "passed" | "failed") {
  const now = new Date().toISOString();
  return {
    id,
    instruction: "x",
    results: {
      score: state === "passed" ? 1 : 0,
      state,
      agent_state: "agent_done",
      end_reason: "agent_complete",
      eval_error: null,
      eval_reason: "as expected",
      error: null,
      teardown_error: null,
      messages: [],
      total_tokens: 0,
      input_tokens: 0,
      output_tokens: 0,
      total_timing: { total_ms: 10, setup_ms: 1, model_ms: 0, env_ms: 1 },
      steps: 1,
      max_steps: 5,
      max_steps_rule: "",
      agent: "scripted",
      model: "",
      daemon_versions: {},
      environments: {},
      machine_reset: {},
      attempt: 1,
      metrics: {},
      started_at: now,
      finished_at: now,
    },
  };
}

/** A worker's record of attempt 1 of `task`, its folder put where the run's artifacts go; signed with `key` when given. */
async function attemptRecord(task: string, blob: Buffer, summary: unknown, key?: string): Promise<string> {
  const artifacts = runKeys(RUN).artifacts(task, 1);
  await redis.set(artifacts, blob, "EX", 3600);
  const rec = {
    kind: "attempt",
    run: RUN,
    task,
    attempt: 1,
    worker: "rogue",
    state: "passed",
    final: true,
    artifacts,
    artifactsSha256: sha256Hex(blob),
    summary,
  };
  return JSON.stringify(key ? sign(Buffer.from(KEY), "result", rec) : rec);
}

test("bad results become their attempts' env_error with the reason, nothing half-written, and the run goes on to the next task", async () => {
  const root = join(dir, "dataset");
  writeQuickTasks(root, { count: 5, tool: "r", prefix: "r", waitSeconds: () => 0 });
  const registries = createRegistries();
  const { tasks } = await loadDataset(root, registries);
  expect(tasks.map((t) => t.id)).toEqual(["r00", "r01", "r02", "r03", "r04"]);
  const good = bundle([{ p: "trajectory.jsonl", data: Buffer.from('{"step":1}\n') }]);
  const records = [
    "not JSON at all",
    await attemptRecord(
      "r/r00",
      bundle([
        { p: "ok.txt", data: Buffer.from("x") },
        { p: "../../../escape.txt", data: Buffer.from("out") },
      ]),
      summaryOf("r00", "passed"),
      KEY,
    ),
    await attemptRecord("r/r01", good, { id: "r01" }, KEY),
    await attemptRecord("r/r02", await bomb(16), summaryOf("r02", "passed"), KEY),
    // Written by someone who can write to Redis but has no key: a verdict of their choosing.
    await attemptRecord("r/r03", good, summaryOf("r03", "passed")),
    await attemptRecord("r/r04", good, summaryOf("r04", "passed"), KEY),
  ];
  await redis.rpush(runKeys(RUN).results, ...records);
  const out = join(dir, "results");
  const { runDir, report } = await runOnQueue({
    url: server.url,
    key: Buffer.from(KEY),
    queueName: "records",
    tasks,
    registries,
    datasetRoot: root,
    settings: SCRIPTED_QUEUE_SETTINGS,
    outDir: out,
    runId: RUN,
    maxArtifactBytes: 4 * MiB,
    pollMs: 50,
  });
  const summary = (id: string) => JSON.parse(readFileSync(join(runDir, "r", id, "attempt-1", "summary.json"), "utf8"));
  const errors = Object.fromEntries(["r00", "r01", "r02", "r03"].map((id) => [id, [summary(id).results.state, summary(id).results.error]]));
  expect(errors).toEqual({
    r00: ["env_error", expect.stringMatching(/result of attempt 1 from worker rogue was refused: .*escape\.txt.* would leave its folder/)],
    r01: ["env_error", expect.stringMatching(/result of attempt 1 from worker rogue was refused: its summary .*results/)],
    r02: ["env_error", expect.stringMatching(/result of attempt 1 from worker rogue was refused: .*more than 4194304 .*refused, nothing written/)],
    r03: ["env_error", expect.stringMatching(/result of attempt 1 from worker rogue was refused: the result is not signed/)],
  });
  expect(summary("r04").results.state).toBe("passed");
  expect(readFileSync(join(runDir, "r", "r04", "attempt-1", "trajectory.jsonl"), "utf8")).toBe('{"step":1}\n');
  expect([report.tasks, report.passed]).toEqual([5, 1]);
  // Nothing of a refused folder: not its good file, not a partial folder, not the escaping file.
  expect(readdirSync(join(runDir, "r", "r00", "attempt-1"))).toEqual(["summary.json"]);
  expect(readdirSync(join(runDir, "r", "r02", "attempt-1"))).toEqual(["summary.json"]);
  for (const id of ["r00", "r01", "r02", "r03", "r04"]) expect(readdirSync(join(runDir, "r", id)), id).toEqual(["attempt-1"]);
  expect(existsSync(join(runDir, "escape.txt")) || existsSync(join(out, "escape.txt")) || existsSync(join(dir, "escape.txt"))).toBe(false);
}, 60_000);
