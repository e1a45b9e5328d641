import { existsSync, readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, test } from "vitest";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { eventually } from "../fixtures/poll.js";

// Each command below starts processes that try to outlive it the ways daemons do: a new session
// (setsid), a double fork, and daemon(3) itself (called through Python's ctypes). None of them may
// survive the command's timeout, its cancel, or the daemon's stop.

let daemon: RunningDaemon;
let serial = 0;

beforeAll(async () => {
  daemon = await spawnDaemon();
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
});

afterAll(async () => {
  await daemon?.close();
});

/** A `sleep` duration no other process on the machine uses, to find the escapees by command line. */
function marker(): string {
  serial += 1;
  return `${900 + serial}.${process.pid % 1000}${serial}`;
}

/** A shell command line that starts three escaping sleeps with `mark` and then waits itself. */
function escapingCommand(mark: string): string {
  const daemon3 = `import ctypes, os; ctypes.CDLL(None).daemon(0, 0); os.execvp("sleep", ["sleep", "${mark}"])`;
  return [
    `setsid sleep ${mark} &`,
    `setsid sh -c 'sleep ${mark} & exit 0' &`,
    `python3 -c '${daemon3}'`,
    // Give the escapes time to happen before anything stops this shell.
    "sleep 600",
  ].join("\n");
}

