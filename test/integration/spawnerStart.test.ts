import { afterEach, describe, expect, test } from "vitest";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { eventually } from "../fixtures/poll.js";
import { alive, descendants } from "../fixtures/processes.js";

// The daemon starts the process its commands start through (its spawner) once it listens, so that a
// fresh machine's first command does not wait for it; a daemon that runs no commands starts none.

let daemon: RunningDaemon | undefined;

afterEach(async () => {
  await daemon?.close();
  daemon = undefined;
});

/** The daemon's spawner processes: the native pincer-spawner, or the Node one (spawnerProcess). */
function spawners(d: RunningDaemon): Array<{ pid: number; cmd: string }> {
  return descendants(d.process.pid!).filter((p) => /pincer-spawner$|spawnerProcess\.(js|ts)$/.test(p.cmd));
}

describe("the daemon's spawner", () => {
  test.each([
    ["native", {}, /pincer-spawner$/],
    ["node", { PINCER_SPAWNER: "node", PINCER_ALLOW_NODE_SPAWNER: "1" }, /spawnerProcess\.(js|ts)$/],
  ] as const)("the %s spawner runs before the first command, and that command goes through it", async (_, env, cmd) => {
    daemon = await spawnDaemon({ env });
    await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
    const d = daemon;
    expect(await eventually(() => spawners(d).length === 1)).toBe(true);
    const [before] = spawners(d);
    expect(before!.cmd).toMatch(cmd);
    const r = await d.env.process.run(["sh", "-c", "echo $PPID"]);
    expect(r.exitCode).toBe(0);
    // The command's parent is the spawner that was already running: no second one was started.
    expect(Number(r.stdout.toString().trim())).toBe(before!.pid);
    expect(spawners(d)).toEqual([before]);
  });

  test("a daemon started with --no-exec starts no spawner", async () => {
    daemon = await spawnDaemon({ args: ["--no-exec"] });
    await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
    // A daemon that runs commands has its spawner by now (the test above waits for it the same way).
    await new Promise((r) => setTimeout(r, 1000));
    await daemon.env.system.info();
    expect(spawners(daemon)).toEqual([]);
  });

  test("a spawner that was killed is replaced by the next command", async () => {
    daemon = await spawnDaemon();
    await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
    const d = daemon;
    expect(await eventually(() => spawners(d).length === 1)).toBe(true);
    const [first] = spawners(d);
    process.kill(first!.pid, "SIGKILL");
    expect(await eventually(() => !alive(first!.pid))).toBe(true);
    // The daemon may still be reading the old one's end; a command then fails once, and the next starts a new spawner.
    let r = await d.env.process.run(["true"]).catch(() => undefined);
    r ??= await d.env.process.run(["true"]);
    expect(r.exitCode).toBe(0);
    const now = spawners(d);
    expect(now).toHaveLength(1);
    expect(now[0]!.pid).not.toBe(first!.pid);
  });
});
