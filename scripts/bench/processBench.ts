import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
import { execa } from "execa";
import type { Env } from "../../packages/controller/src/index.js";
import { withBareUnary } from "./grpcCeiling.js";
import type { SshPeer } from "./sshPeer.js";
import { measure, summarize, timesOf, type Row, type Sample } from "./stats.js";

const run = promisify(execFile);

const ROUNDS = 5;
const PER_ROUND = 80;

/** Spawn times of `true` in a fresh, small Node process: `n` timed after 30 untimed. */
async function freshSpawnTimes(n: number): Promise<number[]> {
  const script =
    `const {spawn}=require("child_process");const t=[];(async()=>{for(let i=0;i<${n + 30};i++){const s=performance.now();await new ` +
    `Promise(r=>spawn("true").once("exit",r));if(i>=30)t.push(performance.now()-s)}console.log(JSON.stringify(t))})()`;
  return JSON.parse((await run(process.execPath, ["-e", script])).stdout) as number[];
}

/**
 * posix_spawn + waitpid of `true`, `n` timed after 30 untimed, from Python's os.posix_spawn (glibc's
 * posix_spawn, the bare spawn the goal is set against; Python adds a few microseconds per call).
 */
export async function posixSpawnTimes(n: number): Promise<number[]> {
  const script = [
    "import json, os, time",
    "t = []",
    `for i in range(${n + 30}):`,
    "    s = time.perf_counter()",
    "    os.waitpid(os.posix_spawn('/bin/true', ['true'], os.environ), 0)",
    "    t.append((time.perf_counter() - s) * 1000)",
    "print(json.dumps(t[30:]))",
  ].join("\n");
  return JSON.parse((await run("python3", ["-c", script])).stdout) as number[];
}

/** The goal for run(["true"]): its p50 within 0.5 ms of the floor's, its p95 within 1.5× its p50. */
function processGoal(ours: Sample, floor: Sample): string {
  const over = ours.p50 - floor.p50;
  const spread = ours.p95 / ours.p50;
  const verdict = (ok: boolean) => (ok ? "met" : "NOT met");
  const above = `p50 ≤ 0.5 ms above the floor (here ${over >= 0 ? "+" : ""}${over.toFixed(2)} ms: ${verdict(over <= 0.5)})`;
  return `${above}, p95 ≤ 1.5× p50 (here ${spread.toFixed(2)}×: ${verdict(spread <= 1.5)})`;
}

/**
 * run(["true"]) through the daemon against the local spawn floor, execa, and ssh. The floor and
 * the daemon are measured in alternating rounds, so a machine that gets slower or faster during
 * the run moves both.
 */
export async function processRows(env: Env, ssh: SshPeer | undefined): Promise<Row[]> {
  // The floor is a bare posix_spawn + wait; Node's spawn is shown beside it, from a fresh, small
  // process: fork time grows with the parent's resident memory, and this benchmark process is large
  // by now (screenshots), so its own spawns are slower.
  const floor: number[] = [];
  const posix: number[] = [];
  const ours: number[] = [];
  const rpc: number[] = [];
  const trips: number[] = [];
  await timesOf(50, () => env.process.run(["true"])); // warm-up (JIT, connection)
  await timesOf(50, () => env.process.list());
  await withBareUnary(async (ping) => {
    await timesOf(50, ping);
    for (let r = 0; r < ROUNDS; r++) {
      posix.push(...(await posixSpawnTimes(PER_ROUND)));
      floor.push(...(await freshSpawnTimes(PER_ROUND)));
      ours.push(...(await timesOf(PER_ROUND, () => env.process.run(["true"]))));
      rpc.push(...(await timesOf(PER_ROUND, () => env.process.list())));
      trips.push(...(await timesOf(PER_ROUND, ping)));
    }
  });
  const trip = summarize(trips);
  const fresh = summarize(floor);
  const oursS = summarize(ours);
  const bare = await measure(
    200,
    () =>
      new Promise<void>((resolve, reject) =>
        spawn("true")
          .once("exit", () => resolve())
          .once("error", reject),
      ),
  );
  const viaExeca = await measure(200, () => execa("true"));
  const rows: Row[] = [
    { operation: "posix_spawn + waitpid of `true` (Python's os.posix_spawn), the floor", ours: summarize(posix) },
    { operation: "spawn `true` from a fresh small Node process", ours: fresh },
    { operation: "spawn `true` from this (large) benchmark process", ours: bare },
    { operation: "spawn `true` from this process with execa", ours: viaExeca },
    { operation: "gRPC round trip without a command (env.process.list())", ours: summarize(rpc) },
    {
      operation: "a bare grpc-js unary round trip (another Node process, no protobuf, no Pincer)",
      ours: trip,
      goal:
        `the goal's 0.5 ms over the floor is ${trip.p50 < 0.5 ? "more" : "less"} than this round trip alone: ` +
        `${trip.p50 < 0.5 ? `it leaves ${(0.5 - trip.p50).toFixed(2)} ms for the daemon's work` : "NOT reachable over grpc-js here"}`,
    },
    {
      operation: 'env.process.run(["true"]) over gRPC',
      ours: oursS,
      goal: `${processGoal(oursS, summarize(posix))}; against Node's spawn: +${(oursS.p50 - fresh.p50).toFixed(2)} ms`,
    },
  ];
  if (ssh) {
    rows.push({
      operation: 'env.process.run(["true"]) vs ssh',
      ours: oursS,
      peer: { name: "ssh host true", sample: await measure(20, () => run("ssh", [...ssh.sshArgs, ssh.target, "true"]), 2) },
    });
    rows.push({
      operation: 'env.process.run(["true"]) vs ssh (multiplexed)',
      ours: oursS,
      peer: { name: "ssh -o ControlMaster host true", sample: await measure(40, () => run("ssh", [...ssh.sshMuxArgs, ssh.target, "true"]), 3) },
    });
  }
  return rows;
}
