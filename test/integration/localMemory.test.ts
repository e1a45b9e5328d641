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

/** The environment the daemon was started with, read by a command from /proc: command → spawner → daemon. */
const DAEMON_ENVIRON = `spawner=$(awk '/^PPid:/ {print $2}' /proc/$PPID/status); tr '\\0' '\\n' < /proc/$spawner/environ`;

/** The daemon's command line, one argument per line, read the same way. */
const DAEMON_CMDLINE = `spawner=$(awk '/^PPid:/ {print $2}' /proc/$PPID/status); tr '\\0' '\\n' < /proc/$spawner/cmdline`;

const modes = sandboxSupport().mode === "overlay" ? (["overlay", "none"] as const) : (["none"] as const);

test.each(modes)(
  "sandbox %s: the daemon has the malloc settings and the Node flags, its commands do not",
  async (sandbox) => {
    machine = await startLocalMachine({ sandbox, wallpaper: false });
    const daemonEnv = (await machine.env.process.run(DAEMON_ENVIRON)).stdout;
    for (const [key, value] of Object.entries(DAEMON_MALLOC_ENV)) expect(daemonEnv).toMatch(new RegExp(`^${key}=${value}$`, "m"));
    const daemonArgs = (await machine.env.process.run(DAEMON_CMDLINE)).stdout.split("\n");
    for (const flag of DAEMON_NODE_FLAGS) expect(daemonArgs).toContain(flag);
    expect((await machine.env.process.run(["env"])).stdout).not.toMatch(/^MALLOC_/m);
  },
  60_000,
);
