import { readFileSync } from "node:fs";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { CancelledError, ResourceExhaustedError } from "@pincer/controller";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";

// Hostile clients, part 2: calls their callers abandon. A walk of a large accessibility tree
// costs the daemon 100-150 MiB and seconds of CPU; sixteen of them abandoned after half a second
// used to run on regardless, all at once (4 GiB, minutes of CPU, health checks failing, SIGTERM
// ignored). Now a walk stops when its caller goes away, at most two run at once (the rest are
// RESOURCE_EXHAUSTED at once), and SIGTERM stops the daemon within a second whatever runs.

/** Four zenity lists of 1000 rows and 4 columns: about 4,100 accessible nodes. */
const LISTS = 4;
const ROWS = Array.from({ length: 1000 }, (_, i) => [`row ${i} a`, `row ${i} b`, `row ${i} c`, `row ${i} d`]).flat();
/** Calls per round, and how long each caller waits before giving up, in ms. */
const STORM = 16;
const ABANDON_MS = 500;
const MIB = 1024 * 1024;

let daemon: RunningDaemon;
let health: grpc.Client;

beforeAll(async () => {
  daemon = await spawnDaemon({ args: ["--xvfb", "1280x1024x24", "--accessibility-bus"] });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  for (let k = 0; k < LISTS; k++) {
    const columns = ["A", "B", "C", "D"].flatMap((c) => ["--column", c]);
    await daemon.env.process.launch(["zenity", "--list", "--title", `list ${k}`, ...columns, ...ROWS], { waitForTitle: `list ${k}`, waitTimeoutMs: 30_000 });
  }
  health = new grpc.Client(daemon.address, grpc.credentials.createInsecure());
});

afterAll(async () => {
  health?.close();
  await daemon?.close();
});

/** The daemon's resident memory, in bytes. */
function rss(pid: number): number {
  const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(kib?.[1] ?? 0) * 1024;
}

/** One standard health check; resolves with its latency, or rejects. */
function checkHealth(): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) =>
    health.makeUnaryRequest(
      "/grpc.health.v1.Health/Check",
      (b: Buffer) => b,
      (b: Buffer) => b,
      Buffer.alloc(0),
      { deadline: Date.now() + 3_000 },
      (err) => (err ? reject(err) : resolve(performance.now() - t0)),
    ),
  );
}

/** A full walk of the tree, given up when `signal` fires: "answered", "cancelled", "refused" or what else it failed with. */
function walk(signal: AbortSignal, opts: { app?: string } = {}): Promise<string> {
  return daemon.env.accessibility.tree({ includeHidden: true, maxNodes: 100_000, walkTimeoutMs: 60_000, signal, ...opts }).then(
    () => "answered",
    (e: unknown) => (e instanceof CancelledError ? "cancelled" : e instanceof ResourceExhaustedError ? "refused" : String(e)),
  );
}

/** A round of the storm: STORM walks, each given up after ABANDON_MS. */
const abandonedRound = () => Promise.all(Array.from({ length: STORM }, () => walk(AbortSignal.timeout(ABANDON_MS))));

/** True while process `pid` runs (a zombie waiting to be reaped has stopped running). */
function running(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}

/** Counts of each outcome. */
function tally(outcomes: string[]): Record<string, number> {
  const t: Record<string, number> = {};
  for (const o of outcomes) t[o] = (t[o] ?? 0) + 1;
  return t;
}

