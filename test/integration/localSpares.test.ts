import { execFileSync } from "node:child_process";
import { randomInt } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { defaultDaemonCommand, localProvider, openPool } from "@pincer/controller/machines";

// The local provider's spare: a machine started while the task runs, handed out by the reset, with
// the used machine stopped behind it; none left running once the pool is closed.

/** A daemon command whose processes this test can count on the host: a V8 flag with a number of its own. */
function markedDaemon(): { command: string[]; count: () => number } {
  const flag = `--max-old-space-size=${randomInt(5_000, 9_000_000)}`;
  const [node, ...rest] = defaultDaemonCommand();
  // The daemons themselves, not the sandbox processes whose arguments hold the daemon's command line.
  return { command: [node!, flag, ...rest], count: () => processesMatching(`${flag} `, "node") };
}

/** How many of this computer's processes (in every namespace) named `comm` have `text` in their command line. */
function processesMatching(text: string, comm?: string): number {
  const out = execFileSync("ps", ["-eo", "comm=,args="], { encoding: "utf8" });
  return out.split("\n").filter((l) => l.includes(text) && (!comm || l.startsWith(`${comm} `))).length;
}

async function eventually(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("the local provider's spare machine", () => {
  test("a reset hands out the slot's spare; the used machine, its files and its commands are gone; close stops every machine", async () => {
    const daemon = markedDaemon();
    const pool = await openPool(localProvider({ daemonCommand: daemon.command, width: 640, height: 400 }), ["desktop"], 1);
    const sleeper = `sleep ${randomInt(100_000, 999_999)}`;
    try {
      const [slot] = pool.slots;
      // The machine and, started beside it, its spare.
      await eventually("two daemons (the machine and its spare)", () => daemon.count() === 2);
      const used = slot!.envs.desktop!;
      await used.files.write("/tmp/left-by-the-task.txt", "left");
      await used.process.start(["sh", "-c", `exec ${sleeper}`]).pid;
      // Its pid is the shell's, which becomes sleep a moment later.
      await eventually("the task's command runs", () => processesMatching(sleeper, "sleep") === 1);
      expect((await slot!.reset!()).desktop).toMatchObject({ method: "fresh" });
      const reset = (await slot!.reset!()).desktop!;
      expect(reset).toMatchObject({ provider: "local", method: expect.stringMatching(/^new (sandbox|machine)$/) });
      const next = slot!.envs.desktop!;
      expect(next).not.toBe(used);
      expect(await next.files.exists("/tmp/left-by-the-task.txt")).toBe(false);
      expect((await next.process.list()).some((p) => p.argv.join(" ").includes(sleeper))).toBe(false);
      // The used machine stops behind the reset, with what its task started; a new spare starts.
      await eventually("the used machine's command stopped", () => processesMatching(sleeper, "sleep") === 0);
      await eventually("the new machine and a new spare", () => daemon.count() === 2);
    } finally {
      await pool.close();
    }
    expect(daemon.count()).toBe(0);
  }, 90_000);

  test("spare: false keeps one machine per slot, and a reset still gives a new one", async () => {
    const daemon = markedDaemon();
    const pool = await openPool(localProvider({ daemonCommand: daemon.command, width: 640, height: 400, spare: false }), ["desktop"], 1);
    try {
      const [slot] = pool.slots;
      await slot!.envs.desktop!.files.write("/tmp/left-by-the-task.txt", "left");
      await slot!.reset!();
      await slot!.reset!();
      expect(await slot!.envs.desktop!.files.exists("/tmp/left-by-the-task.txt")).toBe(false);
      // Nothing is started ahead: a second daemon would have been up long before this.
      await new Promise((r) => setTimeout(r, 1_500));
      expect(daemon.count()).toBe(1);
    } finally {
      await pool.close();
    }
    expect(daemon.count()).toBe(0);
  }, 60_000);
});

test("a reset whose new machine fails to start fails; the next reset of the slot starts one", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pincer-failing-start-"));
  const flag = join(dir, "fail");
  // The daemon's command exits at once while the flag file exists (no sandbox: it sees this computer's files).
  const command = ["sh", "-c", 'if [ -e "$0" ]; then echo "told to fail" >&2; exit 3; fi; exec "$@"', flag, ...defaultDaemonCommand()];
  const pool = await openPool(localProvider({ daemonCommand: command, sandbox: "none", spare: false, width: 640, height: 400 }), ["desktop"], 1);
  try {
    const slot = pool.slots[0]!;
    await slot.reset!();
    writeFileSync(flag, "");
    await expect(slot.reset!()).rejects.toThrow(/exited with 3|told to fail/);
    rmSync(flag);
    expect((await slot.reset!()).desktop).toMatchObject({ method: "new machine" });
    expect((await slot.envs.desktop!.system.info()).screen).toEqual({ width: 640, height: 400 });
  } finally {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
