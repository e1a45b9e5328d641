import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { buildImage, type ImageManifest } from "../../packages/controller/src/machines/images/build.js";
import { importContainerImage } from "../../packages/controller/src/machines/images/containerImage.js";
import { containerProvider } from "../../packages/controller/src/machines/containerProvider.js";
import { openEngine } from "../../packages/controller/src/machines/dockerEngine.js";
import { localProvider } from "../../packages/controller/src/machines/localProvider.js";
import { openPool, type MachineProvider } from "../../packages/controller/src/machines/provider.js";
import { qemuProvider } from "../../packages/controller/src/machines/qemuProvider.js";
import { resetTimes, SHORT_TASK_MS, summarize } from "./stats.js";

/** The example tasks that run on one machine (all but multi/). */
const ONE_MACHINE_TASKS = ["clipboard/*", "data/*", "editor/*", "files/*", "images/*", "notebook/*", "projects/*", "terminal/*"];

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
function p50max(times: number[]): string {
  const { p50, p95 } = summarize(times);
  return `p50 ${s(p50)}, p95 ${s(p95)}, max ${s(Math.max(...times))} (n=${times.length})`;
}

/** Cold build (a temporary cache: mmdebstrap, qcow2, container import) and a cached one. */
async function buildFigures(): Promise<{ lines: string[]; image: ImageManifest }> {
  const cold = await mkdtemp(join(tmpdir(), "pincer-bench-cache-"));
  const lines: string[] = [];
  try {
    let t = performance.now();
    const m = await buildImage({ profile: "minimal", formats: ["qcow2"], cacheDir: cold });
    lines.push(`| build minimal, cold (mmdebstrap root filesystem + qcow2) | ${s(performance.now() - t)} |`);
    const engine = await openEngine({});
    try {
      const tag = `localhost/pincer-bench:${Date.now()}`;
      t = performance.now();
      await importContainerImage(engine, { rootfs: m.rootfs, tag });
      lines.push(`| container image import into ${engine.description} | ${s(performance.now() - t)} |`);
      await engine.docker.getImage(tag).remove({ force: true });
    } finally {
      await engine.close();
    }
  } finally {
    await rm(cold, { recursive: true, force: true });
  }
  const t = performance.now();
  const image = await buildImage({ profile: "minimal", formats: ["container", "qcow2"] });
  lines.push(`| build minimal again (cached: same inputs) | ${s(performance.now() - t)} |`);
  return { lines, image };
}

/** Start to ready (one machine), then reset to ready 10 times on the same slot, a short task before each. */
async function providerFigures(name: string, provider: MachineProvider): Promise<string> {
  const t = performance.now();
  const pool = await openPool(provider, ["desktop"], 1);
  const start = performance.now() - t;
  try {
    // As in a run, the first task takes a while: the slot's spare (where there is one) is up by its end.
    await new Promise((r) => setTimeout(r, 5_000));
    const { times, method } = await resetTimes(pool.slots[0]!, 10);
    return `| ${name} (reset: ${method}) | ${s(start)} | ${p50max(times)} |`;
  } finally {
    await pool.close();
  }
}

/** `pincer run` on the one-machine examples with 2 slots: tasks per minute, start included. */
async function runFigures(provider: string, extra: string[]): Promise<string> {
  const out = await mkdtemp(join(tmpdir(), "pincer-bench-run-"));
  try {
    const args = ["--conditions=@pincer/source", "--import", "tsx", "packages/controller/src/cli/main.ts", "run", "examples", "--concurrency", "2"];
    const tasks = ONE_MACHINE_TASKS.flatMap((t) => ["--task", t]);
    const t = performance.now();
    const r = await execa("node", [...args, ...tasks, "--out", out, ...extra], { reject: false, all: true });
    const ms = performance.now() - t;
    const m = /tasks (\d+): passed (\d+)/.exec(r.all ?? "");
    if (!m) return `| ${provider} | failed: ${(r.all ?? "").split("\n").slice(-3).join(" ")} | | |`;
    return `| ${provider} | ${m[2]}/${m[1]} passed | ${s(ms)} | ${((Number(m[1]) * 60_000) / ms).toFixed(1)} |`;
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

/**
 * `npm run bench -- images`: building the minimal image (cold and cached), each provider's start and
 * reset, and the example dataset with 2 machines per provider against the default (local) provider.
 */
export async function imageFigures(): Promise<string[]> {
  const { lines: build, image } = await buildFigures();
  const providers: [string, MachineProvider][] = [
    ["local (the default)", localProvider()],
    ["container", containerProvider({ image: image.container!.tag })],
    ["qemu", qemuProvider({ ...image.qcow2! })],
    ["qemu --vm-spare", qemuProvider({ ...image.qcow2!, spare: true })],
  ];
  const starts: string[] = [];
  for (const [name, provider] of providers) starts.push(await providerFigures(name, provider));
  const runs = [
    await runFigures("local (the default)", []),
    await runFigures("container", ["--provider", "container", "--image", "minimal"]),
    await runFigures("qemu", ["--provider", "qemu", "--image", "minimal"]),
    await runFigures("qemu --vm-spare", ["--provider", "qemu", "--image", "minimal", "--vm-spare"]),
  ];
  return [
    "| image | time |",
    "|---|---:|",
    ...build,
    "",
    `| provider | start to ready (1 machine) | reset to ready (same slot, after a ${SHORT_TASK_MS / 1000} s task) |`,
    "|---|---:|---|",
    ...starts,
    "",
    `the examples that run on one machine, 2 slots (\`pincer run examples --concurrency 2\`, machines' start included):\n`,
    "| provider | result | wall time | tasks per minute |",
    "|---|---|---:|---:|",
    ...runs,
    "",
    "goals: local and container reset ≤ 0.5 s p50; VM reset ≤ 1 s p50 in TCG",
  ];
}
