import { execFile, fork } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, mkdtempSync, readFileSync, rmSync, openSync, writeSync, closeSync } from "node:fs";
import { createServer, connect as tcpConnect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { randomFillSync } from "node:crypto";
import { connect, type Env } from "../../packages/controller/src/index.js";
import { grpcCeiling } from "./grpcCeiling.js";
import type { SshPeer } from "./sshPeer.js";

const run = promisify(execFile);
const MiB = 1024 * 1024;

export interface TransferFigures {
  lines: string[];
}

/** Peak resident memory of `pid` while `work` runs, sampled every 20 ms, in MiB. */
async function peakRss<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peakMiB: number; beforeMiB: number }> {
  const rss = () => {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  };
  const beforeMiB = rss();
  let peakMiB = beforeMiB;
  const timer = setInterval(() => (peakMiB = Math.max(peakMiB, rss())), 20);
  try {
    const result = await work();
    return { result, peakMiB: Math.max(peakMiB, rss()), beforeMiB };
  } finally {
    clearInterval(timer);
  }
}

/** Raw TCP throughput on loopback: one socket, `bytes` from a buffer, nothing else. */
async function rawTcp(bytes: number): Promise<number> {
  const server = createServer((sock) => sock.on("data", () => undefined));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  const chunk = Buffer.alloc(MiB);
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const sock = tcpConnect(port, "127.0.0.1");
    let sent = 0;
    const pump = () => {
      while (sent < bytes) {
        sent += chunk.length;
        if (!sock.write(chunk)) return void sock.once("drain", pump);
      }
      sock.end(() => resolve());
    };
    sock.once("connect", pump).once("error", reject);
  });
  const ms = performance.now() - started;
  server.close();
  return bytes / MiB / (ms / 1000);
}

/** sha256 of a file of any size (readFileSync stops at 2 GiB). */
async function shaOfFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const piece of createReadStream(path, { highWaterMark: 4 * MiB })) hash.update(piece as Buffer);
  return hash.digest("hex");
}

const rate = (bytes: number, ms: number) => bytes / MiB / (ms / 1000);
const ROUNDS = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const signed = (mib: number) => `${mib >= 0 ? "+" : "−"}${Math.abs(mib).toFixed(0)} MiB`;

/**
 * Runs {@link transferFigures} in a fresh controller process (`node` with this process's flags), the
 * way the `pincer` CLI or a task runner moves files, and as scp runs: this benchmark process has a
 * large heap by the time it gets here (the screenshot figures), which would make every collection
 * of the transfer's buffers slower.
 */
export async function transferFiguresInFreshProcess(address: string, daemonPid: number, ssh: SshPeer | undefined, sizeMiB = 1024): Promise<TransferFigures> {
  const child = fork(fileURLToPath(import.meta.url), ["child"], {
    execArgv: process.execArgv,
    env: {
      ...process.env,
      PINCER_BENCH_TRANSFER: JSON.stringify({ address, daemonPid, sizeMiB, ssh: ssh ? { scpArgs: ssh.scpArgs, target: ssh.target } : null }),
    },
  });
  const result = new Promise<TransferFigures>((resolve, reject) => {
    child.once("message", (m) => resolve(m as TransferFigures));
    child.once("exit", (code) => reject(new Error(`the transfer benchmark process exited with ${code}`)));
  });
  try {
    return await result;
  } finally {
    child.kill();
  }
}

