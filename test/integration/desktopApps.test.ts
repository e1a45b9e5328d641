import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { FailedPreconditionError, NotFoundError, TimeoutError } from "@pincer/controller";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { eventually } from "../fixtures/poll.js";
import { alive } from "../fixtures/processes.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

const run = promisify(execFile);
let xs: XServer;
let daemon: RunningDaemon;
let xenv: NodeJS.ProcessEnv;

beforeAll(async () => {
  xs = await startXvfb({ width: 1024, height: 768 });
  daemon = await spawnDaemon({ display: xs.display });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  xenv = { ...process.env, DISPLAY: xs.display };
});

afterAll(async () => {
  await daemon?.close();
  await xs?.close();
});

describe("launching X programs and finding their windows", () => {
  test("launch waits for the window; the list shows title, class, pid and geometry", async () => {
    const { pid, window } = await daemon.env.process.launch(["xterm", "-T", "Pincer Launch Test", "-geometry", "80x24+40+30"], {
      waitForTitle: "Pincer Launch Test",
    });
    try {
      expect(pid).toBeGreaterThan(0);
      expect(window).toMatchObject({ title: "Pincer Launch Test", instance: "xterm", class: "XTerm", visible: true });
      expect(window!.geometry).toMatchObject({ x: 40, y: 30 });
      expect(window!.geometry.width).toBeGreaterThan(100);
      // xdotool, independently, finds the same window id.
      const { stdout } = await run("xdotool", ["search", "--name", "Pincer Launch Test"], { env: xenv });
      expect(stdout.trim().split("\n").map(Number)).toContain(window!.id);
      const listed = await daemon.env.windows.list();
      expect(listed.find((w) => w.id === window!.id)).toMatchObject({ pid, class: "XTerm" });
      expect(await daemon.env.process.list()).toContainEqual(expect.objectContaining({ pid, kind: "launch" }));
    } finally {
      await daemon.env.process.signal(pid, "SIGKILL").catch(() => undefined);
    }
  });

  test("focus gives the window the keyboard focus; close asks it to go away", async () => {
    const a = await daemon.env.process.launch(["xterm", "-T", "win-a", "-geometry", "40x10+0+0"], { waitForTitle: "win-a" });
    const b = await daemon.env.process.launch(["xterm", "-T", "win-b", "-geometry", "40x10+400+0"], { waitForTitle: "win-b" });
    try {
      const focused = await daemon.env.windows.focus(a.window!.id);
      expect(focused.focused).toBe(true);
      const { stdout } = await run("xdotool", ["getwindowfocus"], { env: xenv });
      expect(Number(stdout.trim())).toBe(a.window!.id);
      expect((await daemon.env.windows.focus(b.window!.id)).focused).toBe(true);

      await daemon.env.windows.close(a.window!.id);
      // xterm honours WM_DELETE_WINDOW by exiting.
      await eventually(() => !alive(a.pid));
      expect(alive(a.pid)).toBe(false);
      expect((await daemon.env.windows.list()).map((w) => w.title)).not.toContain("win-a");
      await expect(daemon.env.windows.focus(a.window!.id)).rejects.toBeInstanceOf(NotFoundError);
    } finally {
      for (const p of [a.pid, b.pid]) await daemon.env.process.signal(p, "SIGKILL").catch(() => undefined);
    }
  });

  test("a window that never appears is a TimeoutError and the program is stopped", async () => {
    const started = Date.now();
    const err = await daemon.env.process.launch(["sleep", "300"], { waitForTitle: "never", waitTimeoutMs: 500 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as Error).message).toMatch(/no window titled "never" appeared within 500 ms; the program was stopped/);
    // Its own 500 ms, with room for a loaded machine, not the 300 s of the program.
    expect(Date.now() - started).toBeLessThan(20_000);
    await eventually(async () => !(await daemon.env.process.list()).some((p) => p.argv[0] === "sleep"));
    expect((await daemon.env.process.list()).some((p) => p.argv[0] === "sleep")).toBe(false);
  });

  test("a program that exits before its window is FAILED_PRECONDITION", async () => {
    await expect(daemon.env.process.launch("exit 2", { waitForClass: "Nothing" })).rejects.toBeInstanceOf(FailedPreconditionError);
  });
});

describe("the X clipboard, against a real other owner (xclip)", () => {
  test("set by the daemon, read by xclip", async () => {
    await daemon.env.clipboard.set("from pincer: Grüße 世界");
    const { stdout } = await run("xclip", ["-o", "-selection", "clipboard"], { env: xenv });
    expect(stdout).toBe("from pincer: Grüße 世界");
    expect(await daemon.env.clipboard.get()).toBe("from pincer: Grüße 世界");
  });

  test("set by xclip, read by the daemon", async () => {
    const xclip = spawn("xclip", ["-i", "-selection", "clipboard", "-quiet"], { env: xenv, stdio: ["pipe", "ignore", "ignore"] });
    xclip.stdin!.end("from xclip: naïve café ✓");
    try {
      // xclip owns the selection once it has started and read its input.
      await eventually(async () => (await daemon.env.clipboard.get()) === "from xclip: naïve café ✓");
      expect(await daemon.env.clipboard.get()).toBe("from xclip: naïve café ✓");
    } finally {
      xclip.kill();
    }
  });
});
