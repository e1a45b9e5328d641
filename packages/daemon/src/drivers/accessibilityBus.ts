import { sleep } from "@pincer/shared";
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { Bus } from "./dbus.js";

// A private D-Bus session bus and the AT-SPI accessibility bus on it, for a display that has
// neither (the daemon's own Xvfb): what a desktop session would otherwise start.

/** Where at-spi2-core installs its launcher (Debian and Fedora; Arch). at-spi2-registryd sits beside it. */
const LAUNCHERS = ["/usr/libexec/at-spi-bus-launcher", "/usr/lib/at-spi2-core/at-spi-bus-launcher", "/usr/lib/at-spi-bus-launcher"];

/**
 * Variables removed from the environment: a bus address from elsewhere, switches that keep GTK's
 * AT-SPI bridge unloaded, and a Wayland display that would send GTK there instead of to X.
 */
const UNSET = ["AT_SPI_BUS_ADDRESS", "NO_AT_BRIDGE", "GTK_A11Y", "DBUS_SESSION_BUS_PID", "WAYLAND_DISPLAY"] as const;

/** A private D-Bus session bus with an accessibility bus (at-spi-bus-launcher) on an X display. */
export interface AccessibilityBuses {
  /** The private session bus (DBUS_SESSION_BUS_ADDRESS). */
  sessionBusAddress: string;
  /** The accessibility bus, as org.a11y.Bus.GetAddress on the session bus answers. */
  a11yBusAddress: string;
  /** The private XDG_RUNTIME_DIR (0700) that holds the buses' sockets; removed by stop(). */
  runtimeDir: string;
  /**
   * The environment for the daemon and for the applications whose widgets it should see: DISPLAY,
   * DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR set; AT_SPI_BUS_ADDRESS, NO_AT_BRIDGE, GTK_A11Y,
   * DBUS_SESSION_BUS_PID and WAYLAND_DISPLAY removed (GTK then loads its AT-SPI bridge and finds
   * the bus through the session bus).
   */
  env: NodeJS.ProcessEnv;
  /** Process groups started (the session bus; the launcher with its bus and the registry). */
  processGroups: number[];
  /** Resolves, saying which, when the session bus or the launcher exits (also when stop() ends them). */
  exited: Promise<string>;
  /** Ends every process of those groups (SIGTERM, then SIGKILL) and removes the runtime directory. */
  stop(): Promise<void>;
  /** SIGKILL to every group still running, at once, for a process on its way out (`process.on("exit")`); nothing after stop(). */
  killNow(): void;
}

/** Puts `buses.env`'s bus variables into `env` (the daemon's process.env): set, and removed. */
export function applyBusEnvironment(env: NodeJS.ProcessEnv, buses: Pick<AccessibilityBuses, "sessionBusAddress" | "runtimeDir">): void {
  for (const name of UNSET) delete env[name];
  env.DBUS_SESSION_BUS_ADDRESS = buses.sessionBusAddress;
  env.XDG_RUNTIME_DIR = buses.runtimeDir;
}

/** The path of `name` on PATH, or undefined. */
function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "/usr/bin:/bin").split(delimiter)) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return undefined;
}

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The programs the buses need, or an error naming the Debian package to install. */
export function accessibilityBusPrograms(): { dbusDaemon: string; launcher: string } {
  const hint = "(bash scripts/install-system-deps.sh installs it)";
  const dbusDaemon = onPath("dbus-daemon");
  if (!dbusDaemon) throw new Error(`the accessibility bus needs dbus-daemon, which is not on PATH: install the Debian package dbus ${hint}`);
  const launcher = LAUNCHERS.find(executable);
  if (!launcher || !executable(join(dirname(launcher), "at-spi2-registryd"))) {
    throw new Error(`the accessibility bus needs at-spi-bus-launcher and at-spi2-registryd (${LAUNCHERS[0]}): install the Debian package at-spi2-core ${hint}`);
  }
  return { dbusDaemon, launcher };
}

/** Live (not zombie) processes whose process group is `pgid`, from /proc. */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) === pgid && state !== "Z") out.push(Number(entry));
    } catch {
      // the process went away while we looked
    }
  }
  return out;
}

function signalGroup(pgid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pgid, sig);
  } catch {
    // the group is already gone
  }
}

/** SIGTERM to the group, SIGKILL to what is left after `graceMs`; waits until none of it runs. */
async function killGroup(pgid: number, graceMs = 2_000): Promise<void> {
  signalGroup(pgid, "SIGTERM");
  for (const [wait, next] of [
    [graceMs, "SIGKILL"],
    [2_000, undefined],
  ] as const) {
    const deadline = Date.now() + wait;
    while (groupMembers(pgid).length > 0 && Date.now() < deadline) await sleep(20);
    if (groupMembers(pgid).length === 0) return;
    if (next) signalGroup(pgid, next);
  }
  throw new Error(`processes ${groupMembers(pgid).join(", ")} of group ${pgid} survived SIGKILL`);
}

type Child = ChildProcess & { stderrText: () => string; gone: Promise<string> };

