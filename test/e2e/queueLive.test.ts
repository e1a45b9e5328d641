import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Browser, FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { Redis } from "ioredis";
import { sign } from "../../packages/controller/src/queue/signing.js";
import { launchChromium } from "../fixtures/chromium.js";
import { ROOT } from "../fixtures/cli.js";
import { writeLiveTask } from "../fixtures/liveTasks.js";
import { startRedis, type TestRedis } from "../fixtures/redisServer.js";

/**
 * A run spread over a worker (real Redis): `pincer worker --live` serves its own page, advertised in
 * Redis signed with the queue's key; `pincer run --queue … --live` serves the coordinator's page,
 * which shows the worker's page relayed through it. Through the coordinator's page a person takes
 * the worker's slot over and does the task; the gathered results say so.
 */
const CLI = resolve(ROOT, "packages/controller/src/cli/main.ts");
let work: string;
let redis: TestRedis;
let browser: Browser;
let page: Page;
const procs: Array<ChildProcess & { out: () => string }> = [];

function pincer(args: string[], env: NodeJS.ProcessEnv): ChildProcess & { out: () => string } {
  const child = spawn(process.execPath, ["--conditions=@pincer/source", "--import", "tsx", CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  }) as ChildProcess & { out: () => string };
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  child.out = () => out;
  procs.push(child);
  return child;
}

async function until<T>(what: string, f: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await f().catch(() => undefined);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}:\n${procs.map((p) => p.out()).join("\n---\n")}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

let coordinator: ChildProcess & { out: () => string };
let exit: Promise<number | null>;
let frame: FrameLocator;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "pincer-queue-live-"));
  const dataset = join(work, "tasks");
  writeLiveTask(dataset, "live-q", 40);
  redis = await startRedis(join(work, "redis"));
  const env = { PINCER_QUEUE_KEY: randomBytes(32).toString("hex") };
  const worker = pincer(["worker", "--queue", redis.url, "--queue-name", "live", "--name", "W1", "--live", "127.0.0.1:0", "--screen", "1280x800"], env);
  await until("the worker's page", async () => /live: http/.test(worker.out()) && /taking tasks/.test(worker.out()));
  coordinator = pincer(
    ["run", dataset, "--queue", redis.url, "--queue-name", "live", "--agent", "scripted", "--out", join(work, "out"), "--run-id", "q", "--live"],
    env,
  );
  exit = new Promise((r) => coordinator.once("exit", (code) => r(code)));
  const url = await until("the coordinator's page", async () => /live: (http:\S+) \(the workers/.exec(coordinator.out())?.[1]);
  browser = await launchChromium("the queue's live page test");
  page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
  await page.goto(url);
}, 120_000);

afterAll(async () => {
  for (const p of procs) if (p.exitCode === null) p.kill("SIGINT");
  await Promise.all(procs.map((p) => (p.exitCode === null ? new Promise((r) => p.once("exit", r)) : undefined)));
  await browser?.close();
  await redis?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
}, 60_000);

type Live = { views: Record<string, { mode: string; task?: { id: string } }>; frames: Array<{ seq: number; screen: { width: number; height: number } }> };

describe("pincer run --queue --live", () => {
  test("the coordinator's page shows the worker's slot, relayed: its task and its screen as the agent acts", async () => {
    await page.waitForSelector('section.worker[data-worker="W1"] iframe');
    frame = page.frameLocator('section.worker[data-worker="W1"] iframe');
    const inner = page.frames().find((f) => f.url().includes("/w/W1/"))!;
    expect(inner.url()).toContain("/w/W1/");
    const live = (): Promise<Live> => inner.evaluate(() => (globalThis as unknown as { pincerLive: Live }).pincerLive);
    await until("the task on the worker's slot and its frames", async () => {
      const l = await live();
      return l.views[0]?.task?.id === "live-q" && new Set(l.frames.map((f) => f.seq)).size >= 3;
    });
    // An advertisement not signed with the queue's key (anyone who can write to Redis) is not relayed.
    const forged = new Redis(redis.url);
    await forged.set("pincer-live:live:EVIL", JSON.stringify(sign(randomBytes(32), "live", { worker: "EVIL", url: "http://127.0.0.1:9/" })), "EX", 60);
    forged.disconnect();
    await new Promise((r) => setTimeout(r, 2_500));
    const listed = await page.evaluate(async () => (await (await fetch("api/workers")).json()) as Array<{ worker: string }>);
    expect(listed.map((w) => w.worker)).toEqual(["W1"]);
    expect(coordinator.out()).toMatch(/live: left out pincer-live:live:EVIL: the live's signature does not match the queue key/);
    // The worker's page is not reachable without its token (derived from the queue's key, never in Redis).
    const workerUrl = /live: (http:\S+)/.exec(procs[0]!.out())![1]!;
    expect((await fetch(`${workerUrl.replace(/\?.*$/, "")}api/slots`)).status).toBe(401);
  }, 90_000);

  test("a person takes the worker's slot over through the coordinator's page and does the task; the gathered results say so", async () => {
    const inner = page.frames().find((f) => f.url().includes("/w/W1/"))!;
    const live = (): Promise<Live & { sent: Array<{ action: string; status: number }> }> =>
      inner.evaluate(() => (globalThis as unknown as { pincerLive: Live & { sent: Array<{ action: string; status: number }> } }).pincerLive);
    await frame.locator('section[data-slot="0"] button.take').click();
    await until("the slot to be the person's", async () => (await live()).views[0]?.mode === "human");
    const canvas = frame.locator('section[data-slot="0"] canvas.view');
    const box = (await canvas.boundingBox())!;
    const screen = (await live()).frames.at(-1)!.screen;
    const at = (x: number, y: number) => page.mouse.click(box.x + ((x + 0.5) * box.width) / screen.width, box.y + ((y + 0.5) * box.height) / screen.height);
    await at(820, 180);
    await at(200, 120);
    const base = "/tmp/pincer-live/live-q";
    await page.keyboard.type(`grep -q ButtonPress ${base}/xev.log && echo typed-by-person > ${base}/typed.txt`, { delay: 5 });
    await page.keyboard.press("Enter");
    await until("the actions to have run", async () => (await live()).sent.some((s) => s.action === "key"));
    expect((await live()).sent.map((s) => [s.action, s.status])).toEqual([
      ["click", 200],
      ["click", 200],
      ["type", 200],
      ["key", 200],
    ]);
    await frame.locator('section[data-slot="0"] button.take').click();
    await until("the agent to have the slot again", async () => (await live()).views[0]?.mode === "agent");
    expect(await exit, coordinator.out()).toBe(0);
    const summary = JSON.parse(readFileSync(join(work, "out", "q", "live", "live-q", "attempt-1", "summary.json"), "utf8"));
    expect(summary.results).toMatchObject({ state: "passed", human: { steps: 4, takeovers: 1 } });
    const lines = readFileSync(join(work, "out", "q", "live", "live-q", "attempt-1", "trajectory.jsonl"), "utf8")
      .trim()
      .split("\n");
    expect(lines.map((l) => JSON.parse(l)).filter((l) => l.human)).toHaveLength(4);
    expect(readFileSync(join(work, "out", "q", "report.md"), "utf8")).toMatch(/\| live-q \| live \| passed \(human\) \|/);
  }, 120_000);
});
