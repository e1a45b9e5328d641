/**
 * Screen/Watch: the time from an X change (xsetroot painting the root window) to the frame that
 * shows it arriving at a client, and the daemon's CPU while one viewer watches an idle screen and a
 * busy one. On a 1280x800 Xvfb of its own, with the built daemon.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import sharp from "sharp";
import type { Env, ScreenFrame } from "../../packages/controller/src/index.js";
import { spawnDaemon } from "../../test/fixtures/daemon.js";
import { startXvfb } from "../../test/fixtures/xvfb.js";
import { summarize } from "./stats.js";

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WIDTH = 1280;
const HEIGHT = 800;
/** Clock ticks a second in /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS_PER_S = 100;

/** The daemon's CPU time so far, in seconds (utime + stime). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
}

/** Reads frames with a time limit per read: undefined when nothing came in time. */
function reader(it: AsyncIterator<ScreenFrame>) {
  let pending: Promise<IteratorResult<ScreenFrame>> | undefined;
  return async (withinMs: number): Promise<ScreenFrame | undefined> => {
    pending ??= it.next();
    const r = await Promise.race([pending, sleep(withinMs).then(() => "late" as const)]);
    if (r === "late") return undefined;
    pending = undefined;
    return r.done ? undefined : r.value;
  };
}

async function centre(frame: ScreenFrame): Promise<number[]> {
  const { data, info } = await sharp(frame.data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (Math.floor(info.height / 2) * info.width + Math.floor(info.width / 2)) * 3;
  return [...data.subarray(i, i + 3)];
}

const COLOURS: Array<[string, number[]]> = [
  ["#ff0000", [255, 0, 0]],
  ["#00ff00", [0, 255, 0]],
  ["#0000ff", [0, 0, 255]],
];

/** Latency from the start of `xsetroot -solid` to the arrival of a frame showing its colour, `n` times. */
async function latencies(env: Env, display: string, maxFps: number, n: number): Promise<number[]> {
  // Black first, so that the first colour is a change whatever the last run left.
  await run("xsetroot", ["-display", display, "-solid", "#000000"]);
  const watch = env.screen.watch({ format: "jpeg", maxFps });
  const next = reader(watch[Symbol.asyncIterator]());
  await next(5_000);
  const times: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const [name, rgb] = COLOURS[i % COLOURS.length]!;
      // Let the last change go out, and start at a random point of the daemon's polling period.
      await sleep(150 + Math.random() * 100);
      while (await next(0));
      const t0 = performance.now();
      await run("xsetroot", ["-display", display, "-solid", name]);
      for (;;) {
        const frame = await next(3_000);
        if (!frame) throw new Error(`no frame showed ${name} within 3 s (iteration ${i})`);
        const at = performance.now();
        const got = await centre(frame);
        if (got.every((v, k) => Math.abs(v - rgb[k]!) <= 12)) {
          times.push(at - t0);
          break;
        }
      }
    }
  } finally {
    watch.cancel();
  }
  return times;
}

/** The daemon's CPU, % of one core, over `seconds` while `maxFps` is watched (no viewer when 0) and the screen changes every `changeEveryMs` (0: idle). */
async function cpuPercent(env: Env, pid: number, display: string, o: { maxFps: number; changeEveryMs: number; seconds: number }): Promise<string> {
  const ac = new AbortController();
  let frames = 0;
  const viewing =
    o.maxFps > 0
      ? (async () => {
          for await (const _ of env.screen.watch({ format: "jpeg", maxFps: o.maxFps, signal: ac.signal })) frames++;
        })()
      : Promise.resolve();
  let changing = o.changeEveryMs > 0;
  const changer = (async () => {
    for (let i = 0; changing; i++) {
      await run("xsetroot", ["-display", display, "-solid", COLOURS[i % COLOURS.length]![0]]);
      await sleep(o.changeEveryMs);
    }
  })();
  await sleep(1_000);
  const [cpu0, t0, f0] = [cpuSeconds(pid), performance.now(), frames];
  await sleep(o.seconds * 1000);
  const [cpu1, t1, f1] = [cpuSeconds(pid), performance.now(), frames];
  changing = false;
  ac.abort();
  await Promise.all([viewing, changer]);
  await sleep(500);
  const pct = ((cpu1 - cpu0) / ((t1 - t0) / 1000)) * 100;
  return `${pct.toFixed(1)} % (${(((f1 - f0) * 1000) / (t1 - t0)).toFixed(1)} frames/s received)`;
}

/** Runs the suite; the figures as printable lines. */
export async function screenWatchFigures(): Promise<string[]> {
  const xs = await startXvfb({ width: WIDTH, height: HEIGHT });
  const daemon = await spawnDaemon({ display: xs.display, args: ["--quiet"], built: true });
  const lines: string[] = [];
  try {
    await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
    await run("xsetroot", ["-display", xs.display, "-solid", "#000000"]);
    await daemon.env.mouse.move({ x: WIDTH - 10, y: HEIGHT - 10 });
    lines.push(`screen ${WIDTH}x${HEIGHT} Xvfb, JPEG quality 70, full size; latency = start of \`xsetroot -solid\` to the frame showing it received`);
    lines.push("", "| viewer | latency p50 | p95 | n |", "|---|---|---|---|");
    for (const maxFps of [10, 30]) {
      const s = summarize(await latencies(daemon.env, xs.display, maxFps, 40));
      lines.push(`| max_fps ${maxFps} | ${s.p50.toFixed(0)} ms | ${s.p95.toFixed(0)} ms | ${s.n} |`);
    }
    lines.push("", "daemon CPU (% of one core, utime+stime from /proc over 10 s):", "", "| case | CPU |", "|---|---|");
    const pid = daemon.process.pid!;
    const cases: Array<[string, { maxFps: number; changeEveryMs: number }]> = [
      ["no viewer, idle screen", { maxFps: 0, changeEveryMs: 0 }],
      ["one viewer at 10 fps, idle screen", { maxFps: 10, changeEveryMs: 0 }],
      ["one viewer at 30 fps, idle screen", { maxFps: 30, changeEveryMs: 0 }],
      ["one viewer at 10 fps, screen changing ~20 times/s", { maxFps: 10, changeEveryMs: 50 }],
      ["one viewer at 30 fps, screen changing ~20 times/s", { maxFps: 30, changeEveryMs: 50 }],
    ];
    for (const [name, c] of cases) lines.push(`| ${name} | ${await cpuPercent(daemon.env, pid, xs.display, { ...c, seconds: 10 })} |`);
  } finally {
    await daemon.close();
    await xs.close();
  }
  return lines;
}
