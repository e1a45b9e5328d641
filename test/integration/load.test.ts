import { readdirSync, readFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { connect, type RemoteEnv } from "@pincer/controller";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { eventually } from "../fixtures/poll.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

// Tens of clients at once, each its own connection, each running a mix of calls for a fixed time.
// Reports latency per call kind, errors, and the daemon's memory and open descriptors before, at
// the peak and after; fails on any error or on descriptors or memory that do not come back.

const CLIENTS = 24;
const DURATION_MS = Number(process.env.PINCER_LOAD_MS ?? 12_000);
/** The most resident memory the daemon may hold under this load. */
const PLATEAU_MIB = 200;

let xs: XServer;
let daemon: RunningDaemon;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "pincer-load-"));
  xs = await startXvfb({ width: 1280, height: 800 });
  daemon = await spawnDaemon({ display: xs.display });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
});

afterAll(async () => {
  await daemon?.close();
  await xs?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The daemon's resident memory (MiB) and open file descriptors. */
function usage(): { rssMiB: number; fds: number } {
  const pid = daemon.process.pid!;
  const kb = Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
  return { rssMiB: kb / 1024, fds: readdirSync(`/proc/${pid}/fd`).length };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The mix one client runs, one call kind after another. */
function mix(env: RemoteEnv, client: number): Array<[kind: string, run: (i: number) => Promise<unknown>]> {
  const payload = Buffer.alloc(64 * 1024, client);
  return [
    ["screenshot jpeg 640w", () => env.screen.screenshot({ format: "jpeg", maxWidth: 640 })],
    ["system.info", () => env.system.info()],
    ["upload 64 KiB", () => env.files.upload(payload, join(dir, `c${client}.bin`))],
    ["download 64 KiB", () => env.files.download(join(dir, `c${client}.bin`))],
    ["stat", () => env.files.stat(join(dir, `c${client}.bin`))],
    ["run true", () => env.process.run(["true"])],
    ["mouse.move", (i) => env.mouse.move({ x: (client * 37 + i) % 1280, y: (client * 11 + i) % 800 })],
    ["clipboard.set", (i) => env.clipboard.set(`client ${client} call ${i}`)],
    ["windows.list", () => env.windows.list()],
  ];
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Runs the mix from every client for `ms`; returns latencies per call kind and errors. */
async function phase(ms: number, onSample: () => void): Promise<{ latencies: Map<string, number[]>; errors: string[] }> {
  const latencies = new Map<string, number[]>();
  const errors: string[] = [];
  const envs = Array.from({ length: CLIENTS }, () => connect(daemon.address));
  const sampler = setInterval(onSample, 200);
  const until = Date.now() + ms;
  try {
    await Promise.all(
      envs.map(async (env, client) => {
        const calls = mix(env, client);
        for (let i = 0; Date.now() < until; i++) {
          const [kind, run] = calls[i % calls.length]!;
          const t0 = performance.now();
          try {
            await run(i);
          } catch (err) {
            errors.push(`client ${client} ${kind}: ${(err as Error).message}`);
          }
          const list = latencies.get(kind) ?? [];
          list.push(performance.now() - t0);
          latencies.set(kind, list);
        }
      }),
    );
  } finally {
    for (const env of envs) env.close();
    clearInterval(sampler);
  }
  return { latencies, errors };
}

test(`${CLIENTS} clients at once for ${DURATION_MS / 1000} s: no errors, descriptors and memory come back`, async () => {
  // A first round of the same length: the daemon's heap and the allocator's pools grow to their
  // working size once. A leak shows as growth beyond that on the second round, the measured one:
  // 100 KB kept per GetInfo call adds about 130 MiB. The plateau (the second round's peak) must stay
  // within 200 MiB: 219-231 MiB here before the daemon's malloc settings and sharp's cache were
  // set (DAEMON_MALLOC_ENV, which the fixture gives the daemon as its launchers do), 150-165 after.
  await sleep(500);
  const idle = usage();
  await phase(DURATION_MS, () => undefined);
  await sleep(3_000);
  const before = usage();
  let peak = { ...before };
  const { latencies, errors } = await phase(DURATION_MS, () => {
    const u = usage();
    peak = { rssMiB: Math.max(peak.rssMiB, u.rssMiB), fds: Math.max(peak.fds, u.fds) };
  });
  // Let the connections close and the heap settle; on a loaded machine the daemon may close the
  // last connections' descriptors seconds later.
  await sleep(3_000);
  await eventually(() => usage().fds <= idle.fds + 4, 20_000, 200);
  const after = usage();

  const rows = [...latencies].map(([kind, ms]) => {
    const sorted = ms.sort((a, b) => a - b);
    const [p50, p99] = [50, 99].map((p) => percentile(sorted, p).toFixed(1).padStart(7));
    return `${kind.padEnd(22)} n ${String(sorted.length).padStart(5)}  p50 ${p50} ms  p99 ${p99} ms`;
  });
  const total = [...latencies.values()].reduce((n, l) => n + l.length, 0);
  console.log(
    [
      `load: ${CLIENTS} clients, ${DURATION_MS / 1000} s, ${total} calls, ${errors.length} errors`,
      ...rows,
      `daemon RSS MiB: idle ${idle.rssMiB.toFixed(0)}, after round 1 ${before.rssMiB.toFixed(0)}, ` +
        `peak of round 2 ${peak.rssMiB.toFixed(0)}, after ${after.rssMiB.toFixed(0)}`,
      `daemon fds:     idle ${idle.fds}, after round 1 ${before.fds}, peak of round 2 ${peak.fds}, after ${after.fds}`,
    ].join("\n"),
  );
  expect(errors.slice(0, 10)).toEqual([]);
  expect(total).toBeGreaterThan(CLIENTS * 10);
  // Every connection's descriptors are given back.
  expect(after.fds).toBeLessThanOrEqual(idle.fds + 4);
  expect(after.rssMiB - before.rssMiB).toBeLessThan(96);
  expect(peak.rssMiB).toBeLessThanOrEqual(PLATEAU_MIB);
  expect(daemon.process.exitCode).toBeNull();
}, 120_000);
