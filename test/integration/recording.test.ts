import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { evaluator } from "@pincer/controller";
import type { Agent, AgentTurn } from "@pincer/controller/agents";
import { createRegistries, defineTask } from "@pincer/controller/datasets";
import { remotePool } from "@pincer/controller/machines";
import { runTasks, type Summary } from "@pincer/controller/runner";
import { startRecordings } from "../../packages/controller/src/runner/recording.js";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { moduleTask } from "../fixtures/tasks.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

// `pincer run --record`: ffmpeg runs on the machine as a command while the agent works; the MP4
// ends up in the attempt folder, and a machine without ffmpeg is reported without failing the task.

let xs: XServer;
let daemon: RunningDaemon;
let noFfmpeg: RunningDaemon;
let slowFfmpeg: RunningDaemon;
let work: string;

const moved = evaluator({
  name: "pointer_moved",
  description: "The pointer is at (300, 200).",
  run: async (_p, { env, signal }) => {
    const p = await env.mouse.position({ signal });
    return p.x === 300 && p.y === 200;
  },
});
const task = defineTask({ id: "point", instruction: "Move the pointer to (300, 200).", build: () => ({ evaluator: moved }) });

/** Moves the pointer in a few steps (so the screen changes while it is recorded), then says done. */
class Mover implements Agent {
  readonly name = "mover";
  readonly model = "fixed";
  readonly wantsScreenshots = false;
  #turn = 0;
  start(): void {
    this.#turn = 0;
  }
  async act(): Promise<AgentTurn> {
    const targets = [
      { x: 900, y: 500 },
      { x: 100, y: 600 },
      { x: 300, y: 200 },
    ];
    const t = targets[this.#turn++];
    if (!t) return { calls: [], done: true };
    await new Promise((r) => setTimeout(r, 400));
    return { calls: [{ tool: "desktop__move", args: t }] };
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "pincer-record-"));
  xs = await startXvfb({ width: 1280, height: 800 });
  daemon = await spawnDaemon({ display: xs.display });
  // A machine whose commands find a shell but no ffmpeg.
  const bin = join(work, "bin");
  mkdirSync(bin);
  symlinkSync("/bin/sh", join(bin, "sh"));
  noFfmpeg = await spawnDaemon({ display: xs.display, env: { PATH: bin } });
  // A machine whose ffmpeg takes 2 s to start capturing, as on a busy host.
  const slowBin = join(work, "slow-bin");
  mkdirSync(slowBin);
  writeFileSync(join(slowBin, "ffmpeg"), '#!/bin/sh\nsleep 2\nexec /usr/bin/ffmpeg "$@"\n', { mode: 0o755 });
  slowFfmpeg = await spawnDaemon({ display: xs.display, env: { PATH: `${slowBin}:${process.env.PATH}` } });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  await noFfmpeg.env.waitUntilReady({ timeoutMs: 20_000 });
  await slowFfmpeg.env.waitUntilReady({ timeoutMs: 20_000 });
});

afterAll(async () => {
  await daemon?.close();
  await noFfmpeg?.close();
  await slowFfmpeg?.close();
  await xs?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

async function runRecorded(address: string, out: string): Promise<{ summary: Summary; attemptDir: string }> {
  const pool = await remotePool([`desktop=${address}`]);
  try {
    const { runDir } = await runTasks({
      tasks: [moduleTask(task, work, "rec")],
      registries: createRegistries(),
      pool,
      agentFor: () => new Mover(),
      outDir: join(work, out),
      runId: "run",
      record: true,
    });
    const attemptDir = join(runDir, "rec", "point", "attempt-1");
    const summary = JSON.parse(readFileSync(join(attemptDir, "summary.json"), "utf8")) as Summary;
    return { summary, attemptDir };
  } finally {
    await pool.close();
  }
}

describe("screen recordings of a run", () => {
  test("--record: an MP4 of the machine's screen for the agent's part, in the attempt folder; nothing left on the machine", async () => {
    const { summary, attemptDir } = await runRecorded(daemon.address, "ok");
    expect(summary.results.state).toBe("passed");
    expect(summary.results.recordings).toEqual({ desktop: { file: "recording-desktop.mp4" } });
    const mp4 = join(attemptDir, "recording-desktop.mp4");
    const probe = JSON.parse(
      execFileSync("ffprobe", ["-v", "error", "-count_frames", "-show_entries", "stream=width,height,codec_name,nb_read_frames", "-of", "json", mp4], {
        encoding: "utf8",
      }),
    );
    expect(probe.streams[0]).toMatchObject({ codec_name: "h264", width: 1280, height: 800 });
    // Three turns 0.4 s apart at 5 frames a second.
    expect(Number(probe.streams[0].nb_read_frames)).toBeGreaterThanOrEqual(3);
    expect(readdirSync("/tmp").filter((f) => f.startsWith("pincer-recording-"))).toEqual([]);
    expect(await daemon.env.process.list()).toEqual([]);
  });

  test("a machine whose ffmpeg is slow to start: the recording still covers the agent's whole part", async () => {
    const t0 = Date.now();
    const { summary, attemptDir } = await runRecorded(slowFfmpeg.address, "slow");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2_000);
    expect(summary.results.recordings).toEqual({ desktop: { file: "recording-desktop.mp4" } });
    const probe = JSON.parse(
      execFileSync(
        "ffprobe",
        ["-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames:format=duration", "-of", "json", join(attemptDir, "recording-desktop.mp4")],
        { encoding: "utf8" },
      ),
    );
    // The agent's three moves, 0.4 s apart, take at least 1.2 s: 5 frames a second of them.
    expect(Number(probe.format.duration)).toBeGreaterThanOrEqual(1.2);
    expect(Number(probe.streams[0].nb_read_frames)).toBeGreaterThanOrEqual(6);
  });

  test("a recording stopped as soon as it started still ends with a file (ffmpeg is let start before it is told to stop)", async () => {
    const dir = join(work, "at-once");
    mkdirSync(dir);
    const recording = await startRecordings({ desktop: daemon.env }, dir, { lifetimeMs: 60_000, signal: new AbortController().signal });
    const results = await recording.stop();
    expect(results).toEqual({ desktop: { file: "recording-desktop.mp4" } });
    expect(readFileSync(join(dir, "recording-desktop.mp4")).length).toBeGreaterThan(0);
    expect(await daemon.env.process.list()).toEqual([]);
  });

  test("a machine without ffmpeg: the task still runs and passes; the summary says why there is no recording", async () => {
    const { summary, attemptDir } = await runRecorded(noFfmpeg.address, "missing");
    expect(summary.results.state).toBe("passed");
    const rec = summary.results.recordings?.desktop;
    expect(rec && "error" in rec ? rec.error : rec).toMatch(/ffmpeg exited with 127: .*ffmpeg: not found.*is ffmpeg installed/);
    expect(existsSync(join(attemptDir, "recording-desktop.mp4"))).toBe(false);
  });
});
