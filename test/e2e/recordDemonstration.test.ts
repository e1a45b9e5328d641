import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { launchChromium } from "../fixtures/chromium.js";
import { ROOT, runPincer } from "../fixtures/cli.js";

/**
 * `pincer record` of the demo's type-in-terminal task (a copy without its solution): the test
 * drives the live page in Chromium as a person would (a click on the terminal, typing, Return,
 * Done); the task passes on the screen as it was left, its solution.json is written from what was
 * done, and `pincer check` proves that solution on fresh machines.
 */
const CLI = resolve(ROOT, "packages/controller/src/cli/main.ts");
let work: string;
let tasks: string;
let browser: Browser;
let page: Page;
let child: ReturnType<typeof spawn>;
let exit: Promise<number | null>;
let stdout = "";
let stderr = "";

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "pincer-record-"));
  tasks = join(work, "tasks");
  const dir = join(tasks, "terminal", "type-in-terminal");
  mkdirSync(dir, { recursive: true });
  for (const f of ["type-in-terminal.json", "expected.txt"]) copyFileSync(join(ROOT, "examples/terminal/type-in-terminal", f), join(dir, f));
  child = spawn(process.execPath, ["--conditions=@pincer/source", "--import", "tsx", CLI, "record", dir, "--out", join(work, "out")], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  exit = new Promise((r) => child.once("exit", (code) => r(code)));
  const url = await new Promise<string>((res, rej) => {
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
      const m = /live: (http:\S+)/.exec(stderr);
      if (m) res(m[1]!);
    });
    void exit.then(() => rej(new Error(`pincer record ended early:\n${stderr}`)));
  });
  browser = await launchChromium("the demonstration test");
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(url);
}, 120_000);

afterAll(async () => {
  if (child && child.exitCode === null) child.kill("SIGINT");
  await exit;
  await browser?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

type Live = {
  views: Record<string, { mode: string }>;
  frames: Array<{ screen: { width: number; height: number } }>;
  sent: Array<{ action: string; status: number }>;
};
const live = (): Promise<Live> => page.evaluate(() => (globalThis as unknown as { pincerLive: Live }).pincerLive);

async function until<T>(what: string, f: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; stderr:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("pincer record", () => {
  test("a person does the task on the page; the task passes and its solution is written in the task's format", async () => {
    // The slot is the person's from the start (after the task's setup: the terminal is open).
    await until("the machine's screen, taken over", async () => {
      const l = await live();
      return l.views[0]?.mode === "human" && l.frames.length > 0;
    });
    const canvas = page.locator('section[data-slot="0"] canvas.view');
    const box = (await canvas.boundingBox())!;
    const screen = (await live()).frames[0]!.screen;
    await page.mouse.click(box.x + (300 * box.width) / screen.width, box.y + (200 * box.height) / screen.height);
    await page.keyboard.type("echo typed-by-agent > /tmp/pincer-demo/type-in-terminal/typed.txt", { delay: 5 });
    await page.keyboard.press("Enter");
    await until("the actions to have run", async () => {
      const sent = (await live()).sent;
      return sent.some((s) => s.action === "key") && sent;
    });
    expect((await live()).sent.map((s) => [s.action, s.status])).toEqual([
      ["click", 200],
      ["type", 200],
      ["key", 200],
    ]);
    await page.click('section[data-slot="0"] button.done');
    expect(await exit, stderr).toBe(0);
    expect(stdout).toContain("demonstration: passed (score 1.00)");
    const solution = JSON.parse(readFileSync(join(tasks, "terminal", "type-in-terminal", "solution.json"), "utf8")) as Array<{
      tool: string;
      args: Record<string, unknown>;
    }>;
    const acts = solution.filter((s) => s.tool !== "desktop__wait");
    expect(acts).toEqual([
      { tool: "desktop__click", args: { x: expect.any(Number), y: expect.any(Number) } },
      { tool: "desktop__type", args: { text: "echo typed-by-agent > /tmp/pincer-demo/type-in-terminal/typed.txt" } },
      { tool: "desktop__key", args: { keys: "Return" } },
    ]);
    expect(Math.abs((acts[0]!.args.x as number) - 300)).toBeLessThanOrEqual(2);
    // It ends with a wait for the outcome of the last action.
    expect(solution.at(-1)).toEqual({ tool: "desktop__wait", args: { seconds: 1 } });
    // The demonstration itself is kept: the person's actions with the screens after them.
    const runs = readdirSync(join(work, "out"));
    expect(runs).toHaveLength(1);
    const attempt = join(work, "out", runs[0]!, "terminal", "type-in-terminal", "attempt-1");
    const lines = readFileSync(join(attempt, "trajectory.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const human = lines.filter((l) => l.human);
    expect(human).toHaveLength(3);
    for (const l of human) expect(existsSync(join(attempt, l.screenshots.desktop))).toBe(true);
  }, 120_000);

  test("pincer check proves the recorded solution on fresh machines; recording again without --force is refused", async () => {
    const check = await runPincer(["check", tasks]);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toMatch(/^ok {3}terminal\/type-in-terminal/m);
    expect(check.stdout).toContain("1 of 1");
    const again = await runPincer(["record", join(tasks, "terminal", "type-in-terminal")]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/solution\.json exists: pass --force to replace it, or --solution FILE/);
  }, 180_000);
});