/** Pids of live processes whose command line is `sleep <mark>` (zombies do not count). */
function survivors(mark: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${name}/status`, "utf8"))?.[1];
      if (cmd[0] === "sleep" && cmd[1] === mark && state !== "Z") found.push(Number(name));
    } catch {
      // it exited while being read
    }
  }
  return found;
}

/** Waits (bounded) until all three escapees run, so a test cannot pass because they never started. */
async function untilEscaped(mark: string): Promise<void> {
  const until = Date.now() + 10_000;
  while (survivors(mark).length < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  expect(survivors(mark), "the escapees never started").toHaveLength(3);
}

/** Waits (bounded) for the escapees to be gone and returns those still alive. */
async function afterSettling(mark: string): Promise<number[]> {
  await eventually(() => survivors(mark).length === 0);
  const left = survivors(mark);
  for (const pid of left) process.kill(pid, "SIGKILL"); // do not leave them behind on failure
  return left;
}

test("no process started by a command survives its timeout", async () => {
  const mark = marker();
  // 5 s: time for python3 to start and escape on a loaded machine before the timeout ends the command.
  const run = daemon.env.process.run(["sh", "-c", escapingCommand(mark)], { commandTimeoutMs: 5_000 });
  await untilEscaped(mark);
  const result = await run;
  expect(result.timedOut).toBe(true);
  expect(await afterSettling(mark)).toEqual([]);
});

test("commands after one whose processes were killed run as usual, and a stop reaches only its own command's processes", async () => {
  // The spawner uses a command's cgroup again once it is empty. What one command left running keeps
  // its cgroup; one that was killed is not used again (some kernels kill what is cloned into it).
  const kept = marker();
  expect((await daemon.env.process.run(["sh", "-c", `setsid sleep ${kept} > /dev/null 2>&1 &`])).exitCode).toBe(0);
  await eventually(() => survivors(kept).length === 1, 10_000);
  const mark = marker();
  const run = daemon.env.process.run(["sh", "-c", escapingCommand(mark)], { commandTimeoutMs: 5_000 });
  await untilEscaped(mark);
  expect((await run).timedOut).toBe(true);
  expect(await afterSettling(mark)).toEqual([]);
  for (let i = 0; i < 12; i++) {
    const r = await daemon.env.process.run(["sh", "-c", `echo run ${i}`]);
    expect([r.exitCode, r.signal, r.stdout]).toEqual([0, null, `run ${i}\n`]);
  }
  expect(survivors(kept)).toHaveLength(1);
  for (const pid of survivors(kept)) process.kill(pid, "SIGKILL");
});

test("no process started by a command survives its cancel", async () => {
  const mark = marker();
  const ac = new AbortController();
  const handle = daemon.env.process.start(["sh", "-c", escapingCommand(mark)], { signal: ac.signal });
  await handle.pid;
  await untilEscaped(mark);
  ac.abort();
  await handle.wait().catch(() => undefined);
  expect(await afterSettling(mark)).toEqual([]);
});

test("no process started by a command survives the daemon's stop", async () => {
  const own = await spawnDaemon();
  try {
    await own.env.waitUntilReady({ timeoutMs: 20_000 });
    const mark = marker();
    void own.env.process.run(["sh", "-c", escapingCommand(mark)]).catch(() => undefined);
    await untilEscaped(mark);
    await own.close(); // SIGTERM, as a service manager stops it
    expect(await afterSettling(mark)).toEqual([]);
  } finally {
    await own.close();
  }
});

test("processes a command leaves running on a normal exit keep running until the daemon stops", async () => {
  // `Run("server &")` is a common way to start a service; only a timeout, a cancel or the daemon's
  // stop ends what a command left behind.
  const own = await spawnDaemon();
  try {
    await own.env.waitUntilReady({ timeoutMs: 20_000 });
    const mark = marker();
    const r = await own.env.process.run(["sh", "-c", `setsid sleep ${mark} > /dev/null 2>&1 &`]);
    expect(r.exitCode).toBe(0);
    // setsid may not have become sleep yet; once it has, it stays.
    await eventually(() => survivors(mark).length === 1, 10_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(survivors(mark)).toHaveLength(1);
    await own.close();
    expect(await afterSettling(mark)).toEqual([]);
  } finally {
    await own.close();
  }
});

test.each(["native", "portable"])("commands get only their stdin, stdout and stderr, not descriptors the daemon inherited (%s drivers)", async (drivers) => {
  // The daemon starts with /etc/hostname open at fd 300, open across exec, as a parent may leave one.
  // The native spawner is a process of its own; the portable set starts commands with execa, from the daemon.
  const own = await spawnDaemon({ prefix: ["bash", "-c", 'exec 300</etc/hostname; exec "$@"', "bash"], args: ["--drivers", drivers] });
  try {
    await own.env.waitUntilReady({ timeoutMs: 20_000 });
    const listed = "for f in /proc/$$/fd/*; do echo ${f##*/} $(readlink $f); done";
    const r = await own.env.process.run(["sh", "-c", listed]);
    const fds = r.stdout.trim().split("\n");
    expect(
      fds.filter((l) => l.includes("/etc/hostname")),
      r.stdout,
    ).toEqual([]);
    expect(fds.map((l) => l.split(" ")[0])).toEqual(expect.arrayContaining(["0", "1", "2"]));
    // The daemon closed it too: it never uses what its parent left open.
    expect(existsSync(`/proc/${own.process.pid}/fd/300`)).toBe(false);
  } finally {
    await own.close();
  }
});

test("without the native spawner, which alone can follow them, the daemon refuses to start unless told to", async () => {
  // PINCER_SPAWNER=node stands for a machine where the native spawner could not be built.
  const refused = await spawnDaemon({ env: { PINCER_SPAWNER: "node" } }).then(
    async (d) => {
      await d.close();
      return "started";
    },
    (err: unknown) => (err as Error).message,
  );
  expect(refused).toMatch(/exited with 1 before listening/);
  expect(refused).toContain("the Node spawner cannot stop processes that leave their command's process group (setsid");
  expect(refused).toContain("apt-get install gcc");
  expect(refused).toContain("--allow-node-spawner");

  // Told to, it starts and says what it gives up, in its log and to every client.
  const allowed = await spawnDaemon({ args: ["--allow-node-spawner"], env: { PINCER_SPAWNER: "node" } });
  try {
    const info = await allowed.env.system.info();
    expect(info.warnings.join("\n")).toContain("they outlive the command's timeout, its cancel and the daemon's stop");
    expect(allowed.log()).toContain("commands start through the Node spawner");
  } finally {
    await allowed.close();
  }
  // A daemon that runs no commands needs no spawner.
  const noExec = await spawnDaemon({ args: ["--no-exec"], env: { PINCER_SPAWNER: "node" } });
  await noExec.close();
});
