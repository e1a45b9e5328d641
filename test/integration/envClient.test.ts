import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { connect, UnavailableError, type Env } from "@pincer/controller";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";

let daemon: RunningDaemon;
let work: string;

beforeAll(async () => {
  daemon = await spawnDaemon();
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  work = mkdtempSync(join(tmpdir(), "pincer-closed-"));
  writeFileSync(join(work, "local.txt"), "hello");
});

afterAll(async () => {
  await daemon?.close();
  rmSync(work, { recursive: true, force: true });
});

/**
 * One call of every method of every API of `env`. A method missing here fails the test below, so
 * a new method gets its line (and its check) when it is added.
 */
function everyCall(env: Env, dir: string): Record<string, Record<string, () => Promise<unknown>>> {
  const point = { x: 1, y: 1 };
  const drain = async (it: AsyncIterable<unknown>) => {
    for await (const _ of it);
  };
  return {
    mouse: {
      move: () => env.mouse.move(point),
      click: () => env.mouse.click(),
      down: () => env.mouse.down(),
      up: () => env.mouse.up(),
      drag: () => env.mouse.drag([point, point]),
      scroll: () => env.mouse.scroll({ dy: 1 }),
      position: () => env.mouse.position(),
    },
    keyboard: {
      press: () => env.keyboard.press("ctrl+a"),
      down: () => env.keyboard.down("a"),
      up: () => env.keyboard.up("a"),
      type: () => env.keyboard.type("x"),
    },
    screen: {
      screenshot: () => env.screen.screenshot(),
      size: () => env.screen.size(),
      waitForSettle: () => env.screen.waitForSettle(),
      watch: () => drain(env.screen.watch()),
    },
    accessibility: { tree: () => env.accessibility.tree() },
    system: { info: () => env.system.info() },
    files: {
      upload: () => env.files.upload(join(dir, "local.txt"), "/tmp/pincer-closed-upload"),
      download: () => env.files.download("/etc/hostname", join(dir, "down.txt")),
      read: () => env.files.read("/etc/hostname"),
      readIfExists: () => env.files.readIfExists("/etc/hostname"),
      write: () => env.files.write("/tmp/pincer-closed-write", "x"),
      stat: () => env.files.stat("/"),
      exists: () => env.files.exists("/"),
      list: () => env.files.list("/"),
      mkdir: () => env.files.mkdir("/tmp/pincer-closed-dir"),
      remove: () => env.files.remove("/tmp/pincer-closed-nothing", { missingOk: true }),
      move: () => env.files.move("/tmp/a", "/tmp/b"),
    },
    process: {
      run: () => env.process.run(["true"]),
      start: () => drain(env.process.start(["true"])),
      signal: () => env.process.signal(1),
      list: () => env.process.list(),
      launch: () => env.process.launch(["true"]),
    },
    clipboard: { get: () => env.clipboard.get(), set: () => env.clipboard.set("x") },
    windows: { list: () => env.windows.list(), focus: () => env.windows.focus(1), close: () => env.windows.close(1) },
  };
}

test("after close(), every env call, unary and streaming, rejects with UnavailableError and starts nothing", async () => {
  const env = connect(daemon.address);
  await env.system.info({ timeoutMs: 10_000 }); // connected for real before closing
  env.close();
  const calls = everyCall(env, work);
  const apis = ["mouse", "keyboard", "screen", "system", "files", "process", "clipboard", "windows", "accessibility"] as const;
  for (const api of apis) expect(Object.keys(calls[api]!).sort(), `env.${api}`).toEqual(Object.keys(env[api]).sort());
  const outcomes: string[] = [];
  for (const [api, methods] of Object.entries(calls)) {
    for (const [name, call] of Object.entries(methods)) {
      const err = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      outcomes.push(`${api}.${name}: ${err instanceof UnavailableError ? "UnavailableError" : String(err)}`);
      if (err instanceof UnavailableError) expect(err.message).toMatch(/closed/);
    }
  }
  expect(outcomes.filter((o) => !o.endsWith(": UnavailableError"))).toEqual([]);
  expect(outcomes).toHaveLength(38);
  await expect(env.waitUntilReady({ timeoutMs: 1000 })).rejects.toBeInstanceOf(UnavailableError);
  // Nothing reached the daemon: the upload's and write's destinations were never made.
  expect(await daemon.env.files.exists("/tmp/pincer-closed-upload")).toBe(false);
  expect(await daemon.env.files.exists("/tmp/pincer-closed-write")).toBe(false);
});

test("a started command's handle reports pid and exit through wait()", async () => {
  const handle = daemon.env.process.start(["sh", "-c", "echo hi; exit 3"]);
  const exit = await handle.wait();
  expect(exit).toMatchObject({ exitCode: 3, signal: null, timedOut: false });
  expect(await handle.pid).toBeGreaterThan(0);
  const events: string[] = [];
  const streamed = daemon.env.process.start(["sh", "-c", "echo out"]);
  for await (const ev of streamed) events.push(ev.type);
  expect(events).toEqual(["started", "stdout", "exited"]);
  expect((await streamed.wait()).exitCode).toBe(0);
  // The pid read before iterating: the events still come whole and in order.
  const early = daemon.env.process.start(["sh", "-c", "echo early"]);
  expect(await early.pid).toBeGreaterThan(0);
  const earlyEvents: string[] = [];
  for await (const ev of early) earlyEvents.push(ev.type === "stdout" ? `stdout:${ev.data.toString().trim()}` : ev.type);
  expect(earlyEvents).toEqual(["started", "stdout:early", "exited"]);
  const killed = daemon.env.process.start(["sleep", "30"]);
  const pid = await killed.pid;
  expect(pid).toBeGreaterThan(0);
  killed.kill();
  await expect(killed.wait()).rejects.toThrow(/ended before it exited/);
});
