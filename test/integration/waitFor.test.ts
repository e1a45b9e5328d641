import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createSystemActions } from "@pincer/controller";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

let xs: XServer;
let daemon: RunningDaemon;
const { wait_for, run_command, launch } = createSystemActions();

beforeAll(async () => {
  xs = await startXvfb({ width: 1024, height: 768 });
  daemon = await spawnDaemon({ display: xs.display });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
});

afterAll(async () => {
  await daemon?.close();
  await xs?.close();
});

const ctx = () => ({ env: daemon.env, signal: AbortSignal.timeout(30_000) });

describe("wait_for: a solution waits for what a program does after the action that started it returned", () => {
  test("a file that a background command writes a second later", async () => {
    const file = `/tmp/pincer-wait-for-${process.pid}-${Date.now()}`;
    try {
      const started = await run_command.safeCall({ command: `(sleep 1; touch ${file}) >/dev/null 2>&1 &` }, ctx());
      expect(started.ok).toBe(true);
      const r = await wait_for.safeCall({ file, timeout_seconds: 15 }, ctx());
      expect(r.ok, r.ok ? "" : r.error.message).toBe(true);
      expect(r.ok && (r.value as { waited_ms: number }).waited_ms).toBeGreaterThan(500);
    } finally {
      await daemon.env.process.run(["rm", "-f", file]);
    }
  });

  test("a window a program opens after a delay, by title", async () => {
    const title = `pincer-late-${Date.now()}`;
    const r0 = await launch.safeCall({ command: `sh -c 'sleep 1; exec xterm -T ${title}'` }, ctx());
    expect(r0.ok).toBe(true);
    const r = await wait_for.safeCall({ window_title: title, timeout_seconds: 20 }, ctx());
    expect(r.ok, r.ok ? "" : r.error.message).toBe(true);
    expect(r.ok && (r.value as { window_title: string }).window_title).toBe(title);
    await daemon.env.process.run(["pkill", "-f", `xterm -T ${title}`]);
  });

  test("what does not come in time fails the step, saying what is missing; no target at all is invalid", async () => {
    const r = await wait_for.safeCall({ file: "/tmp/pincer-never-there", window_class: "NoSuchClass", timeout_seconds: 0.5 }, ctx());
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.message).toBe("wait_for: after 0.5 s there is still no window of class NoSuchClass and no file /tmp/pincer-never-there");
    const bad = await wait_for.safeCall({ timeout_seconds: 1 }, ctx());
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error.message).toMatch(/give window_title, window_class or file/);
  });
});
