import { fork } from "node:child_process";
import { randomFillSync } from "node:crypto";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connect, type Env } from "../../packages/controller/src/index.js";
import { flaskClient, startFlaskPeer, type FlaskPeer } from "./flaskPeer.js";
import { openTransferFloor, withBareUnary } from "./grpcCeiling.js";
import { posixSpawnTimes } from "./processBench.js";
import { summarize, timesOf } from "./stats.js";

const MiB = 1024 * 1024;
const ROUNDS = 5;
const CALLS = 40;
const TRANSFERS = 2;
const WARM_UP_CALLS = 2000;

/** Resident memory of `pid` in MiB. */
export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

function randomFile(path: string, bytes: number): void {
  const fd = openSync(path, "w");
  const piece = Buffer.alloc(16 * MiB);
  for (let written = 0; written < bytes; written += piece.length) writeSync(fd, randomFillSync(piece), 0, Math.min(piece.length, bytes - written));
  closeSync(fd);
}

interface Pair {
  ours: number[];
  peer: number[];
}
type Pairs = Record<string, Pair>;

function add(pairs: Pairs, kind: string, ours: number[], theirs: number[]): void {
  pairs[kind] ??= { ours: [], peer: [] };
  pairs[kind].ours.push(...ours);
  pairs[kind].peer.push(...theirs);
}

const fmt = (v: number) => (v < 10 ? v.toFixed(2) : v.toFixed(0));

/** A row: Pincer and the peer, p50 and p95, and peer/ours for each; `goal` is the least ratio asked. */
function row(operation: string, peerName: string, { ours, peer }: Pair, goal?: number): string {
  const [o, p] = [summarize(ours), summarize(peer)];
  const r50 = p.p50 / o.p50;
  const r95 = p.p95 / o.p95;
  const met = goal === undefined ? "" : r50 >= goal && r95 >= goal ? `≥ ${goal}×: met` : `≥ ${goal}×: NOT met`;
  const cells = [operation, `${fmt(o.p50)} / ${fmt(o.p95)}`, peerName, `${fmt(p.p50)} / ${fmt(p.p95)}`, `${r50.toFixed(2)}×`, `${r95.toFixed(2)}×`, o.n, met];
  return `| ${cells.join(" | ")} |`;
}

/** Rounds of small calls: the empty call, a bare grpc-js round trip and a command, each through Pincer then the peer. */
async function callRounds(env: Env, peer: FlaskPeer): Promise<Pairs> {
  return withBareUnary(async (ping) => {
    // Warm-up, alike for every side: a run makes thousands of calls, and the first few hundred of a
    // fresh process are slow while V8 compiles grpc-js's and Node's HTTP/2 paths (here a bare round
    // trip's p50 was 1.1-1.3 ms over a process's first 250 calls, 0.6 ms after 2000).
    await timesOf(100, () => env.process.run(["true"]));
    await timesOf(100, () => peer.execute(["true"]));
    for (const call of [ping, () => env.process.list(), () => peer.platform()]) await timesOf(WARM_UP_CALLS, call);
    const pairs: Pairs = {};
    for (let r = 0; r < ROUNDS; r++) {
      add(pairs, "empty", await timesOf(CALLS, () => env.process.list()), await timesOf(CALLS, () => peer.platform()));
      add(pairs, "bare", await timesOf(CALLS, () => env.process.list()), await timesOf(CALLS, ping));
      const runs = await timesOf(CALLS, async () => {
        if ((await env.process.run(["true"])).exitCode !== 0) throw new Error("run true failed");
      });
      const executes = await timesOf(CALLS, async () => {
        if ((await peer.execute(["true"])).returncode !== 0) throw new Error("/execute true failed");
      });
      add(pairs, "run", runs, executes);
      // The floors of a command over gRPC, in the same rounds: a bare spawn, a bare round trip.
      add(pairs, "floor run", await posixSpawnTimes(CALLS), await timesOf(CALLS, ping));
    }
    return pairs;
  });
}

