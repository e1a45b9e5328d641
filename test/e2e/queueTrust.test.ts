import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { packFiles } from "../../packages/controller/src/queue/bundle.js";
import { redisConnection } from "../../packages/controller/src/queue/redis.js";
import { sha256Hex, sign } from "../../packages/controller/src/queue/signing.js";
import { descendants } from "../fixtures/processes.js";
import { startRedis, type TestRedis } from "../fixtures/redisServer.js";

// The queue trusts only its coordinator. Each test is an attack by someone who can write to the
// queue's Redis (or who holds a signed job of another run) against a real `pincer worker` process
// with a real machine: what the job asks for must never happen — a task module's top-level code
// (it would create a marker file here), a model request to a listener of the attacker's (a TCP
// server this test owns, which must see no connection), a task run under another run's name.

const ROOT = resolve(import.meta.dirname, "../..");
const CLI = resolve(ROOT, "packages/controller/src/cli/main.ts");
const KEY = randomBytes(32).toString("hex");
const QUEUE = "pincer-tasks.desktop";
const SETTINGS = { agent: { kind: "none" }, maxSteps: 2, taskTimeoutMs: 30_000, screenshots: false, settle: false, record: false, attempts: 1 };
const dir = mkdtempSync(join(tmpdir(), "pincer-queue-trust-"));
const procs: ChildProcess[] = [];
let server: TestRedis;
let redis: Redis;
let queue: Queue;
let queueConnection: Redis;
let worker: ChildProcess & { log: () => string };
let attacker: { server: Server; port: number; connections: string[] };

function cli(args: string[], env: NodeJS.ProcessEnv): ChildProcess & { log: () => string } {
  const child = spawn(process.execPath, ["--conditions=@pincer/source", "--import", "tsx", CLI, ...args], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  }) as ChildProcess & { log: () => string };
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  child.log = () => out;
  procs.push(child);
  return child;
}

/** This process's environment without any model endpoint or queue setting of its own. */
function cleanEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (/^(PINCER_QUEUE|OPENAI_|ANTHROPIC_)/.test(k)) delete env[k];
  return { ...env, ...extra };
}

const exited = (p: ChildProcess) =>
  p.exitCode !== null || p.signalCode !== null ? Promise.resolve(p.exitCode) : new Promise<number | null>((r) => p.once("exit", (code) => r(code)));

