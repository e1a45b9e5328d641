import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { afterAll, expect, test } from "vitest";
import { FailedPreconditionError } from "@pincer/controller";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { eventually } from "../fixtures/poll.js";
import { startXvfb, stopProcess, type XServer } from "../fixtures/xvfb.js";

// The X server of a machine can go away and come back (a crashed session, a restarted Xvfb). The
// daemon must say so while it is gone and serve again once it is back, without a restart of its own.

const run = promisify(execFile);
let daemon: RunningDaemon | undefined;
let first: XServer | undefined;
let second: ChildProcess | undefined;

afterAll(async () => {
  await daemon?.close();
  await first?.close();
  if (second) await stopProcess(second);
});

/**
 * An Xvfb on a display number of its own: the other test files' servers take the lowest free
 * numbers, and one of them must not take this one while it is gone.
 */
async function startOwnXvfb(): Promise<XServer> {
  for (let n = 500 + (process.pid % 400), tries = 0; ; n++, tries++) {
    try {
      return await startXvfb({ width: 1024, height: 768, displayNumber: n });
    } catch (err) {
      if (tries >= 20) throw err;
    }
  }
}

/** Starts Xvfb again on the display number the first one had, and waits for it to answer. */
async function restartOn(display: string): Promise<ChildProcess> {
  const socket = `/tmp/.X11-unix/X${display.slice(1)}`;
  await eventually(() => !existsSync(socket));
  const child = spawn("Xvfb", [display, "-screen", "0", "1024x768x24", "-noreset", "-nolisten", "tcp", "-br"], { stdio: "ignore" });
  for (const deadline = Date.now() + 30_000; Date.now() < deadline && child.exitCode === null; ) {
    const ok = await run("xdpyinfo", ["-display", display]).then(
      () => true,
      () => false,
    );
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Xvfb did not come back on ${display}${child.exitCode === null ? "" : ` (it exited with ${child.exitCode})`}`);
}

/** Where the pointer is, asked by an X client that is not the daemon. */
async function pointer(display: string): Promise<{ x: number; y: number }> {
  const { stdout } = await run("xdotool", ["getmouselocation"], { env: { ...process.env, DISPLAY: display } });
  const m = /x:(\d+) y:(\d+)/.exec(stdout)!;
  return { x: Number(m[1]), y: Number(m[2]) };
}

/** Every kind of call that touches the display, once. */
async function useDisplay(d: RunningDaemon, at: { x: number; y: number }): Promise<void> {
  const shot = await d.env.screen.screenshot({ format: "png" });
  expect(shot.width).toBe(1024);
  await d.env.mouse.move(at);
  await d.env.mouse.click();
  await d.env.keyboard.press("shift");
  await d.env.windows.list();
  await d.env.clipboard.set("back again");
}

test("the daemon survives its X server going away and serves the one that comes back", async () => {
  first = await startOwnXvfb();
  daemon = await spawnDaemon({ display: first.display });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  await useDisplay(daemon, { x: 100, y: 120 });
  expect(await pointer(first.display)).toEqual({ x: 100, y: 120 });

  await first.close();
  await expect(daemon.env.screen.screenshot({ format: "png" })).rejects.toBeInstanceOf(FailedPreconditionError);
  await expect(daemon.env.mouse.move({ x: 5, y: 5 })).rejects.toBeInstanceOf(FailedPreconditionError);

  second = await restartOn(first.display);
  for (let i = 0; i < 3; i++) {
    await useDisplay(daemon, { x: 200 + i, y: 210 + i });
    expect(await pointer(first.display)).toEqual({ x: 200 + i, y: 210 + i });
    expect(await daemon.env.clipboard.get()).toBe("back again");
  }
  // Still alive a moment later (Xlib's default handler exits the process on a dead connection).
  await new Promise((r) => setTimeout(r, 1_000));
  expect(daemon.process.exitCode).toBeNull();
  expect(daemon.process.signalCode).toBeNull();
  expect((await daemon.env.system.info()).hostname).toBeTruthy();
});
