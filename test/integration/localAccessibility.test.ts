import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import type { AccessibleNode, RemoteEnv } from "@pincer/controller";
import { startLocalMachine, type LocalMachine } from "@pincer/controller/machines";
import { DAEMON_NODE_FLAGS } from "@pincer/shared";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";

// `pincer-daemon --xvfb … --accessibility-bus`: the daemon starts a session bus and the AT-SPI bus
// for its own display, and a local machine (in its sandbox where there is one) gets an
// accessibility tree with no desktop session around it. What it started ends with it.

const ROOT = resolve(import.meta.dirname, "../..");
const MAIN = resolve(ROOT, "packages/daemon/src/main.ts");
// tsx by its path: in the sandbox the daemon starts in /home/user, where "tsx" resolves to nothing.
const FROM_SOURCE = [process.execPath, ...DAEMON_NODE_FLAGS, "--conditions=@pincer/source", "--import", import.meta.resolve("tsx"), MAIN];

const flatten = (nodes: readonly AccessibleNode[]): AccessibleNode[] => nodes.flatMap((n) => [n, ...flatten(n.children)]);

/**
 * Live processes whose name is a bus's (dbus-daemon, at-spi-bus-launcher, at-spi2-registryd) below
 * `root` by parent links in /proc, or in the process group of one that is: D-Bus activation leaves
 * at-spi2-registryd an orphan, in its launcher's group.
 */
function busProcesses(root = process.pid): Map<number, string> {
  const parent = new Map<number, number>();
  const group = new Map<number, number>();
  const name = new Map<number, string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (state === "Z") continue;
      parent.set(Number(entry), Number(ppid));
      group.set(Number(entry), Number(pgrp));
      name.set(Number(entry), stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")));
    } catch {
      // gone while we looked
    }
  }
  const below = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === root) return true;
    return false;
  };
  const bus = (pid: number) => /^(dbus-daemon|at-spi)/.test(name.get(pid) ?? "");
  return new Map([...name].filter(([pid]) => bus(pid) && (below(pid) || (bus(group.get(pid)!) && below(group.get(pid)!)))));
}

/** Those of `pids` still running. */
const stillRunning = (pids: Map<number, string>) => [...busProcesses(1)].filter(([pid]) => pids.has(pid));

/** Polls the tree until zenity's dialog shows its push buttons. */
async function zenityButtons(env: RemoteEnv, timeoutMs = 15_000): Promise<AccessibleNode[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const tree = await env.accessibility.tree({ app: "zenity" });
    const buttons = flatten(tree.applications).filter((n) => n.role === "push button");
    if (buttons.length >= 2) return buttons;
    if (Date.now() > deadline) throw new Error(`zenity's buttons never appeared: ${JSON.stringify(tree)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let machine: LocalMachine | undefined;
let daemon: RunningDaemon | undefined;
afterAll(async () => {
  await machine?.close();
  await daemon?.close();
});

describe("the daemon's own accessibility bus", () => {
  test("--accessibility-bus without --xvfb is refused, saying why", async () => {
    const child = spawn(process.execPath, [...FROM_SOURCE.slice(1), "--port", "0", "--accessibility-bus"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((res) => child.once("close", res));
    expect(code).toBe(1);
    expect(stderr).toContain("--accessibility-bus needs --xvfb");
  });

  test("a local machine with accessibilityBus shows the push buttons of a GTK dialog it launched, and leaves no bus behind", async () => {
    const t0 = performance.now();
    machine = await startLocalMachine({ width: 1024, height: 768, accessibilityBus: true, daemonCommand: FROM_SOURCE });
    console.log(`local machine (sandbox ${machine.sandbox}) with accessibility bus up in ${(performance.now() - t0).toFixed(0)} ms`);
    // zenity inherits the daemon's environment: the private session bus, so GTK's bridge finds the accessibility bus.
    await machine.env.process.launch(["zenity", "--question", "--text", "Save?"]);
    const buttons = await zenityButtons(machine.env);
    expect(buttons.map((b) => b.name).sort()).toEqual(["No", "Yes"]);
    for (const b of buttons) expect(b.states).toEqual(expect.arrayContaining(["showing", "visible", "enabled"]));
    // Its session bus, the launcher, the accessibility bus and the registry (started by the first tree read).
    const started = busProcesses();
    expect([...started.values()].sort()).toEqual(["at-spi-bus-laun", "at-spi2-registr", "dbus-daemon", "dbus-daemon"]);
    await machine.close();
    machine = undefined;
    expect(stillRunning(started)).toEqual([]);
  });

  test("the daemon stops when its session bus dies, and takes the rest of the buses along", async () => {
    daemon = await spawnDaemon({ args: ["--xvfb", "640x480x24", "--accessibility-bus"] });
    await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
    // An empty desktop: no applications, but the registry answers (and is started for it).
    expect((await daemon.env.accessibility.tree()).applications).toEqual([]);
    const started = busProcesses(daemon.process.pid);
    expect([...started.values()].sort()).toEqual(["at-spi-bus-laun", "at-spi2-registr", "dbus-daemon", "dbus-daemon"]);
    const exited = new Promise<number | null>((res) => daemon!.process.once("exit", res));
    // The session bus is the one whose parent is the daemon itself.
    const session = [...started.keys()].find((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("--session"))!;
    process.kill(session, "SIGKILL");
    expect(await exited).toBe(1);
    expect(daemon.log()).toContain("the daemon's own accessibility bus exited; stopping");
    expect(stillRunning(started)).toEqual([]);
  });
});