beforeAll(async () => {
  server = await startRedis(join(dir, "redis"));
  redis = redisConnection(server.url);
  queueConnection = redisConnection(server.url);
  queue = new Queue(QUEUE, { connection: queueConnection });
  // The attacker's endpoint: it records every connection and the request's first line and Authorization header.
  const connections: string[] = [];
  const srv = createServer((socket) => {
    connections.push("connected");
    socket.once("data", (d: Buffer) => {
      const text = d.toString();
      connections.push(`${text.split("\r\n")[0]} ${/^authorization:.*$/im.exec(text)?.[0] ?? ""}`);
      socket.end("HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
    });
  }).listen(0, "127.0.0.1");
  await new Promise((r) => srv.once("listening", r));
  attacker = { server: srv, port: (srv.address() as { port: number }).port, connections };
  // One worker with its own model key, the queue key, and task modules not allowed.
  worker = cli(["worker", "--queue", server.url, "--name", "victim"], cleanEnv({ PINCER_QUEUE_KEY: KEY, OPENAI_API_KEY: "sk-worker-secret" }));
  for (const end = Date.now() + 60_000; !/taking tasks from/.test(worker.log()); await new Promise((r) => setTimeout(r, 100))) {
    if (Date.now() > end || worker.exitCode !== null) throw new Error(`the worker did not start:\n${worker.log()}`);
  }
}, 90_000);

afterAll(async () => {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill("SIGTERM");
  for (const p of procs) await exited(p);
  await queue?.close();
  queueConnection?.disconnect();
  redis?.disconnect();
  attacker?.server.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** A dataset folder holding one task module whose top-level code creates `marker`. */
function moduleDataset(name: string, marker: string): string {
  const root = join(dir, name);
  mkdirSync(join(root, "t"), { recursive: true });
  writeFileSync(
    join(root, "t", `${name}.task.mjs`),
    `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "top-level code ran on the worker host");\n` +
      `export default { id: ${JSON.stringify(name)}, instruction: "x", build: () => ({ evaluator: () => 1 }) };\n`,
  );
  return root;
}

/** A dataset folder holding one JSON task `t/<name>` (nothing set up; judged by a file the agent would write). */
function jsonDataset(name: string): string {
  const t = join(dir, name, "t", name);
  mkdirSync(t, { recursive: true });
  writeFileSync(join(t, "expected.txt"), "x\n");
  writeFileSync(
    join(t, `${name}.json`),
    JSON.stringify({
      id: name,
      instruction: `Write x into /tmp/pincer-queue-trust/${name}.txt.`,
      config: [],
      evaluation: { func: "compare_text_file", arguments: { local_expected: "expected.txt", vm_result: `/tmp/pincer-queue-trust/${name}.txt` } },
    }),
  );
  return join(dir, name);
}

/** Puts `root`'s files in Redis where a run's bundle goes and adds a job for `taskKey`, as a coordinator would (signed when `key` is given). */
async function putJob(root: string, runId: string, taskKey: string, opts: { format: string; settings?: object; key?: string }) {
  const blob = await packFiles(root, { maxBytes: 1 << 20, what: "the attacker's files", limitFlag: "-" });
  const bundle = `pincer:run:${runId}:bundle:${taskKey}`;
  await redis.set(bundle, blob, "EX", 3600);
  const data = {
    runId,
    taskKey,
    taskId: taskKey.split("/")[1]!,
    environments: ["desktop"],
    format: opts.format,
    bundle,
    bundleSha256: sha256Hex(blob),
    moduleType: "module",
    settings: opts.settings ?? SETTINGS,
    issuedAt: Date.now(),
  };
  const job = opts.key ? sign(Buffer.from(opts.key), "job", data) : data;
  return queue.add(taskKey, job, { jobId: `${runId}/${taskKey}`, attempts: 1 });
}

/** Waits until the job has ended (completed or failed) and returns its state and failure. */
async function ended(jobId: string): Promise<{ state: string; reason: string | undefined }> {
  for (const end = Date.now() + 90_000; ; await new Promise((r) => setTimeout(r, 100))) {
    const state = await queue.getJobState(jobId);
    if (state === "completed" || state === "failed") return { state, reason: (await queue.getJob(jobId))?.failedReason };
    if (Date.now() > end) throw new Error(`job ${jobId} still ${state}\n${worker.log()}`);
  }
}

const resultsOf = async (runId: string) => (await redis.lrange(`pincer:run:${runId}:results`, 0, -1)).map((r) => JSON.parse(r));

describe("a worker runs only what its coordinator signed", () => {
  test("a forged, unsigned job carrying a task module never runs: its top-level code does not run, the job is refused and logged", async () => {
    const marker = join(dir, "marker-forged");
    await putJob(moduleDataset("forged", marker), "forged-run", "t/forged", { format: "module" });
    const { state, reason } = await ended("forged-run/t/forged");
    expect(existsSync(marker), worker.log()).toBe(false);
    expect(state).toBe("failed");
    expect(reason).toMatch(/refused: the job is not signed/);
    expect(worker.log()).toMatch(/refused job forged-run\/t\/forged.*not signed/);
    expect(await resultsOf("forged-run")).toEqual([]);
  });

  test("a forged job naming its own model endpoint sends nothing there, the worker's key least of all", async () => {
    const agent = { kind: "openai", model: "gpt-x", baseUrl: `http://127.0.0.1:${attacker.port}/v1` };
    await putJob(jsonDataset("exfil"), "exfil-run", "t/exfil", { format: "json", settings: { ...SETTINGS, agent } });
    const { state, reason } = await ended("exfil-run/t/exfil");
    expect(attacker.connections, worker.log()).toEqual([]);
    expect([state, reason]).toEqual(["failed", expect.stringMatching(/not signed/)]);
  });

  test("even a signed job cannot name the model's endpoint: that attempt is an env_error saying where the endpoint is set, and nothing is sent", async () => {
    const agent = { kind: "openai", model: "gpt-x", baseUrl: `http://127.0.0.1:${attacker.port}/v1` };
    await putJob(jsonDataset("signed-exfil"), "signed-exfil-run", "t/signed-exfil", { format: "json", settings: { ...SETTINGS, agent }, key: KEY });
    await ended("signed-exfil-run/t/signed-exfil");
    expect(attacker.connections, worker.log()).toEqual([]);
    const [rec] = await resultsOf("signed-exfil-run");
    expect(rec).toMatchObject({ kind: "error", final: true });
    expect(rec.error).toMatch(/settings\.agent.*baseUrl.*the worker's own: pincer worker --base-url/);
  });

  test("a signed job replayed for another run or task is refused and runs nothing", async () => {
    const root = jsonDataset("replayed");
    const original = await putJob(root, "legit-run", "t/replayed", { format: "json", key: KEY });
    await ended("legit-run/t/replayed");
    const signed = original.data as Record<string, unknown>;
    const blob = (await redis.getBuffer(signed.bundle as string))!;
    for (const [runId, taskKey] of [
      ["replay-run", "t/replayed"],
      ["legit-run", "t/other"],
    ] as const) {
      const bundle = `pincer:run:${runId}:bundle:${taskKey}`;
      await redis.set(bundle, blob, "EX", 3600);
      await queue.add(taskKey, { ...signed, runId, taskKey, bundle }, { jobId: `${runId}/${taskKey}` });
      const { state, reason } = await ended(`${runId}/${taskKey}`);
      expect([state, reason], worker.log()).toEqual(["failed", expect.stringMatching(/signature does not match the queue key/)]);
    }
    expect(await resultsOf("replay-run")).toEqual([]);
    expect((await resultsOf("legit-run")).map((r) => r.task)).toEqual(["t/replayed"]);
  });

  test("a signed job carrying a task module, on a worker not started with --allow-task-modules, is that attempt's env_error naming the flag", async () => {
    const marker = join(dir, "marker-signed");
    await putJob(moduleDataset("signedmod", marker), "module-run", "t/signedmod", { format: "module", key: KEY });
    await ended("module-run/t/signedmod");
    expect(existsSync(marker), worker.log()).toBe(false);
    const [rec] = await resultsOf("module-run");
    expect(rec).toMatchObject({ kind: "error", final: true, task: "t/signedmod" });
    expect(rec.error).toMatch(/task module.*code execution on the worker host.*--allow-task-modules/);
  });

  test("a signed job naming an agent program, on a worker without --allow-agent-programs, is env_error naming the flag; the program never runs", async () => {
    const marker = join(dir, "marker-program");
    const command = ["sh", "-c", `touch ${marker}`];
    await putJob(jsonDataset("program"), "program-run", "t/program", {
      format: "json",
      key: KEY,
      settings: { ...SETTINGS, agent: { kind: "command", command } },
    });
    await ended("program-run/t/program");
    expect(existsSync(marker), worker.log()).toBe(false);
    const [rec] = await resultsOf("program-run");
    expect(rec).toMatchObject({ kind: "error", final: true, task: "t/program" });
    expect(rec.error).toMatch(
      /its run's agent is a program \(sh -c touch .*\), which runs on the worker host outside any machine's sandbox.*--allow-agent-programs/,
    );
  });
});

describe("a worker checks what it needs before it starts machines", () => {
  /** Starts a worker and records every process it ever has below it, until it exits (or `ms` pass: then it is stopped). */
  async function watch(args: string[], env: NodeJS.ProcessEnv, ms = 40_000) {
    const p = cli(["worker", ...args], cleanEnv(env));
    const seen = new Set<string>();
    const started = Date.now();
    const poll = setInterval(() => {
      // tsx's esbuild service is the CLI's own; anything else below the worker is a machine.
      for (const d of descendants(p.pid!)) if (!/esbuild/.test(d.cmd)) seen.add(d.cmd);
    }, 50);
    const timer = setTimeout(() => p.kill("SIGKILL"), ms);
    const code = await exited(p);
    clearTimeout(timer);
    clearInterval(poll);
    return { code, seconds: (Date.now() - started) / 1000, log: p.log(), seen: [...seen] };
  }

  test("an unreachable Redis: the worker fails with what to do and has started no machine", async () => {
    const r = await watch(["--queue", `unix:${join(dir, "absent.sock")}`], { PINCER_QUEUE_KEY: KEY });
    expect(r.code, r.log).toBe(1);
    expect(r.log).toMatch(/cannot reach the queue's Redis at unix:.*absent\.sock/);
    expect(r.seen, r.log).toEqual([]);
    expect(r.log).not.toMatch(/machine|slot/i);
  }, 60_000);

  test("no key, a short key or a key file others can read: the worker and the coordinator refuse to start and say how to make one", async () => {
    const noKey = await watch(["--queue", server.url], {});
    expect(noKey.code, noKey.log).toBe(1);
    expect(noKey.log).toMatch(/no queue key: .*openssl rand -hex 32 > queue\.key && chmod 600 queue\.key.*--queue-key-file/);
    expect(noKey.seen).toEqual([]);
    const open = join(dir, "open.key");
    writeFileSync(open, `${KEY}\n`, { mode: 0o644 });
    const readable = await watch(["--queue", server.url, "--queue-key-file", open], {});
    expect(readable.code, readable.log).toBe(1);
    expect(readable.log).toMatch(/can be read or written by other users \(mode 644\): run `chmod 600 .*open\.key`/);
    const short = await watch(["--queue", server.url], { PINCER_QUEUE_KEY: "abc" });
    expect(short.log).toMatch(/shorter than 32 characters/);
    const run = cli(["run", jsonDataset("nokey"), "--queue", server.url, "--out", join(dir, "results")], cleanEnv({}));
    const timer = setTimeout(() => run.kill("SIGKILL"), 30_000);
    expect(await exited(run), run.log()).toBe(1);
    clearTimeout(timer);
    expect(run.log()).toMatch(/no queue key: .*openssl rand -hex 32/);
    expect(existsSync(join(dir, "results"))).toBe(false);
    // The model's endpoint is each worker's: a coordinator that names one is refused before anything is queued.
    const endpoint = cli(
      [
        ...["run", jsonDataset("endpoint"), "--queue", server.url, "--out", join(dir, "results-endpoint")],
        ...["--agent", "openai", "--model", "m", "--base-url", `http://127.0.0.1:${attacker.port}/v1`],
      ],
      cleanEnv({ PINCER_QUEUE_KEY: KEY }),
    );
    const endpointTimer = setTimeout(() => endpoint.kill("SIGKILL"), 30_000);
    expect(await exited(endpoint), endpoint.log()).toBe(1);
    clearTimeout(endpointTimer);
    expect(endpoint.log()).toMatch(/--base-url names the model's endpoint, which a queue's workers choose .*pincer worker --base-url/);
  }, 120_000);
});