/** Rounds of transfers of `src`: an upload and a download through Pincer, then through the peer. */
async function transferRounds(env: Env, peer: FlaskPeer, dir: string, src: string): Promise<Pairs> {
  const pairs: Pairs = {};
  const size = statSync(src).size;
  const remote = join(dir, "remote.bin");
  const back = join(dir, "back.bin");
  const floor = await openTransferFloor();
  try {
    for (let i = 0; i < ROUNDS * TRANSFERS; i++) {
      const up = await timesOf(1, () => env.files.upload(src, remote, { timeoutMs: 600_000 }));
      const down = await timesOf(1, () => env.files.download(remote, back, { timeoutMs: 600_000 }));
      rmSync(remote);
      rmSync(back);
      const peerUp = await timesOf(1, () => peer.upload(src, remote));
      const peerDown = await timesOf(1, () => peer.download(remote, back));
      if (statSync(remote).size !== size || statSync(back).size !== size) throw new Error("the Flask peer moved a file of the wrong size");
      rmSync(remote);
      rmSync(back);
      add(pairs, "upload", up, peerUp);
      add(pairs, "download", down, peerDown);
      add(pairs, "floor transfer", [await floor.up(size / MiB)], [await floor.down(size / MiB)]);
    }
  } finally {
    floor.stop();
  }
  return pairs;
}

interface PhaseArgs {
  phase: "calls" | "transfers";
  address: string;
  peerPort: number;
  peerPid: number;
  dir: string;
  src: string;
}

/**
 * Runs a phase in a fresh controller process, as a task runner or the pincer CLI would call: this
 * benchmark process holds a screen scene and large heaps by then, and its collections would land
 * in both sides' figures.
 */
async function phaseInFreshProcess(args: PhaseArgs): Promise<Pairs> {
  const env = { ...process.env, PINCER_BENCH_PEERS: JSON.stringify(args) };
  const child = fork(fileURLToPath(import.meta.url), ["phase"], { execArgv: process.execArgv, env });
  try {
    return await new Promise<Pairs>((resolve, reject) => {
      child.once("message", (m) => resolve(m as Pairs));
      child.once("exit", (code) => reject(new Error(`the peers benchmark process (${args.phase}) exited with ${code}`)));
    });
  } finally {
    child.kill();
  }
}

/** Pincer-only calls, so that the memory figures are those of a mixed load. */
async function mixedCalls(env: Env, width: number): Promise<Record<string, number[]>> {
  const mixed: Record<string, number[]> = {};
  for (let r = 0; r < ROUNDS; r++) {
    const round = {
      "mouse.move": await timesOf(20, (i) => env.mouse.move({ x: (i * 37) % width, y: 100 + i })),
      "screenshot PNG": await timesOf(5, () => env.screen.screenshot({ format: "png" })),
      "screenshot JPEG": await timesOf(5, () => env.screen.screenshot({ format: "jpeg" })),
    };
    for (const [kind, times] of Object.entries(round)) mixed[kind] = [...(mixed[kind] ?? []), ...times];
  }
  return mixed;
}

type Memory = Record<"idle" | "after" | "settled", { ours: number; peer: number }>;

/**
 * What grpc-js itself allows, from the floors measured in the same rounds: the least a daemon over
 * it could take if it added nothing, and so the best ratio to Flask it could reach.
 */
function floorRows(sizeMiB: number, pairs: Pairs): string[] {
  const p50 = (t: number[]) => summarize(t).p50;
  const spawn = p50(pairs["floor run"]!.ours);
  const trip = p50(pairs["floor run"]!.peer);
  const line = (operation: string, how: string, floor: number, flask: number) => {
    const best = flask / floor;
    return `| ${operation} | ${how} | ${fmt(floor)} | ${fmt(flask)} | ${best.toFixed(2)}× | ${best >= 1.5 ? "reachable" : "NOT reachable"} |`;
  };
  return [
    "What grpc-js allows here, measured in the same rounds (p50, ms): a daemon that added nothing to these would take the floor, " +
      "and be the best ratio ahead of Flask\n",
    "| operation | floor | floor ms | Flask ms | best ratio | 1.5× |",
    "|---|---|---:|---:|---:|---|",
    line("run `true`", `a bare grpc-js unary round trip (${fmt(trip)}) + posix_spawn and wait of \`true\` (${fmt(spawn)})`, trip + spawn, p50(pairs.run!.peer)),
    line(
      `upload ${sizeMiB} MiB`,
      "grpc-js stream of 1 MiB in-memory buffers, client to server, sha256 at both ends",
      p50(pairs["floor transfer"]!.ours),
      p50(pairs.upload!.peer),
    ),
    line(`download ${sizeMiB} MiB`, "the same, server to client", p50(pairs["floor transfer"]!.peer), p50(pairs.download!.peer)),
    `The empty call's goal (≤ 1.10× a bare round trip) leaves ${fmt(trip * 0.1)} ms for the daemon's and the client's own work per call.`,
  ];
}

