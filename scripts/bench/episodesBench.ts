import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { spawnDaemon, type RunningDaemon } from "../../test/fixtures/daemon.js";
import { writeQuickTasks } from "../../test/fixtures/quickTasks.js";
import { readTrajectory } from "../../packages/controller/src/runFolder/runFiles.js";
import { type FlaskPeer, startFlaskPeer } from "./flaskPeer.js";
import { summarize } from "./stats.js";

/**
 * `npm run bench -- episodes`: the episode service (`pincer serve`) against the daemon it drives.
 * A step (a key press, then the settled screen's screenshot) from a Python client through the
 * service, beside the same calls straight on a daemon of the same kind of machine and, where the
 * Flask stand-in of OSWorld's server can serve it, the loop OSWorld's DesktopEnv makes against it;
 * the start of an episode; and episodes per minute of a quick task at 1, 2 and 4 at once. The
 * Python side (episodesClient.py) times its loops in one process and prints JSON.
 */

const ROOT = resolve(import.meta.dirname, "../..");
const CLI = join(ROOT, "packages/controller/src/cli/main.ts");
/** Debian's python3, with python3-grpcio (and python3-flask, python3-pil for the stand-in). */
const PYTHON = "/usr/bin/python3";
const CLIENT = join(import.meta.dirname, "episodesClient.py");
const STUBS = join(ROOT, "packages/python/pincer/_proto");
const PROTOS = join(ROOT, "proto/pincer/v1");
const TOKEN = "pincer-bench-episodes-token-0123456789";
const SCREEN = { width: 1280, height: 800 };
/** The step task's terminal: as large as the screen, so that the pointer (at the centre) is over it and keys reach it. */
const XTERM = ["xterm", "-geometry", "200x60+0+0", "-T", "pincer-bench-terminal", "-e", "/bin/sh"];
const STEP_TASK = "keys";
const QUICK_TASK = "quick00";
const ROUNDS = Number(process.env.PINCER_BENCH_EPISODE_ROUNDS ?? 8);
const PER_ROUND = 10;
const STARTS = 8;
const START_PAUSE_S = 3;
const EPISODES_PER_THREAD = Number(process.env.PINCER_BENCH_EPISODES_PER_THREAD ?? 6);

/** Why the Python side cannot run here, or undefined when it can (building pincer/_proto when missing or older than proto/). */
function pythonProblem(): string | undefined {
  if (!existsSync(PYTHON)) return `${PYTHON} is not installed (bash scripts/install-system-deps.sh test)`;
  try {
    execFileSync(PYTHON, ["-c", "import grpc, google.protobuf"], { stdio: "pipe" });
  } catch {
    return `${PYTHON} lacks grpc (apt-get install python3-grpcio python3-protobuf)`;
  }
  const built = join(STUBS, "episodes_pb2.py");
  const newest = Math.max(...readdirSync(PROTOS).map((f) => statSync(join(PROTOS, f)).mtimeMs));
  if (!existsSync(built) || statSync(built).mtimeMs < newest) {
    try {
      execFileSync(PYTHON, [join(ROOT, "packages/python/build_stubs.py")], { cwd: ROOT, stdio: "pipe" });
    } catch (err) {
      return `the Python stubs could not be built (npm run build:python): ${String((err as { stderr?: Buffer }).stderr ?? err)}`;
    }
  }
  return undefined;
}

/** The bench's dataset: the step task (a terminal that keys reach; its check never passes) and one quick task. */
function writeDataset(root: string): void {
  writeQuickTasks(root, { count: 1, tool: "bench", prefix: "quick", waitSeconds: () => 0 });
  const dir = join(root, "bench", STEP_TASK);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "expected.txt"), "never\n");
  const file = "/tmp/pincer-bench-episodes/keys.txt";
  const task = {
    id: STEP_TASK,
    instruction: "Press keys in the terminal (the bench's step loop; its check never passes).",
    config: [
      { func: "execute", arguments: { command: `mkdir -p /tmp/pincer-bench-episodes && printf 'no\\n' > ${file}` } },
      { func: "launch", arguments: { command: XTERM, wait_for_title: "pincer-bench-terminal" } },
    ],
    evaluation: { func: "compare_text_file", arguments: { local_expected: "expected.txt", vm_result: file } },
  };
  writeFileSync(join(dir, `${STEP_TASK}.json`), JSON.stringify(task));
}

