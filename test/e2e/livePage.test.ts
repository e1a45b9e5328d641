import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { launchChromium } from "../fixtures/chromium.js";
import { ROOT } from "../fixtures/cli.js";
import { writeLiveTask } from "../fixtures/liveTasks.js";

/**
 * `pincer run --live` on two local slots: a page in Chromium sees each slot's screen change as the
 * (scripted) agent acts, takes one slot over, clicks into an `xev` window and types a command into
 * an xterm of that machine — both X programs of the task, independent witnesses: the command writes
 * the file the task checks only if xev recorded the click — and hands it back; the agent goes on
 * and the run ends with the person's steps in trajectory.jsonl, summary.json and the reports.
 */
const CLI = resolve(ROOT, "packages/controller/src/cli/main.ts");
const SLOTS = 2;
let work: string;
let browser: Browser;
let page: Page;
let run: { done: Promise<number | null>; stderr: () => string; kill(): void };

/** Starts `pincer run --live`; resolves with the page's address once it is printed. */
function startRun(dataset: string, out: string): Promise<string> {
  const child = spawn(
    process.execPath,
    ["--conditions=@pincer/source", "--import", "tsx", CLI, "run", dataset, "--agent", "scripted", "--concurrency", String(SLOTS), "--live"].concat([
      "--out",
      out,
      "--run-id",
      "live",
      "--screen",
      "1280x800",
      "--task-timeout",
      "300",
      "--vnc",
    ]),
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stdout!.resume();
  const done = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  run = { done, stderr: () => stderr, kill: () => child.kill("SIGINT") };
  return new Promise((resolveUrl, reject) => {
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
      const m = /live: (http:\S+)/.exec(stderr);
      if (m) resolveUrl(m[1]!);
    });
    done.then(() => reject(new Error(`pincer run ended before printing the live page's address:\n${stderr}`)));
  });
}

interface PageFrame {
  slot: number;
  env: string;
  seq: number;
  screen: { width: number; height: number };
}
type View = { slot: number; mode: string; task?: { id: string }; humanSteps: number; lastAction?: { tool: string; by: string } };

const frames = (): Promise<PageFrame[]> => page.evaluate(() => (globalThis as unknown as { pincerLive: { frames: PageFrame[] } }).pincerLive.frames);
const views = (): Promise<Record<string, View>> =>
  page.evaluate(() => (globalThis as unknown as { pincerLive: { views: Record<string, View> } }).pincerLive.views);

async function until<T>(what: string, f: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; pincer's stderr:\n${run.stderr()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Clicks the slot's screen at screen pixel (x, y), as a person would with the mouse. */
async function clickScreen(slot: number, x: number, y: number): Promise<void> {
  const canvas = page.locator(`section[data-slot="${slot}"] canvas.view`);
  const box = (await canvas.boundingBox())!;
  const screen = (await frames()).find((f) => f.slot === slot)!.screen;
  await page.mouse.click(box.x + ((x + 0.5) * box.width) / screen.width, box.y + ((y + 0.5) * box.height) / screen.height);
}

let runDir: string;
let takenId = "";

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "pincer-live-"));
  const dataset = join(work, "tasks");
  for (const id of ["live-a", "live-b"]) writeLiveTask(dataset, id);
  runDir = join(work, "out", "live");
  const url = await startRun(dataset, join(work, "out"));
  browser = await launchChromium("the live page test");
  page = await browser.newPage({ viewport: { width: 1500, height: 900 } });
  await page.goto(url);
}, 120_000);

