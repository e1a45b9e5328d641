import { sleep } from "@pincer/shared";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { toErrorInfo } from "../actions/errors.js";
import type { Env, ProcessHandle } from "../env/index.js";

/** Frames per second of a recording: enough to follow an agent, small enough to keep. */
const FPS = 5;
/** How long ffmpeg gets to write the end of its file after SIGINT. */
const STOP_GRACE_MS = 10_000;

/** Per environment: the recording's file in the attempt folder, or why there is none. */
export type RecordingResults = Record<string, { file: string } | { error: string }>;

interface Running {
  name: string;
  env: Env;
  remote: string;
  handle: ProcessHandle;
  pid: number;
  stderr: () => string;
  /** Frames ffmpeg has written so far, from its progress reports. */
  frames: () => number;
  /** When ffmpeg reported its first frame (performance.now()), once it has. */
  firstFrameAt?: number;
  ended: boolean;
}

/** The ffmpeg command that records the machine's whole X screen (its DISPLAY) into a fragmented MP4. */
function ffmpegCommand(width: number, height: number, remote: string): string {
  // Fragmented: a file cut short (a machine that died) still plays up to the last fragment.
  // Constant frame rate: a grab that came late on a busy machine is repeated, so the video keeps
  // time with the task. Progress ("frame=N") goes to stdout five times a second.
  return (
    `exec ffmpeg -hide_banner -loglevel error -nostdin -y -f x11grab -draw_mouse 1 -framerate ${FPS} -video_size ${width}x${height} ` +
    `-i "$DISPLAY" -c:v libx264 -preset ultrafast -tune zerolatency -pix_fmt yuv420p -fps_mode cfr -progress pipe:1 -stats_period 0.2 ` +
    `-movflags +frag_keyframe+empty_moov '${remote}'`
  );
}

async function startOne(name: string, env: Env, lifetimeMs: number, signal: AbortSignal): Promise<Running> {
  const { width, height } = await env.screen.size({ signal });
  const remote = `/tmp/pincer-recording-${randomUUID()}.mp4`;
  // Even sizes: libx264 with yuv420p refuses odd ones.
  const handle = env.process.start(["sh", "-c", ffmpegCommand(width - (width % 2), height - (height % 2), remote)], { commandTimeoutMs: lifetimeMs });
  let err = "";
  let out = "";
  let frames = 0;
  const running: Running = { name, env, remote, handle, pid: 0, stderr: () => err.trim(), frames: () => frames, ended: false };
  void (async () => {
    try {
      for await (const ev of handle) {
        if (ev.type === "stderr") err = (err + Buffer.from(ev.data).toString()).slice(-2000);
        if (ev.type !== "stdout") continue;
        out += Buffer.from(ev.data).toString();
        const lines = out.split("\n");
        out = lines.pop() ?? "";
        for (const line of lines) {
          const m = /^frame=(\d+)/.exec(line);
          if (m && Number(m[1]) > frames) {
            frames = Number(m[1]);
            running.firstFrameAt ??= performance.now();
          }
        }
      }
    } catch {
      // the end is read through wait()
    }
  })();
  void handle.wait().then(
    () => (running.ended = true),
    () => (running.ended = true),
  );
  running.pid = await handle.pid;
  return running;
}

/** How long ffmpeg gets to start capturing, and to catch up before it is stopped, before it is stopped anyway. */
const START_GRACE_MS = 10_000;
const CATCH_UP_MS = 3_000;

/** Polls `done` every 50 ms until it holds, the recording ended, or `ms` passed. */
async function until(r: Running, ms: number, done: () => boolean): Promise<void> {
  for (const end = Date.now() + ms; !r.ended && !done() && Date.now() < end; ) await sleep(50);
}

/**
 * Waits until ffmpeg has captured its first frame (or has ended): then its SIGINT handler is in
 * place (a SIGINT while it still starts kills it with no file) and the video covers what follows.
 */
function untilCapturing(r: Running): Promise<void> {
  return until(r, START_GRACE_MS, () => r.frames() > 0);
}

/**
 * Waits until ffmpeg's frames reach the present (a frame per 1/FPS s since its first), so the video
 * covers the agent's part to its end: a busy machine's ffmpeg may lag behind the clock.
 */
function untilCaughtUp(r: Running): Promise<void> {
  if (r.firstFrameAt === undefined) return Promise.resolve();
  const due = Math.floor(((performance.now() - r.firstFrameAt) * FPS) / 1000);
  return until(r, CATCH_UP_MS, () => r.frames() >= due);
}

/** Ends one recording (SIGINT: ffmpeg finishes the file) and fetches it into the attempt folder. */
async function stopOne(r: Running, dir: string): Promise<{ file: string } | { error: string }> {
  const file = `recording-${r.name}.mp4`;
  try {
    await untilCapturing(r);
    await untilCaughtUp(r);
    await r.env.process.signal(r.pid, "SIGINT").catch(() => undefined);
    const exit = await Promise.race([r.handle.wait(), new Promise<null>((res) => setTimeout(() => res(null), STOP_GRACE_MS).unref())]);
    if (exit === null) r.handle.kill();
    // ffmpeg ends with 255 when a signal stopped it; anything else before the stop is a failure.
    if (exit && exit.exitCode !== 255 && exit.exitCode !== 0) {
      return { error: `ffmpeg exited with ${exit.exitCode ?? exit.signal}: ${r.stderr() || "no message"} (is ffmpeg installed on the machine?)` };
    }
    await r.env.files.download(r.remote, join(dir, file));
    return { file };
  } catch (err) {
    const e = toErrorInfo(err);
    return { error: `${e.type}: ${e.message}` };
  } finally {
    await r.env.files.remove(r.remote, { missingOk: true }).catch(() => undefined);
  }
}

/**
 * Records each machine's screen while the agent works (ffmpeg's x11grab, run on the machine as a
 * command; no code is shipped). `stop()` ends every recording and downloads it into the attempt
 * folder as `recording-<env>.mp4`. A machine that cannot record (no ffmpeg, commands refused) is
 * reported in the results, and the task runs on.
 */
export async function startRecordings(
  envs: Readonly<Record<string, Env>>,
  dir: string,
  opts: { lifetimeMs: number; signal: AbortSignal },
): Promise<{ stop(): Promise<RecordingResults> }> {
  const started = await Promise.all(
    Object.entries(envs).map(([name, env]) =>
      startOne(name, env, opts.lifetimeMs, opts.signal).then(
        (r) => ({ r }),
        (err: unknown) => ({ name, error: toErrorInfo(err) }),
      ),
    ),
  );
  // The agent starts once every recording captures: the videos cover its part from the start.
  await Promise.all(started.map((s) => ("r" in s ? untilCapturing(s.r) : undefined)));
  return {
    async stop() {
      const results: RecordingResults = {};
      await Promise.all(
        started.map(async (s) => {
          if ("r" in s) results[s.r.name] = await stopOne(s.r, dir);
          else results[s.name] = { error: `${s.error.type}: ${s.error.message}` };
        }),
      );
      return results;
    },
  };
}
