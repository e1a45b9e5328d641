import { readFileSync } from "node:fs";
import { afterEach, expect, test } from "vitest";
import { DAEMON_MALLOC_ENV, DAEMON_NODE_FLAGS } from "@pincer/shared";
import { startLocalMachine, type LocalMachine } from "@pincer/controller/machines";
import { sandboxSupport } from "../../packages/controller/src/machines/sandbox.js";

// A local machine's daemon starts with the malloc settings that give its memory back after
// transfers and screenshots, in a sandbox and without one; the machine's commands do not get them.

let machine: LocalMachine | undefined;

afterEach(async () => {
  await machine?.close();
  machine = undefined;
});

/** The processes under `pid` (its children, theirs, …). */
function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // gone
  }
  return children.flatMap((c) => [c, ...descendants(c)]);
}

/**
 * The daemon's environment and command line, read here (as root) from /proc. Its commands cannot:
 * it is non-dumpable (test/integration/daemonMemory.test.ts). This process starts one machine at a
 * time: its one node process running main.js (not the sandbox helper nor bubblewrap, whose command lines hold the daemon's).
 */
function daemonProc(): { environ: string; cmdline: string[] } {
  const found = descendants(process.pid).flatMap((pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      return argv[0] === process.execPath && argv.some((a) => a.endsWith("/main.js")) && argv.includes("--token-file") ? [{ pid, argv }] : [];
    } catch {
      return [];
    }
  });
  expect(found.map((f) => f.pid)).toHaveLength(1);
  const { pid, argv } = found[0]!;
  return { environ: readFileSync(`/proc/${pid}/environ`, "utf8").replaceAll("\0", "\n"), cmdline: argv };
}

const modes = sandboxSupport().mode === "overlay" ? (["overlay", "none"] as const) : (["none"] as const);

test.each(modes)(
  "sandbox %s: the daemon has the malloc settings and the Node flags, its commands do not",
  async (sandbox) => {
    machine = await startLocalMachine({ sandbox, wallpaper: false });
    const daemon = daemonProc();
    for (const [key, value] of Object.entries(DAEMON_MALLOC_ENV)) expect(daemon.environ).toMatch(new RegExp(`^${key}=${value}$`, "m"));
    for (const flag of DAEMON_NODE_FLAGS) expect(daemon.cmdline).toContain(flag);
    expect((await machine.env.process.run(["env"])).stdout).not.toMatch(/^MALLOC_/m);
  },
  60_000,
);