/** Starts `cmd` as the leader of a new process group (and session); its stderr is kept for errors. */
function spawnGroup(cmd: string, args: string[], env: NodeJS.ProcessEnv, what: string): Child {
  const child = spawn(cmd, args, { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-4_000)));
  const stderrText = () =>
    err
      .split("\n")
      // dbus-daemon says so whenever it may not raise its file limit (as in a sandbox); harmless.
      .filter((l) => l.trim() && !l.includes("Failed to set fd limit"))
      .join("\n");
  const gone = new Promise<string>((resolve) => {
    child.once("error", (e) => resolve(`${what} could not start: ${e.message}`));
    child.once("exit", (code, sig) => resolve(`${what} exited (${sig ?? `code ${code}`})${stderrText() ? `: ${stderrText()}` : ""}`));
  });
  return Object.assign(child, { stderrText, gone });
}

/** The first line `child` prints on stdout; fails when it exits first or after `timeoutMs`. */
function firstLine(child: Child, what: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`${what} printed nothing in ${timeoutMs} ms: ${child.stderrText()}`)), timeoutMs);
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) {
        clearTimeout(timer);
        resolve(out.split("\n")[0]!.trim());
      }
    });
    void child.gone.then((why) => {
      clearTimeout(timer);
      reject(new Error(why));
    });
  });
}

/** Waits until the launcher owns org.a11y.Bus on the session bus, then asks it for the accessibility bus's address. */
async function a11yAddress(sessionBus: string, launcher: Child, deadline: number): Promise<string> {
  const bus = new Bus(sessionBus, deadline);
  let launcherGone = "";
  void launcher.gone.then((why) => (launcherGone = why));
  try {
    // Ask only once the launcher owns the name: asking earlier would make D-Bus activate a second launcher.
    for (;;) {
      const [owned] = await bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", "s", ["org.a11y.Bus"]);
      if (owned === true) break;
      if (launcherGone) throw new Error(launcherGone);
      if (Date.now() > deadline) throw new Error("at-spi-bus-launcher did not take org.a11y.Bus in time");
      await sleep(20);
    }
    const [address] = await bus.call("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress");
    if (typeof address !== "string" || !address) throw new Error("org.a11y.Bus.GetAddress gave no address");
    return address;
  } finally {
    bus.close();
  }
}

/**
 * Starts a private session bus (`dbus-daemon --session` on a socket in a new 0700 runtime
 * directory), then the accessibility bus on it (`at-spi-bus-launcher --launch-immediately`, which
 * runs the bus's own dbus-daemon; that bus starts at-spi2-registryd when first asked), and waits
 * until org.a11y.Bus answers with the bus's address. Each is the leader of a process group that
 * stop() ends whole: at-spi2-registryd does not exit by itself.
 */
export async function startAccessibilityBuses(opts: { display: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<AccessibilityBuses> {
  const { dbusDaemon, launcher: launcherPath } = accessibilityBusPrograms();
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  // The launcher puts the bus's socket in $XDG_RUNTIME_DIR/at-spi; GLib wants that directory 0700 (mkdtemp makes it so).
  const runtimeDir = mkdtempSync(join(tmpdir(), "pincer-a11y-"));
  const env: NodeJS.ProcessEnv = { ...(opts.env ?? process.env), DISPLAY: opts.display };
  applyBusEnvironment(env, { sessionBusAddress: "", runtimeDir });
  const groups: number[] = [];
  const children: Child[] = [];
  let stopped = false;
  const stop = async () => {
    stopped = true;
    const results = await Promise.allSettled([...groups].reverse().map((g) => killGroup(g)));
    rmSync(runtimeDir, { recursive: true, force: true });
    const failed = results.find((r) => r.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
  };
  try {
    // unix:dir= makes a socket file in the directory (unix:tmpdir= could pick an abstract one, which a sandbox would share).
    const session = spawnGroup(dbusDaemon, ["--session", "--nofork", "--print-address=1", `--address=unix:dir=${runtimeDir}`], env, "dbus-daemon --session");
    children.push(session);
    if (session.pid) groups.push(session.pid);
    env.DBUS_SESSION_BUS_ADDRESS = await firstLine(session, "dbus-daemon --session", Math.max(1, deadline - Date.now()));
    const launcher = spawnGroup(launcherPath, ["--launch-immediately"], env, "at-spi-bus-launcher");
    children.push(launcher);
    if (launcher.pid) groups.push(launcher.pid);
    launcher.stdout!.resume();
    const a11yBusAddress = await a11yAddress(env.DBUS_SESSION_BUS_ADDRESS, launcher, deadline);
    return {
      sessionBusAddress: env.DBUS_SESSION_BUS_ADDRESS,
      a11yBusAddress,
      runtimeDir,
      env,
      processGroups: [...groups],
      exited: Promise.race(children.map((c) => c.gone)),
      stop,
      killNow: () => {
        if (stopped) return;
        for (const g of groups) if (groupMembers(g).length > 0) signalGroup(g, "SIGKILL");
      },
    };
  } catch (err) {
    await stop().catch(() => undefined);
    throw new Error(`cannot start the accessibility bus: ${(err as Error).message}`);
  }
}