function report(sizeMiB: number, settleS: number, pairs: Pairs, mixed: Record<string, number[]>, mem: Memory): string[] {
  const flask = "Flask stand-in";
  const bareRatio = summarize(pairs.bare!.ours).p50 / summarize(pairs.bare!.peer).p50;
  const memRow = (name: string, who: "ours" | "peer") =>
    `| ${name} | ${mem.idle[who].toFixed(0)} | ${mem.after[who].toFixed(0)} | ${mem.settled[who].toFixed(0)} |`;
  return [
    `${ROUNDS} interleaved rounds, each side's calls from a fresh controller process after ${WARM_UP_CALLS} warm-up calls; ` +
      `transfers of ${sizeMiB} MiB of random data ` +
      "(Pincer's verified by sha256 end to end); ms, p50 / p95; ratio = peer / Pincer (above 1: Pincer is faster)\n",
    "| operation | Pincer | peer | peer p50 / p95 | ratio p50 | ratio p95 | n | goal |",
    "|---|---:|---|---:|---:|---:|---:|---|",
    row("empty call (Process/List vs GET /platform)", flask, pairs.empty!),
    row("empty call vs a bare grpc-js unary round trip", "bare grpc-js", pairs.bare!),
    row("run `true` (Process/Run vs POST /execute, subprocess.run)", flask, pairs.run!, 1.5),
    row(`upload ${sizeMiB} MiB (Files upload vs POST /setup/upload)`, flask, pairs.upload!, 1.5),
    row(`download ${sizeMiB} MiB (Files download vs POST /file, send_file)`, flask, pairs.download!, 1.5),
    "",
    `Empty call / bare grpc-js round trip: ${bareRatio.toFixed(2)} (goal ≤ 1.10: ${bareRatio <= 1.1 ? "met" : "NOT met"})`,
    "",
    ...floorRows(sizeMiB, pairs),
    "",
    ...Object.entries(mixed).map(([kind, t]) => {
      const s = summarize(t);
      return `Pincer only, between the phases and the memory figures: ${kind} p50 ${fmt(s.p50)} ms, p95 ${fmt(s.p95)} ms (n ${s.n})`;
    }),
    "",
    `| resident memory, MiB | idle | 2 s after the load | ${settleS} s later |`,
    "|---|---:|---:|---:|",
    memRow("pincer-daemon", "ours"),
    memRow("Flask stand-in", "peer"),
    `Goals: the daemon ≤ 120 MiB after the load (${mem.after.ours <= 120 ? "met" : "NOT met"}), and within 20 MiB of idle ${settleS} s later ` +
      `(${mem.settled.ours - mem.idle.ours <= 20 ? "met" : "NOT met"}).`,
  ];
}

/**
 * Pincer's daemon beside a stand-in for OSWorld's Flask server (flaskPeer.py), in interleaved
 * rounds on one screen: the empty call, a command, uploads and downloads, and both processes'
 * memory before, 2 s after and `settleS` seconds after the load. Between the phases and the memory
 * figures Pincer also moves the pointer and takes screenshots, so its memory is that of a mixed load.
 */
export async function peersFigures(env: Env, address: string, daemonPid: number, width: number, sizeMiB = 256, settleS = 60): Promise<string[]> {
  const peer = await startFlaskPeer();
  if (!peer) return [];
  const dir = mkdtempSync(join(tmpdir(), "pincer-bench-peers-"));
  try {
    const src = join(dir, "src.bin");
    randomFile(src, sizeMiB * MiB);
    const args = { address, peerPort: peer.port, peerPid: peer.pid, dir, src };
    const idle = { ours: rssMiB(daemonPid), peer: rssMiB(peer.pid) };
    const pairs = { ...(await phaseInFreshProcess({ ...args, phase: "calls" })), ...(await phaseInFreshProcess({ ...args, phase: "transfers" })) };
    const mixed = await mixedCalls(env, width);
    await new Promise((r) => setTimeout(r, 2_000));
    const after = { ours: rssMiB(daemonPid), peer: rssMiB(peer.pid) };
    await new Promise((r) => setTimeout(r, settleS * 1000));
    const settled = { ours: rssMiB(daemonPid), peer: rssMiB(peer.pid) };
    return report(sizeMiB, settleS, pairs, mixed, { idle, after, settled });
  } finally {
    await peer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "phase") {
  const args = JSON.parse(process.env.PINCER_BENCH_PEERS!) as PhaseArgs;
  const env = connect(args.address);
  const peer = flaskClient(args.peerPort, args.peerPid);
  try {
    process.send!(args.phase === "calls" ? await callRounds(env, peer) : await transferRounds(env, peer, args.dir, args.src));
  } finally {
    env.close();
  }
}