afterAll(async () => {
  run?.kill();
  await run?.done;
  await browser?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("pincer run --live", () => {
  test("the page shows each slot's machine as its agent acts: frames of both slots keep coming", async () => {
    const seen = await until("frames of both slots", async () => {
      const f = await frames();
      const bySlot = [0, 1].map((s) => f.filter((x) => x.slot === s).map((x) => x.seq));
      return bySlot.every((seqs) => seqs.length >= 3 && new Set(seqs).size >= 3) && bySlot;
    });
    // Each frame is sent because the screen changed (the agent recolours it every second).
    for (const seqs of seen) expect(Math.max(...seqs)).toBeGreaterThan(Math.min(...seqs));
    const v = await views();
    expect(
      Object.values(v)
        .map((x) => x.task?.id)
        .sort(),
    ).toEqual(["live-a", "live-b"]);
    expect(Object.values(v).every((x) => x.mode === "agent")).toBe(true);
    // The agent's last action (a command, or its wait) is drawn over its screen and named on the board.
    const painted = await until("the agent's last action drawn", async () => {
      const n = await page.evaluate(() => {
        type Canvas = {
          width: number;
          height: number;
          getContext(k: "2d"): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
        };
        const doc = (globalThis as unknown as { document: { querySelector(s: string): Canvas | null } }).document;
        const overlay = doc.querySelector('section[data-slot="0"] canvas.overlay');
        if (!overlay || overlay.width === 0) return 0;
        const { data } = overlay.getContext("2d").getImageData(0, 0, overlay.width, overlay.height);
        let count = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) count++;
        return count;
      });
      return n > 50 && n;
    });
    expect(painted).toBeGreaterThan(50);
    const last = (await views())[0]!.lastAction!;
    expect(last.by).toBe("agent");
    expect(["desktop__run_command", "desktop__wait"]).toContain(last.tool);
  }, 90_000);

  test("a standard VNC client (vncsnapshot) sees a slot's machine through the controller, with that machine's password only", async () => {
    const found = [...run.stderr().matchAll(/vnc: slot (\d) desktop at (\S+)::(\d+), password (\S+)/g)];
    const vnc = found.map((m) => ({ slot: Number(m[1]), host: m[2]!, port: m[3]!, password: m[4]! }));
    expect(vnc.map((v) => v.slot).sort()).toEqual([0, 1]);
    expect(vnc[0]!.password).not.toBe(vnc[1]!.password);
    const passwd = async (password: string) => {
      const file = join(work, `passwd-${password}`);
      const obfuscated = await new Promise<Buffer>((res, rej) => {
        const child = execFile("vncpasswd", ["-f"], { encoding: "buffer" }, (e, out) => (e ? rej(e) : res(out)));
        child.stdin!.end(`${password}\n${password}\n`);
      });
      writeFileSync(file, obfuscated);
      return file;
    };
    const snapshot = (v: (typeof vnc)[number], file: string) =>
      new Promise<number>((res) =>
        execFile("vncsnapshot", ["-passwd", file, "-quality", "95", `${v.host}::${v.port}`, join(work, "snap.jpg")], { timeout: 30_000 }, (e) =>
          res(e ? 1 : 0),
        ),
      );
    expect(await snapshot(vnc[0]!, await passwd(vnc[0]!.password))).toBe(0);
    // Away from the xterm and xev: the background the agent recolours once a second.
    const { data } = await sharp(join(work, "snap.jpg")).extract({ left: 1100, top: 600, width: 1, height: 1 }).raw().toBuffer({ resolveWithObject: true });
    const near = (hex: string) => [1, 3, 5].every((i, k) => Math.abs(Number.parseInt(hex.slice(i, i + 2), 16) - data[k]!) <= 12);
    expect(["#203040", "#402030", "#304020"].some(near), `pixel ${[...data]}`).toBe(true);
    // Slot 1's password does not open slot 0's machine.
    expect(await snapshot(vnc[0]!, await passwd(vnc[1]!.password))).not.toBe(0);
  }, 90_000);

  test("a person takes a slot over, clicks into xev and types into the xterm of that machine, and hands it back", async () => {
    const slot = Number(Object.values(await views()).find((x) => x.task?.id === "live-a")!.slot);
    takenId = "live-a";
    await page.click(`section[data-slot="${slot}"] button.take`);
    await until("the slot to be the person's", async () => (await views())[slot]?.mode === "human");
    // xev's window (240x160 at 700,100): a click there is recorded in xev.log.
    await clickScreen(slot, 820, 180);
    // The xterm (at the top left): focus it, then type a command that writes the task's file only if xev saw the click.
    await clickScreen(slot, 200, 120);
    const base = "/tmp/pincer-live/live-a";
    await page.keyboard.type(`grep -q ButtonPress ${base}/xev.log && echo typed-by-person > ${base}/typed.txt`, { delay: 5 });
    await page.keyboard.press("Enter");
    const sent = await until("the person's actions to have run", async () => {
      const s = await page.evaluate(() => (globalThis as unknown as { pincerLive: { sent: Array<{ action: string; status: number }> } }).pincerLive.sent);
      return s.some((x) => x.action === "key") && s;
    });
    expect(sent.map((x) => x.action)).toEqual(["click", "click", "type", "key"]);
    expect(sent.every((x) => x.status === 200)).toBe(true);
    await page.click(`section[data-slot="${slot}"] button.take`);
    await until("the agent to have the slot again", async () => (await views())[slot]?.mode === "agent");
    // While the other slot's agent went on all along.
    expect((await views())[1 - slot]?.humanSteps).toBe(0);
  }, 90_000);

  test("the run completes: the person's steps are in trajectory.jsonl (with screenshots), summary.json and the reports", async () => {
    expect(takenId).toBe("live-a");
    const code = await run.done;
    expect(code, run.stderr()).toBe(0);
    const attempt = join(runDir, "live", "live-a", "attempt-1");
    const summary = JSON.parse(readFileSync(join(attempt, "summary.json"), "utf8"));
    // The typed command wrote the file only because xev recorded the click: the verdict witnesses both.
    expect(summary.results.state).toBe("passed");
    expect(summary.results.human).toEqual({ steps: 4, takeovers: 1 });
    const other = JSON.parse(readFileSync(join(runDir, "live", "live-b", "attempt-1", "summary.json"), "utf8"));
    expect(other.results.state).toBe("failed");
    expect(other.results.human).toBeUndefined();
    const lines = readFileSync(join(attempt, "trajectory.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const human = lines.filter((l) => l.human);
    expect(human.map((l) => l.tool)).toEqual(["desktop__click", "desktop__click", "desktop__type", "desktop__key"]);
    expect(human[0].args).toEqual({ x: 820, y: 180 });
    expect(human[3].args).toEqual({ keys: "Return" });
    for (const l of human) expect(existsSync(join(attempt, l.screenshots.desktop))).toBe(true);
    // The agent's steps came before and after the person's.
    const firstHuman = lines.indexOf(human[0]);
    expect(lines.slice(0, firstHuman).some((l) => typeof l.step === "number")).toBe(true);
    expect(lines.slice(firstHuman).some((l) => typeof l.step === "number")).toBe(true);
    const report = JSON.parse(readFileSync(join(runDir, "report.json"), "utf8"));
    expect(report.perTask.find((t: { id: string }) => t.id === "live-a").human).toEqual({ steps: 4, takeovers: 1 });
    expect(report.perTask.find((t: { id: string }) => t.id === "live-b").human).toBeUndefined();
    const md = readFileSync(join(runDir, "report.md"), "utf8");
    expect(md).toContain("taken over by a person: 1 task(s)");
    expect(md).toMatch(/\| live-a \| live \| passed \(human\) \|/);
  }, 120_000);

  test("the run viewer shows the person's steps as theirs", async () => {
    const viewer = await browser.newPage();
    await viewer.goto(`file://${join(runDir, "report.html")}#task=live%2Flive-a`);
    await viewer.waitForSelector(".human-note");
    expect(await viewer.textContent(".human-note")).toContain("A person took this attempt over (1 time(s), 4 action(s)");
    const humanButtons = viewer.locator("#step-list button.human");
    expect(await humanButtons.count()).toBe(4);
    await humanButtons.nth(2).click();
    expect(await viewer.textContent("#step-view")).toContain("A person's action (not the agent's)");
    expect(await viewer.textContent("#step-view")).toContain("desktop__type");
    await viewer.close();
  }, 60_000);
});