interface Served {
  address: string;
  close(): Promise<void>;
}

/** `pincer serve` (from source, as test_server.py starts it) in a process group of its own; closed by SIGTERM, then the group is killed. */
async function serve(dataset: string, dir: string, concurrency: number): Promise<Served> {
  mkdirSync(dir, { recursive: true });
  const tokenFile = join(dir, "token");
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  const args = ["--single-threaded-gc", "--conditions=@pincer/source", "--import", "tsx", CLI, "serve", dataset, "--provider", "local"];
  args.push("--listen", "127.0.0.1:0", "--concurrency", String(concurrency), "--token-file", tokenFile, "--out", join(dir, "results"), "--max-steps", "500");
  const child: ChildProcess = spawn(process.execPath, args, { cwd: ROOT, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stderr!.on("data", (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // The group is gone already.
    }
  };
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([exited, sleep(30_000)]);
    }
    killGroup("SIGKILL");
  };
  try {
    const address = await new Promise<string>((ok, fail) => {
      let out = "";
      const timer = setTimeout(() => fail(new Error(`pincer serve did not start in 120 s:\n${log}`)), 120_000);
      child.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        const m = /serving episodes on (\S+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          ok(m[1]!);
        }
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        fail(new Error(`pincer serve exited with ${code}:\n${log}`));
      });
    });
    return { address, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Runs episodesClient.py in `mode` and parses the JSON it prints. */
function runClient<T>(mode: "steps" | "episodes", args: Record<string, unknown>): Promise<T> {
  const child = spawn(PYTHON, [CLIENT, mode, JSON.stringify(args)], {
    cwd: ROOT,
    env: { ...process.env, PYTHONPATH: join(ROOT, "packages/python") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-8000)));
  return new Promise<T>((ok, fail) => {
    child.once("exit", (code) => {
      if (code === 0) return ok(JSON.parse(out.trim().split("\n").at(-1)!) as T);
      fail(new Error(`episodesClient.py ${mode} exited with ${code}:\n${err}`));
    });
  });
}

/** The Flask stand-in on the direct machine's display, or why it cannot serve the loop. */
async function flaskOn(display: string): Promise<{ peer?: FlaskPeer; why?: string }> {
  let peer: FlaskPeer | undefined;
  try {
    peer = await startFlaskPeer({ display });
  } catch (err) {
    return { why: (err as Error).message.split("\n")[0] };
  }
  if (!peer) return { why: `${PYTHON} is not installed` };
  const r = await fetch(`http://127.0.0.1:${peer.port}/screenshot`);
  if (r.ok) return { peer };
  const why = `its /screenshot answered HTTP ${r.status}: ${(await r.text()).slice(0, 200)}`;
  await peer.close();
  return { why };
}

interface StepsOut {
  times: Record<string, number[]>;
  /** Each timed step's settle wait straight on the daemon, per loop. */
  waited_ms: Record<string, number[]>;
  /** The episode's step number of each timed step through the service. */
  service_steps: number[];
  attempt_dir: string;
  starts: number[];
  png_bytes: Record<string, number[]>;
}
interface EpisodesOut {
  wall_ms: number;
  starts: number[];
  closes: number[];
  states: string[];
  errors: string[];
}

const f = (v: number) => (v < 10 ? v.toFixed(2) : v.toFixed(1));

/** The settle wait of each of the service's timed steps, from the attempt's trajectory: the observation after step k is the one before turn k + 1. */
async function serviceWaits(out: StepsOut): Promise<number[]> {
  const before = new Map<number, number>();
  for (const line of await readTrajectory(out.attempt_dir)) {
    const ms = line.settle?.desktop?.waited_ms;
    if (ms !== undefined && !before.has(line.turn)) before.set(line.turn, ms);
  }
  return out.service_steps.map((k) => before.get(k + 1) ?? Number.NaN);
}

function stepRows(out: StepsOut, serviceWaited: number[], flaskWhy: string | undefined): string[] {
  const waited: Record<string, number[]> = { ...out.waited_ms, service: serviceWaited };
  // Each step's time less its own settle wait: what the calls around the wait took.
  const beyond = (k: string) => out.times[k]!.map((t, i) => t - waited[k]![i]!).filter((v) => !Number.isNaN(v));
  const s = Object.fromEntries(Object.entries(out.times).map(([k, t]) => [k, summarize(t)]));
  const row = (what: string, key: string) => {
    const x = s[key];
    if (!x) return `| ${what} | not measured | | | | |`;
    const w = waited[key] ? [summarize(waited[key].filter((v) => !Number.isNaN(v))).p50, summarize(beyond(key)).p50] : undefined;
    return `| ${what} | ${f(x.p50)} | ${f(x.p95)} | ${w ? f(w[0]!) : ""} | ${w ? f(w[1]!) : ""} | ${x.n} |`;
  };
  const p50 = (k: string) => summarize(beyond(k)).p50;
  const adds = p50("service") - p50("direct");
  const whole = s.service!.p50 - s.direct!.p50;
  const kib = (k: string) => (out.png_bytes[k]?.length ? `${(summarize(out.png_bytes[k]).p50 / 1024).toFixed(0)} KiB` : "none");
  return [
    "| step loop: a key press, then a screenshot | p50 ms | p95 ms | settle wait p50 | step − its wait, p50 | n |",
    "|---|---:|---:|---:|---:|---:|",
    row("through `pincer serve`: Python `pincer.Client.step` (tool call desktop__key, PNG observation)", "service"),
    row("straight on a daemon, Python gRPC stubs: PressKeys, WaitForSettle (the service's settle), Screenshot PNG", "direct"),
    row("straight on a daemon, no settle: PressKeys, Screenshot PNG", "direct_unsettled"),
    row("OSWorld DesktopEnv-style against the Flask stand-in: POST /execute (xdotool key), GET /screenshot (PNG), pause 0", "flask"),
    "",
    `**The service adds ${f(adds)} ms p50** to a step (step − its settle wait, through \`pincer serve\` − straight on a daemon; ` +
      `goal ≤ 3 ms: ${adds <= 3 ? "met" : "NOT met"}): the step's evaluation (the task's compare_text_file reads a file from the machine), the ` +
      "trajectory line and screenshot file, the hop through the server and the client's conversions. The service's observation is the " +
      "screenshot its attempt recorded after the settle (PNG), not a second one.",
    `Whole steps, p50 through the service − p50 straight on the daemon: ${f(whole)} ms. The settle (the daemon's own wait: the service's ` +
      "from the attempt's trajectory) ends after 300 ms without change, checked every 25 ms: when the key's effect is drawn after the wait's " +
      "first frame, it waits a frame longer, so whole steps differ by the waits too; the step less its wait does not.",
    `PNG observations (median size): through the service ${kib("service")}, straight on the daemon ${kib("direct")}, the stand-in's ${kib("flask")}.`,
    flaskWhy
      ? `The DesktopEnv-style loop is not measured: the Flask stand-in cannot serve it here (${flaskWhy}).`
      : 'The DesktopEnv-style loop: OSWorld\'s client sends `python -c "import pyautogui; …"` to /execute (Debian has no pyautogui, so the stand-in runs ' +
        "`xdotool key`, cheaper) and sleeps `pause` (2 s by default) instead of waiting for the screen; the stand-in grabs with Pillow as " +
        "`pyautogui.screenshot()` does, without OSWorld's cursor overlay. Compare it with the no-settle row.",
  ];
}

/**
 * The figures of `npm run bench -- episodes` as Markdown lines. Starts `pincer serve` (local
 * provider) three times (--concurrency 1, 2, 4), a daemon with its own 1280×800 Xvfb and the same
 * wallpaper and terminal as the service's machines for the direct loop, and the Flask stand-in on
 * that daemon's display; all are stopped, and the temporary folder removed, before it returns.
 */
export async function episodesFigures(): Promise<string[]> {
  const problem = pythonProblem();
  if (problem) return [`Not measured: ${problem}.`];
  const dir = mkdtempSync(join(tmpdir(), "pincer-bench-episodes-"));
  const dataset = join(dir, "dataset");
  writeDataset(dataset);
  const solution = JSON.parse(readFileSync(join(dataset, "bench", QUICK_TASK, "solution.json"), "utf8")) as Array<{ tool: string; args: unknown }>;
  const quick = solution.map((s) => ({ name: s.tool, arguments: s.args }));
  let daemon: RunningDaemon | undefined;
  let flask: FlaskPeer | undefined;
  let served: Served | undefined;
  try {
    // Built, as the local provider starts its machines' daemons; without the sandbox, so that the stand-in reaches its display.
    daemon = await spawnDaemon({ built: true, args: ["--xvfb", `${SCREEN.width}x${SCREEN.height}x24`, "--wallpaper", "--quiet"] });
    const { display } = await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
    await daemon.env.process.launch(XTERM, { waitForTitle: "pincer-bench-terminal" });
    const stand = await flaskOn(display);
    flask = stand.peer;
    const lines: string[] = [];
    const throughput: string[] = [];
    let base = 0;
    let steps: StepsOut | undefined;
    for (const c of [1, 2, 4]) {
      served = await serve(dataset, join(dir, `serve-${c}`), c);
      if (c === 1) {
        steps = await runClient<StepsOut>("steps", {
          server: served.address,
          token: TOKEN,
          daemon: daemon.address,
          ...(flask ? { flask_port: flask.port } : {}),
          step_task: STEP_TASK,
          quick_task: QUICK_TASK,
          warmup: 5,
          rounds: ROUNDS,
          per_round: PER_ROUND,
          starts: STARTS,
          start_pause_s: START_PAUSE_S,
        });
      }
      const common = { server: served.address, token: TOKEN, task: QUICK_TASK, solution: quick, concurrency: c };
      // One untimed episode per thread first: the service's and the machines' first calls, and the spares started with the slots.
      await runClient<EpisodesOut>("episodes", { ...common, count: c });
      const r = await runClient<EpisodesOut>("episodes", { ...common, count: EPISODES_PER_THREAD * c });
      await served.close();
      served = undefined;
      if (r.errors.length) throw new Error(`episodes at concurrency ${c} failed: ${r.errors.join("; ")}`);
      const failed = r.states.filter((s) => s !== "passed");
      if (failed.length) throw new Error(`episodes at concurrency ${c} ended ${failed.join(", ")} (the quick task passes with its solution)`);
      const perMin = (r.states.length / r.wall_ms) * 60_000;
      base ||= perMin;
      const [st, cl] = [summarize(r.starts), summarize(r.closes)];
      throughput.push(
        `| ${c} | ${perMin.toFixed(1)} | ${f(st.p50)} | ${f(st.p95)} | ${f(cl.p50)} | ${f(cl.p95)} | ${r.states.length} | ${(perMin / base).toFixed(2)}× |`,
      );
    }
    const starts = summarize(steps!.starts);
    lines.push(
      `${execFileSync(PYTHON, ["--version"]).toString().trim()} (${PYTHON}, python3-grpcio), ${cpus().length} cores; ` +
        `\`pincer serve\` with the local provider (a sandboxed daemon and a ${SCREEN.width}×${SCREEN.height} Xvfb per slot, a spare each), ` +
        "default settings (screenshots saved, settle auto); the direct daemon: the same build, screen, wallpaper and terminal, without the sandbox; " +
        `steps in ${ROUNDS} interleaved rounds of ${PER_ROUND} per loop after 5 untimed, times from \`time.perf_counter\` around each step\n`,
      ...stepRows(steps!, await serviceWaits(steps!), stand.why),
      "",
      `**Start** (StartEpisode: reset to a first observation, PNG; the quick task, ${START_PAUSE_S} s after the previous episode closed, ` +
        `its spare ready): p50 ${f(starts.p50)} ms, p95 ${f(starts.p95)} ms (n ${starts.n}). The first observation waits for the screen ` +
        "as every observation does (an unchanged screen: 1.5 s).",
      "",
      `Episodes of a quick task (start, its one-command solution, close; ${EPISODES_PER_THREAD} per concurrent episode after one untimed each), ` +
        "`pincer serve --concurrency N`, N threads of one Python client:\n",
      "| concurrent episodes | episodes/min | start p50 ms | start p95 ms | close p50 ms | close p95 ms | n | scaling vs 1 |",
      "|---:|---:|---:|---:|---:|---:|---:|---:|",
      ...throughput,
      "",
      `Scaling is bounded by this machine's ${cpus().length} cores: every start takes a clean machine and starts a spare behind it. ` +
        "A close records the final screen after its own wait for the screen (1.5 s when it does not change).",
    );
    return lines;
  } finally {
    await served?.close();
    await flask?.close();
    await daemon?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