test("an abandoned-GetTree storm: the daemon stays under +256 MiB, answers health checks, and its walks stop", async () => {
  const pid = daemon.process.pid!;
  const base = rss(pid);
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, rss(pid))), 25);
  const latencies: number[] = [];
  const failures: string[] = [];
  let storming = true;
  const prober = (async () => {
    while (storming) {
      await checkHealth().then(
        (ms) => latencies.push(ms),
        (e: grpc.ServiceError) => failures.push(e.details ?? String(e)),
      );
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  let first: string[] = [];
  const abandoned: string[] = [];
  let freeAgain = false;
  try {
    // Sixteen walks at once, kept until all but the running ones have their answer, then given up.
    const callers = Array.from({ length: STORM }, () => new AbortController());
    let settled = 0;
    const calls = callers.map((c) => walk(c.signal).finally(() => settled++));
    for (const until = Date.now() + 10_000; settled < STORM - 2 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
    for (const c of callers) c.abort();
    first = await Promise.all(calls);
    // Then rounds of sixteen, each walk given up after half a second, as impatient agents would.
    for (let round = 0; round < 2; round++) abandoned.push(...(await abandonedRound()));
    // The walks let in stop once their callers are gone: two can run at once again.
    const none = { app: "no such application" };
    for (const until = Date.now() + 15_000; !freeAgain && Date.now() < until; ) {
      const pair = await Promise.all([walk(AbortSignal.timeout(10_000), none), walk(AbortSignal.timeout(10_000), none)]);
      freeAgain = pair.every((o) => o === "answered");
      if (!freeAgain) await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    storming = false;
    await prober;
    clearInterval(sampler);
  }
  peak = Math.max(peak, rss(pid));
  console.log(
    `storm: ${JSON.stringify(tally(first))} of ${STORM} kept waiting, ${JSON.stringify(tally(abandoned))} of ${2 * STORM} abandoned after ` +
      `${ABANDON_MS} ms; daemon +${((peak - base) / MIB).toFixed(0)} MiB at most; ${latencies.length} health checks answered ` +
      `(slowest ${Math.max(0, ...latencies).toFixed(0)} ms), ${failures.length} failed`,
  );
  expect(failures).toEqual([]);
  expect(latencies.length).toBeGreaterThan(0);
  expect(peak - base).toBeLessThan(256 * MIB);
  // At most two walks run at once; the others are RESOURCE_EXHAUSTED at once.
  expect(tally(first)).toEqual({ refused: STORM - 2, cancelled: 2 });
  expect(abandoned.filter((o) => o !== "cancelled" && o !== "refused")).toEqual([]);
  expect(freeAgain, "abandoned walks still hold their places").toBe(true);
  expect(daemon.log()).not.toMatch(/"internal error"/);

  // A whole walk of the same tree is let in and reads it all.
  const t0 = performance.now();
  const tree = await daemon.env.accessibility.tree({ includeHidden: true, maxNodes: 100_000, walkTimeoutMs: 50_000, timeoutMs: 55_000 });
  console.log(`then a full walk: ${tree.nodeCount} nodes in ${(performance.now() - t0).toFixed(0)} ms, daemon +${((rss(pid) - base) / MIB).toFixed(0)} MiB`);
  expect(tree.nodeCount).toBeGreaterThan(4_000);
}, 120_000);

test("SIGTERM in the middle of a storm stops the daemon, and its Xvfb, within seconds", async () => {
  const xvfb = /"msg":"xvfb started".*?"pid":(\d+)/.exec(daemon.log());
  expect(xvfb, "the daemon's log names its Xvfb").not.toBeNull();
  const calls = Array.from({ length: STORM }, () => walk(AbortSignal.timeout(ABANDON_MS)));
  // Walks are running once the first call has its answer: the others refused, or abandoned.
  await Promise.race(calls);
  const exited = new Promise<number | null>((resolve) => daemon.process.once("exit", (code) => resolve(code)));
  const t0 = performance.now();
  daemon.process.kill("SIGTERM");
  const code = await exited;
  const ms = performance.now() - t0;
  console.log(`SIGTERM with walks running: exited with ${code} in ${ms.toFixed(0)} ms`);
  await Promise.all(calls);
  expect(code).toBe(0);
  // The daemon gives itself 600 ms after SIGTERM, whatever still runs; the rest is room for a
  // loaded machine.
  expect(ms).toBeLessThan(2_500);
  // Its Xvfb went with it (killed on exit if close() had not stopped it yet).
  for (const until = Date.now() + 15_000; running(Number(xvfb![1])) && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
  expect(running(Number(xvfb![1]))).toBe(false);
}, 60_000);
