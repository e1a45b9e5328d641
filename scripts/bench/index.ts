/**
 * `npm run bench [-- input drivers settle process transfer peers reset step images queue episodes screenwatch livepage]`: Pincer's daemon against the
 * alternatives, measured side by side in one run. Input and screenshots run on one 1920x1080 Xvfb screen with realistic content.
 * Prints Markdown tables (operation, p50, p95, peer, ratio). Machines here are noisy: read the medians and the ratios measured in
 * the same run, not single figures.
 *
 * Suites: input, drivers, settle, process, transfer, peers (the Flask stand-in of OSWorld's server), reset, step, images, queue;
 * episodes: a step (key press, settled screenshot) from Python through `pincer serve` against the same step straight on a daemon
 * and OSWorld's DesktopEnv-style loop against the Flask stand-in, the start of an episode, and episodes/min at 1, 2 and 4 at once;
 * screenwatch: Screen/Watch's latency from an X change to the frame at a client, and the daemon's CPU with a viewer (own 1280x800 Xvfb);
 * livepage: the same from an X change to the frame drawn by the live page in Chromium, against a page polling screenshots.
 */
import { chooseSpawner } from "../../packages/daemon/src/drivers/spawner.js";
import { spawnDaemon } from "../../test/fixtures/daemon.js";
import { startXvfb } from "../../test/fixtures/xvfb.js";
import { driverRows } from "./driversBench.js";
import { episodesFigures } from "./episodesBench.js";
import { imageFigures } from "./imagesBench.js";
import { inputRows } from "./inputBench.js";
import { livePageFigures } from "./livePageBench.js";
import { peersFigures } from "./peersBench.js";
import { processRows } from "./processBench.js";
import { queueFigures } from "./queueBench.js";
import { resetRows } from "./resetBench.js";
import { screenWatchFigures } from "./screenWatchBench.js";
import { settleFigures } from "./settleBench.js";
import { stepFigures } from "./stepBench.js";
import { buildScene } from "./scene.js";
import { startSshPeer } from "./sshPeer.js";
import { printTable } from "./stats.js";
import { transferFiguresInFreshProcess } from "./transferBench.js";

const WIDTH = 1920;
const HEIGHT = 1080;
const all = ["input", "drivers", "settle", "process", "transfer", "peers", "reset", "step", "images", "queue", "episodes", "screenwatch", "livepage"];
const asked = process.argv.slice(2).filter((a) => all.includes(a));
const suites = new Set(asked.length ? asked : all);

const xs = await startXvfb({ width: WIDTH, height: HEIGHT });
// nut-js in this process (a peer of the in-process grab) opens the display named by DISPLAY.
process.env.DISPLAY = xs.display;
// The built daemon, as installed (`npm run bench` builds first).
const daemon = await spawnDaemon({ display: xs.display, args: ["--quiet"], built: true });
const ssh = suites.has("process") || suites.has("transfer") ? await startSshPeer() : undefined;
let removeScene: (() => Promise<void>) | undefined;

try {
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  console.log(
    `daemon ${daemon.address} (pid ${daemon.process.pid}), node ${process.version}, ${new Date().toISOString()}; figures in milliseconds unless stated\n`,
  );
  if (suites.has("input")) {
    removeScene = await buildScene(xs.display, WIDTH, HEIGHT);
    console.log(
      `## Input and screenshots\nscreen: ${WIDTH}x${HEIGHT} Xvfb; content: left half random noise (worst case for compression), right half three xterms ` +
        `of text\n`,
    );
    const { rows, notes } = await inputRows(daemon.env, xs.display, WIDTH, HEIGHT);
    printTable(rows);
    console.log(`\n${notes.join("\n")}`);
    console.log(
      'For scale (measured earlier on this kind of machine, not in this run): a peer that runs `python -c "import pyautogui; …"` per action took about ' +
        "240 ms per move; one that sends pickled functions to a Python server about 106 ms per move and 2 s per click; peers' PNG screenshots 180–250 " +
        "ms.\n",
    );
  }
  if (suites.has("drivers")) {
    removeScene ??= await buildScene(xs.display, WIDTH, HEIGHT);
    console.log("## Native and portable drivers\n\nthe same calls on the same screen: ours = --drivers native, peer = --drivers portable\n");
    const { rows, notes } = await driverRows(daemon.env, xs.display, WIDTH);
    printTable(rows);
    console.log(`\n${notes.join("\n")}\n`);
  }
  if (suites.has("settle")) {
    console.log(
      "## Waiting after an action\n\ntime from the end of the action to a screenshot; too early = the screenshot differs from one taken 2.5 s later\n",
    );
    console.log(`${(await settleFigures(daemon.env)).join("\n")}\n`);
  }
  if (suites.has("process")) {
    console.log(`## Processes\n\ncommands start through the ${chooseSpawner()} spawner (PINCER_SPAWNER=native, or =node with PINCER_ALLOW_NODE_SPAWNER=1)\n`);
    printTable(await processRows(daemon.env, ssh));
    console.log("For scale (earlier, not this run): a peer's HTTP /execute took 4.2–4.9 ms.\n");
  }
  if (suites.has("peers")) {
    removeScene ??= await buildScene(xs.display, WIDTH, HEIGHT);
    console.log("## Against a stand-in for OSWorld's Flask server\n");
    const settleS = Number(process.env.PINCER_BENCH_SETTLE_S ?? 60);
    console.log(
      (await peersFigures(daemon.env, daemon.address, daemon.process.pid!, WIDTH, Number(process.env.PINCER_BENCH_PEERS_MIB ?? 256), settleS)).join("\n"),
    );
    console.log("");
  }
  if (suites.has("reset")) {
    console.log("## Clean machines\n");
    const { rows, notes } = await resetRows();
    printTable(rows);
    console.log(`\n${notes.join("\n")}\n`);
  }
  if (suites.has("images")) {
    console.log("## Machines from an image\n");
    console.log(`${(await imageFigures()).join("\n")}\n`);
  }
  if (suites.has("queue")) {
    console.log("## A run over a queue\n");
    console.log(`${(await queueFigures()).join("\n")}\n`);
  }
  if (suites.has("step")) {
    console.log("## A step over a slow link\n");
    console.log(`${(await stepFigures()).join("\n")}\n`);
  }
  if (suites.has("episodes")) {
    console.log("## Episodes over `pincer serve`\n");
    console.log(`${(await episodesFigures()).join("\n")}\n`);
  }
  if (suites.has("screenwatch")) {
    console.log("## Screen stream\n");
    console.log(`${(await screenWatchFigures()).join("\n")}\n`);
  }
  if (suites.has("livepage")) {
    console.log("## The live page\n");
    console.log(`${(await livePageFigures()).join("\n")}\n`);
  }
  if (suites.has("transfer")) {
    console.log("## File transfer\n");
    const sizeMiB = Number(process.env.PINCER_BENCH_TRANSFER_MIB ?? 1024);
    console.log("measured from a fresh controller process, as the pincer CLI or scp runs\n");
    console.log((await transferFiguresInFreshProcess(daemon.address, daemon.process.pid!, ssh, sizeMiB)).lines.join("\n"));
  }
} finally {
  await removeScene?.();
  await ssh?.close();
  await daemon.close();
  await xs.close();
}
