import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { processAlive } from "@pincer/shared";

/**
 * How a local machine is isolated from the computer it runs on:
 * - `overlay`: bubblewrap around a private mount namespace in which the host's root file system is
 *   mounted read-only under an overlay whose writable layer is a tmpfs. The machine can write
 *   anywhere (/etc, /usr, /home/user …) and nothing reaches the host; the writes vanish with the
 *   machine. Needs root (mounting overlayfs and tmpfs) and bubblewrap.
 * - `none`: no sandbox; the machine is this computer (its files, its /tmp).
 */
export type SandboxMode = "overlay" | "none";

/** Whether `program` runs (`--version`). */
function runs(program: string): boolean {
  return spawnSync(program, ["--version"], { stdio: "ignore" }).status === 0;
}

/**
 * The isolation available here, and if none, why not (said once by the pool). PINCER_SANDBOX=none
 * turns it off.
 */
export function sandboxSupport(env: NodeJS.ProcessEnv = process.env): { mode: SandboxMode; why?: string } {
  if (env.PINCER_SANDBOX === "none") return { mode: "none", why: "PINCER_SANDBOX=none" };
  if (process.platform !== "linux") return { mode: "none", why: "sandboxes need Linux" };
  if (process.getuid?.() !== 0) return { mode: "none", why: "the overlay sandbox needs root (mounting overlayfs)" };
  if (!runs("bwrap")) return { mode: "none", why: "bubblewrap is not installed (apt-get install bubblewrap)" };
  if (!runs("unshare")) return { mode: "none", why: "unshare (util-linux) is not installed" };
  return { mode: "overlay" };
}

/** The size limit of a machine's writable layer (a tmpfs, so it is memory). @default "4g" */
const LAYER_SIZE = process.env.PINCER_SANDBOX_SIZE ?? "4g";

/**
 * The command that runs `argv` inside a fresh overlay sandbox, and the directory its mounts hang on
 * (empty on the host; remove it after the sandbox ends). The overlay and its tmpfs live only in a
 * private mount namespace (`unshare`), so they disappear with the last process of the sandbox,
 * however it ends. bubblewrap adds: a new PID namespace (the sandbox's processes die with it), a new
 * IPC namespace, its own /tmp, /dev and /proc, HOME=/home/user, and `--die-with-parent`, so a
 * runner killed by SIGKILL takes its sandboxes along. The network is shared: the daemon's port is
 * reachable on 127.0.0.1.
 */
export function overlaySandbox(argv: readonly string[]): { argv: string[]; mountDir: string } {
  const mountDir = mkdtempSync(join(tmpdir(), "pincer-sandbox-"));
  // The sandbox's /tmp is its own: what the command needs from this computer's /tmp (a checkout of
  // Pincer there, as CI makes) is bound back, read-only.
  const binds = hiddenByTmp(argv).flatMap((dir) => ["--ro-bind", dir, dir]);
  const script = [
    `mount -t tmpfs -o size=${LAYER_SIZE},mode=0755 pincer-layer "$0"`,
    'mkdir "$0/upper" "$0/work" "$0/root"',
    'mount -t overlay pincer-root -o "lowerdir=/,upperdir=$0/upper,workdir=$0/work" "$0/root"',
    [
      'exec bwrap --die-with-parent --new-session --unshare-pid --unshare-ipc --bind "$0/root" /',
      "--dev /dev --proc /proc --bind /sys /sys --tmpfs /tmp",
      ...binds.map((b) => `'${b.replace(/'/g, "'\\''")}'`),
      "--dir /home/user --setenv HOME /home/user --chdir /home/user",
      '"$@"',
    ].join(" "),
  ].join(" && ");
  return { argv: ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", script, mountDir, ...argv], mountDir };
}

/**
 * The directories of `argv`'s files that the sandbox's own /tmp would hide: for each absolute path
 * under /tmp, the nearest folder above it that holds node_modules (the checkout, with the daemon's
 * dependencies), else the file's folder.
 */
function hiddenByTmp(argv: readonly string[]): string[] {
  const dirs = new Set<string>();
  for (const arg of argv) {
    if (!arg.startsWith("/tmp/")) continue;
    let dir = dirname(arg);
    for (let d = dir; d !== "/tmp" && d !== "/"; d = dirname(d)) {
      if (existsSync(join(d, "node_modules"))) {
        dir = d;
        break;
      }
    }
    dirs.add(dir);
  }
  return [...dirs];
}

/** Removes a sandbox's (empty) mount directory once the sandbox has ended. */
export function removeMountDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * A display number for a sandboxed machine, unique on this computer, held until `release`.
 *
 * Each sandbox has its own /tmp, so its Xvfb would always take :0, and X clients try the abstract
 * socket `@/tmp/.X11-unix/X<n>` before the path one. Abstract sockets belong to the network
 * namespace, which sandboxes share with this computer: a program in a sandbox would reach this
 * computer's (or another sandbox's) :0 instead of its own. So each sandbox's Xvfb gets a number no
 * X server here uses (from 100 up, skipping abstract sockets in use), held by a lock file in this
 * computer's /tmp as Xvfb itself writes one, so that other runners and X servers skip it too.
 */
export function reserveDisplay(from = 100): { display: number; release(): void } {
  const abstract = readFileSync("/proc/net/unix", "latin1");
  for (let n = from; n < from + 1000; n++) {
    if (abstract.includes(`@/tmp/.X11-unix/X${n}\n`)) continue;
    const lock = `/tmp/.X${n}-lock`;
    let fd: number;
    try {
      fd = openSync(lock, "wx", 0o444);
    } catch {
      // Taken: free it if its owner is gone (as Xvfb does with stale locks), else try the next.
      const owner = Number(readFileSync(lock, "latin1").trim().replace(/\D+$/, "") || Number.NaN);
      if (Number.isInteger(owner) && owner > 0 && !processAlive(owner)) rmSync(lock, { force: true });
      continue;
    }
    // Xvfb's format: the pid, right-aligned in ten characters, and a newline.
    writeSync(fd, `${String(process.pid).padStart(10)}\n`);
    closeSync(fd);
    return { display: n, release: () => rmSync(lock, { force: true }) };
  }
  throw new Error("no free X display number between 100 and 1099");
}