/** Upload and download of `sizeMiB` through the daemon, against scp and raw TCP, with the daemon's peak RSS. */
export async function transferFigures(
  env: Env,
  daemonPid: number,
  ssh: Pick<SshPeer, "scpArgs" | "target"> | undefined,
  sizeMiB = 1024,
): Promise<TransferFigures> {
  const dir = mkdtempSync(join(tmpdir(), "pincer-bench-xfer-"));
  const bytes = sizeMiB * MiB;
  const src = join(dir, "src.bin");
  // Random content (incompressible), written in 16 MiB pieces.
  const fd = openSync(src, "w");
  const piece = Buffer.alloc(16 * MiB);
  for (let written = 0; written < bytes; written += piece.length) writeSync(fd, randomFillSync(piece));
  closeSync(fd);
  const lines: string[] = [];
  try {
    const remote = join(dir, "remote.bin");
    // A transfer of an eighth of the size first: the daemon's peak memory must not grow with size.
    const small = join(dir, "small.bin");
    const smallMiB = Math.max(1, Math.floor(sizeMiB / 8));
    const sfd = openSync(small, "w");
    for (let written = 0; written < smallMiB * MiB; written += piece.length)
      writeSync(sfd, randomFillSync(piece), 0, Math.min(piece.length, smallMiB * MiB - written));
    closeSync(sfd);
    // As many rounds as the full-size transfers below, so both peaks are the highest of as many samples.
    const smallUp = { peakMiB: 0 };
    const smallDown = { peakMiB: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      smallUp.peakMiB = Math.max(smallUp.peakMiB, (await peakRss(daemonPid, () => env.files.upload(small, remote, { timeoutMs: 600_000 }))).peakMiB);
      smallDown.peakMiB = Math.max(
        smallDown.peakMiB,
        (await peakRss(daemonPid, () => env.files.download(remote, join(dir, "small-back.bin"), { timeoutMs: 600_000 }))).peakMiB,
      );
      rmSync(join(dir, "small-back.bin"));
    }
    rmSync(small);
    // Rounds of upload, download and scp one after another: the machine's speed drifts over a
    // run, and each round's ratios compare figures taken within seconds of each other.
    const ups: number[] = [];
    const downs: number[] = [];
    const scps: number[] = [];
    let upPeak = { peakMiB: 0, beforeMiB: Infinity };
    let downPeak = { peakMiB: 0, beforeMiB: Infinity };
    for (let round = 0; round < ROUNDS; round++) {
      let t = performance.now();
      const up = await peakRss(daemonPid, () => env.files.upload(src, remote, { timeoutMs: 600_000 }));
      ups.push(rate(bytes, performance.now() - t));
      t = performance.now();
      const down = await peakRss(daemonPid, () => env.files.download(remote, join(dir, "back.bin"), { timeoutMs: 600_000 }));
      downs.push(rate(bytes, performance.now() - t));
      if (round === 0) {
        const check = await shaOfFile(join(dir, "back.bin"));
        if (check !== up.result.sha256 || down.result.sha256 !== up.result.sha256) throw new Error("sha256 mismatch in the benchmark transfer");
      }
      upPeak = { peakMiB: Math.max(upPeak.peakMiB, up.peakMiB), beforeMiB: Math.min(upPeak.beforeMiB, up.beforeMiB) };
      downPeak = { peakMiB: Math.max(downPeak.peakMiB, down.peakMiB), beforeMiB: Math.min(downPeak.beforeMiB, down.beforeMiB) };
      rmSync(join(dir, "back.bin"));
      rmSync(remote);
      if (ssh) {
        t = performance.now();
        await run("scp", [...ssh.scpArgs, "-q", src, `${ssh.target}:${join(dir, "scp.bin")}`], { maxBuffer: 1 << 20 });
        scps.push(rate(bytes, performance.now() - t));
        rmSync(join(dir, "scp.bin"));
      }
    }
    const tcp = await rawTcp(bytes);
    const ceiling = await grpcCeiling(sizeMiB);
    const upRate = median(ups);
    const downRate = median(downs);
    const scpRate = scps.length ? median(scps) : undefined;
    const vsScp = (ours: number[]) => (scps.length ? `${median(ours.map((r, i) => r / scps[i]!)).toFixed(2)}×` : "n/a");
    const all = (rs: number[]) => rs.map((r) => r.toFixed(0)).join(", ");
    lines.push(
      `| transfer of ${sizeMiB} MiB (random), median of ${ROUNDS} rounds | MiB/s | rounds | share of raw TCP | vs scp (median of the rounds' ratios) | ` +
        `daemon RSS before → peak |`,
    );
    lines.push("|---|---:|---|---:|---:|---|");
    lines.push(
      `| upload (env.files.upload, sha256 verified) | ${upRate.toFixed(0)} | ${all(ups)} | ${((upRate / tcp) * 100).toFixed(0)}% | ${vsScp(ups)} | ` +
        `${upPeak.beforeMiB.toFixed(0)} → ${upPeak.peakMiB.toFixed(0)} MiB |`,
    );
    lines.push(
      `| download (env.files.download, sha256 verified) | ${downRate.toFixed(0)} | ${all(downs)} | ${((downRate / tcp) * 100).toFixed(0)}% | ` +
        `${vsScp(downs)} | ${downPeak.beforeMiB.toFixed(0)} → ${downPeak.peakMiB.toFixed(0)} MiB |`,
    );
    lines.push(`| raw TCP on loopback (one socket, no disk) | ${tcp.toFixed(0)} | | 100% | | |`);
    lines.push(
      `| grpc-js stream of in-memory 1 MiB buffers, no protobuf, no disk | ${ceiling.plain.toFixed(0)} | | ${((ceiling.plain / tcp) * 100).toFixed(0)}% | | |`,
    );
    lines.push(
      `| the same with sha256 on both ends (the ceiling for a verified transfer) | ${ceiling.hashed.toFixed(0)} | | ` +
        `${((ceiling.hashed / tcp) * 100).toFixed(0)}% | | |`,
    );
    if (scpRate) lines.push(`| scp to 127.0.0.1 | ${scpRate.toFixed(0)} | ${all(scps)} | ${((scpRate / tcp) * 100).toFixed(0)}% | 1.00× | |`);
    const up = upPeak;
    const down = downPeak;
    lines.push(
      `Daemon peak RSS, ${smallMiB} MiB vs ${sizeMiB} MiB transfers: upload ${smallUp.peakMiB.toFixed(0)} vs ${up.peakMiB.toFixed(0)} MiB ` +
        `(${signed(up.peakMiB - smallUp.peakMiB)}), download ${smallDown.peakMiB.toFixed(0)} vs ${down.peakMiB.toFixed(0)} MiB ` +
        `(${signed(down.peakMiB - smallDown.peakMiB)}) for ${(sizeMiB / smallMiB).toFixed(0)}× the data.`,
    );
    lines.push("Goals: upload ≥ 1.5× scp, download ≥ 400 MiB/s, daemon memory flat (not growing with file size).");
    return { lines };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "child") {
  const { address, daemonPid, sizeMiB, ssh } = JSON.parse(process.env.PINCER_BENCH_TRANSFER!) as {
    address: string;
    daemonPid: number;
    sizeMiB: number;
    ssh: Pick<SshPeer, "scpArgs" | "target"> | null;
  };
  const env = connect(address);
  try {
    process.send!(await transferFigures(env, daemonPid, ssh ?? undefined, sizeMiB));
  } finally {
    env.close();
  }
}
