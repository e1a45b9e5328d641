import { execFile, spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DAEMON_MALLOC_ENV } from "@pincer/shared";
import { removeDeadDirs } from "./hostProcess.js";
import { reserveNumber } from "./reservations.js";

/**
 * How a local machine is isolated from the computer it runs on:
 * - `overlay`: the sandbox (below). Needs Linux ≥ 5.19, root, bubblewrap and the sandbox helper
 *   built at install (`native/sandbox.c` and `native/hidden.c`, with gcc).
 * - `none`: no sandbox; the machine is this computer (its files, its /tmp, its network).
 *
 * What the sandbox guarantees (each is a test in test/integration/hostileTask.test.ts):
 * - Root inside is not root here: a user namespace maps uid/gid 0..65535 inside to a range of
 *   65536 unprivileged ids outside, one range per sandbox. Root keeps only the capabilities a
 *   machine's programs expect of it (MACHINE_CAPABILITIES), which reach only the sandbox's own
 *   namespaces and files, and no_new_privs is set: no module loads, no mount, no sethostname, no
 *   network configuration.
 * - This computer's files: the system (/usr, /bin, /lib*, /etc, /var, /opt) is seen through an
 *   overlay whose writable layer is a tmpfs, with each file's owner kept: root inside can write
 *   anywhere and nothing reaches this computer. What this computer does not let every user read
 *   in those folders (/etc/shadow, keys, /usr/local/etc's secrets, databases, other users'
 *   spools) is not there: the helper walks them at each sandbox's start, so a secret written after
 *   the runner started is hidden from the next machine (a spare started before it is not handed
 *   out: {@link privateChangedSince}). /home (but an empty /home/user), /root, /tmp, /var/tmp, /run,
 *   /mnt, /media and /srv are empty; other top-level folders (/boot among them) are not there, but
 *   for the daemon's own files, read-only and with this computer's owners, which root inside does
 *   not have: what is private there stays unreadable. The overlay shows the live system: what
 *   becomes private while a machine runs is hidden from the next machine, not from that one.
 * - /sys is a read-only sysfs of the sandbox's network namespace (/sys/class/net lists its own
 *   interfaces), with this computer's cgroup hierarchies bound read-only; /proc is the sandbox's
 *   own (its PID namespace) with /proc/sys read-only.
 * - The daemon is non-dumpable: the commands it runs, root of the sandbox without CAP_SYS_PTRACE,
 *   cannot read its memory or its token (test/integration/daemonMemory.test.ts).
 * - Its own network namespace (a loopback only; with `network`, a user-mode link through
 *   slirp4netns that cannot reach this computer's loopback: userModeLink.ts), UTS (hostname
 *   `pincer`), IPC and cgroup namespaces; no display of this computer's.
 * - The daemon listens on a unix socket in a folder only the runner (and the sandbox) can open,
 *   and asks for a token; the daemon's environment is the machine's own, not the runner's.
 * What it does not: it shares this computer's kernel (a kernel bug is an escape), CPU and memory
 * (no limits beyond the layer's size), and what every user here may read in the system folders.
 */
export type SandboxMode = "overlay" | "none";

/** The sandbox helper, built by `npm ci` (native/build.mjs). */
export const SANDBOX_HELPER = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "native", "build", "pincer-sandbox");

/** Whether `program` runs (`--version`). */
function runs(program: string): boolean {
  return spawnSync(program, ["--version"], { stdio: "ignore" }).status === 0;
}

/**
 * File systems whose mounts can be idmapped (statfs magic numbers), which the sandbox does with this
 * computer's root file system: ext4 (ext2/3 share the number), XFS, Btrfs, tmpfs, F2FS. Others,
 * overlayfs first (the root of a container), cannot.
 */
const IDMAPPABLE_FS: ReadonlyMap<number, string> = new Map([
  [0xef53, "ext4"],
  [0x58465342, "xfs"],
  [0x9123683e, "btrfs"],
  [0x01021994, "tmpfs"],
  [0xf2f52010, "f2fs"],
]);
const FS_NAMES: ReadonlyMap<number, string> = new Map([
  [0x794c7630, "overlayfs"],
  [0x6969, "nfs"],
  [0x01021997, "9p"],
  [0x65735546, "fuse"],
  [0x2fc12fc1, "zfs"],
]);

/** Why this computer's root file system cannot be idmapped, or undefined when it can. */
export function rootFsProblem(fsType: number): string | undefined {
  if (IDMAPPABLE_FS.has(fsType)) return undefined;
  const name = FS_NAMES.get(fsType) ?? `file system type 0x${fsType.toString(16)}`;
  const where = fsType === 0x794c7630 ? " (this computer looks like a container)" : "";
  return `the root file system is ${name}${where}, which cannot be idmapped; the sandbox needs ext4, xfs, btrfs or tmpfs`;
}

/**
 * The isolation available here, and if none, why not (said once by the pool). PINCER_SANDBOX=none
 * turns it off. `rootFsType` reads the statfs type of `/` (given by tests).
 */
export function sandboxSupport(
  env: NodeJS.ProcessEnv = process.env,
  rootFsType: () => number = () => statfsSync("/").type,
): { mode: SandboxMode; why?: string } {
  if (env.PINCER_SANDBOX === "none") return { mode: "none", why: "PINCER_SANDBOX=none" };
  if (process.platform !== "linux") return { mode: "none", why: "sandboxes need Linux" };
  if (process.getuid?.() !== 0) return { mode: "none", why: "the sandbox needs root (user namespaces with a range of ids, idmapped mounts)" };
  if (!runs("bwrap")) return { mode: "none", why: "bubblewrap is not installed (apt-get install bubblewrap)" };
  if (!existsSync(SANDBOX_HELPER))
    return { mode: "none", why: `the sandbox helper is not built (${SANDBOX_HELPER}): install gcc and run npm run build:native` };
  // A checkout updated since its last build: the helper may not take the options this code gives it.
  for (const name of ["sandbox.c", "hidden.c", "sandbox.h"]) {
    const source = join(dirname(SANDBOX_HELPER), "..", name);
    if (existsSync(source) && statSync(source).mtimeMs > statSync(SANDBOX_HELPER).mtimeMs)
      return { mode: "none", why: `the sandbox helper is older than its source (${source}): run npm run build:native` };
  }
  const fs = rootFsProblem(rootFsType());
  if (fs) return { mode: "none", why: fs };
  return { mode: "overlay" };
}

/** The size limit of a machine's writable layer (a tmpfs, so it is memory). @default "4g" */
const LAYER_SIZE = process.env.PINCER_SANDBOX_SIZE ?? "4g";

/** Top-level folders the sandbox sees through its overlay; the others are hidden or replaced. */
const SYSTEM_DIRS = new Set(["bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc", "var", "opt"]);
/** Top-level folders that are the sandbox's own, empty at its start. */
const EMPTY_DIRS = ["/tmp", "/run", "/home", "/root", "/mnt", "/media", "/srv", "/var/tmp"];
/** Mounted by bubblewrap. */
const KERNEL_DIRS = new Set(["dev", "proc", "sys"]);

/**
 * The helper's view of this computer: the system folders it shows (walked, at each start, for
 * what not every user may read, which it hides), and the folders bubblewrap mounts over (neither
 * walked nor hidden). Every other top-level entry is hidden.
 */
const VIEW_ARGS = [
  ...[...SYSTEM_DIRS].flatMap((name) => ["--show", name]),
  ...[...EMPTY_DIRS, ...[...KERNEL_DIRS].map((name) => `/${name}`)].flatMap((path) => ["--keep", path]),
];

/**
 * A private entry (one that not every user may read) made, renamed or changed in mode since a
 * sandbox was prepared at `preparedMs` (epoch milliseconds): the first such path, or undefined when
 * a sandbox prepared then still hides everything it must. It walks what a sandbox's start walks,
 * in the helper (about 0.17 s for 155,000 entries on 2 idle cores, more under load). A second of
 * margin covers file systems' coarse change times.
 */
export function privateChangedSince(preparedMs: number): Promise<string | undefined> {
  const since = Math.max(0, preparedMs - 1_000);
  const arg = `${Math.floor(since / 1000)}.${String((since % 1000) * 1_000_000).padStart(9, "0")}`;
  return new Promise((resolve, reject) => {
    execFile(SANDBOX_HELPER, ["--changed-since", arg, ...VIEW_ARGS], { timeout: 60_000 }, (err, stdout) => {
      if (!err) resolve(undefined);
      else if ((err as { code?: unknown }).code === 1) resolve(stdout.trim() || "(a path)");
      else reject(new Error(`pincer-sandbox --changed-since failed (${err.message}); run npm run build:native`));
    });
  });
}

/**
 * The folders a command needs from outside the system folders, to bind read-only into the sandbox:
 * for each absolute path in `argv` (the node binary, the daemon's main.js), the package it belongs
 * to, every node_modules folder Node would look in from there, and the real folders of the
 * workspace packages linked into those.
 */
export function commandFiles(argv: readonly string[]): string[] {
  const dirs = new Set<string>();
  const add = (p: string) => {
    const top = p.split("/")[1] ?? "";
    if (!SYSTEM_DIRS.has(top) || p.startsWith("/var/tmp/")) dirs.add(p);
  };
  for (const arg of argv) {
    if (!arg.startsWith("/") || !existsSync(arg)) continue;
    const real = realpathSync(arg);
    let pkg = statSync(real).isDirectory() ? real : dirname(real);
    while (pkg !== "/" && !existsSync(join(pkg, "package.json"))) pkg = dirname(pkg);
    add(pkg === "/" ? dirname(real) : pkg);
    for (let d = pkg; d !== "/"; d = dirname(d)) {
      const modules = join(d, "node_modules");
      if (!existsSync(modules)) continue;
      add(modules);
      for (const scope of readdirSync(modules).filter((n) => n.startsWith("@"))) {
        for (const name of readdirSync(join(modules, scope))) {
          const link = join(modules, scope, name);
          if (lstatSync(link).isSymbolicLink()) add(realpathSync(link));
        }
      }
    }
  }
  // A folder inside another one on the list is bound with it.
  return [...dirs].filter((d) => ![...dirs].some((o) => o !== d && d.startsWith(`${o}/`))).sort();
}

/** The environment of a machine's daemon, and so of every command it runs: the machine's, not the runner's. */
export function machineEnvironment(runner: NodeJS.ProcessEnv = process.env, inSandbox = false): Record<string, string> {
  const env: Record<string, string> = {
    PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    HOME: inSandbox ? "/home/user" : (runner.HOME ?? "/root"),
    LANG: runner.LANG ?? "C.UTF-8",
  };
  if (inSandbox) Object.assign(env, { USER: "root", LOGNAME: "root", SHELL: "/bin/sh" });
  // What says how to show text and time, nothing else: no keys, tokens, proxies or paths of the runner.
  for (const [k, v] of Object.entries(runner)) if (v !== undefined && (/^LC_[A-Z]+$/.test(k) || k === "TZ" || k === "LANGUAGE")) env[k] = v;
  return env;
}

/**
 * The capabilities root keeps inside (in the sandbox's user namespace, over its own files and
 * processes only): what a machine's programs expect root to have (xterm chowns its terminal, su and
 * sudo change ids, a server binds port 80). Not kept: mounting, the hostname, network
 * configuration and raw sockets, modules, the clock, tracing, devices (CAP_SYS_ADMIN, NET_ADMIN,
 * NET_RAW, SYS_MODULE, SYS_TIME, SYS_PTRACE, MKNOD and the rest).
 */
const MACHINE_CAPABILITIES = [
  "CAP_CHOWN",
  "CAP_DAC_OVERRIDE",
  "CAP_FOWNER",
  "CAP_FSETID",
  "CAP_KILL",
  "CAP_SETGID",
  "CAP_SETUID",
  "CAP_SETPCAP",
  "CAP_SETFCAP",
  "CAP_NET_BIND_SERVICE",
  "CAP_SYS_CHROOT",
  "CAP_AUDIT_WRITE",
];

/** Where the daemon's socket and token file are, inside the sandbox. */
const INSIDE = "/run/pincer";

/** A sandbox ready to start: the command to spawn, and where its daemon will listen. */
export interface PreparedSandbox {
  /** The helper, bubblewrap and the command; spawn it with a pipe as fd 3 (the sandbox's pid). */
  argv: string[];
  /** The daemon's unix socket on this computer ("unix:/…", to connect to). */
  address: string;
  /** The token file on this computer, to remove once the daemon read it. */
  tokenFile: string;
  /** When it was prepared (epoch ms): it hides what was private on this computer then ({@link privateChangedSince}). */
  preparedMs: number;
  /** Removes the sandbox's folder once it has ended, and frees its ids. */
  release(): void;
}

/** The sandboxes' folders in the temporary folder: `pincer-sandbox-<runner pid>-…`. */
const STATE_PREFIX = "pincer-sandbox-";

/** Removes the folders of sandboxes whose runner died without removing them (their mounts went with them). */
export function removeDeadSandboxes(): Promise<void> {
  return removeDeadDirs(STATE_PREFIX);
}

/** bubblewrap's command line inside the helper: the layer as /, the socket folder, `binds`, then the daemon listening on the socket. */
function bwrapArgv(state: string, sock: string, binds: readonly string[], daemonArgv: readonly string[]): string[] {
  return [
    "bwrap",
    "--die-with-parent",
    "--new-session",
    "--unshare-pid",
    "--unshare-uts",
    "--hostname",
    "pincer",
    "--bind",
    join(state, "layer", "root"),
    "/",
    "--dev",
    "/dev",
    "--tmpfs",
    "/dev/shm",
    "--proc",
    "/proc",
    // The sandbox's own sysfs (its network interfaces, not this computer's), read-only; the cgroup
    // hierarchies as they were, read-only.
    "--ro-bind",
    join(state, "layer", "sys"),
    "/sys",
    "--ro-bind-try",
    "/sys/fs/cgroup",
    "/sys/fs/cgroup",
    ...EMPTY_DIRS.flatMap((d) => ["--tmpfs", d]),
    "--dir",
    "/home/user",
    "--bind",
    sock,
    INSIDE,
    ...binds,
    "--clearenv",
    // The machine's environment, and the daemon's malloc settings (it keeps them from its commands).
    ...Object.entries({ ...machineEnvironment(process.env, true), ...DAEMON_MALLOC_ENV }).flatMap(([k, v]) => ["--setenv", k, v]),
    "--cap-drop",
    "ALL",
    ...MACHINE_CAPABILITIES.flatMap((c) => ["--cap-add", c]),
    "--chdir",
    "/home/user",
    "--",
    ...daemonArgv,
    "--socket",
    `${INSIDE}/daemon.sock`,
    "--token-file",
    `${INSIDE}/token`,
  ];
}

/** Ids of the sandboxes: uid/gid base = 2^30 + n × 65536. */
const ID_BASE = 2 ** 30;
const ID_RANGE = 65536;

/**
 * Prepares a sandbox for `daemonArgv` (a daemon command line, to which the socket and token
 * options are added): a private folder for its layer and socket, a token, its ids.
 */
export function prepareSandbox(daemonArgv: readonly string[], token: string, opts: { network?: boolean } = {}): PreparedSandbox {
  const preparedMs = Date.now();
  const ids = reserveNumber("sandbox-ids", 0, 4096);
  const base = ID_BASE + ids.number * ID_RANGE;
  const state = mkdtempSync(join(tmpdir(), `${STATE_PREFIX}${process.pid}-`));
  const sock = join(state, "sock");
  try {
    mkdirSync(sock, { mode: 0o700 });
    chownSync(sock, base, base);
    const tokenFile = join(sock, "token");
    writeFileSync(tokenFile, token, { mode: 0o600 });
    chownSync(tokenFile, base, base);
    chmodSync(state, 0o700);
    // Through the helper (--expose): bubblewrap looks a bind's source up as the sandbox's root, an
    // id that cannot enter folders only their owner may (a project under /root, a private
    // temporary folder); the helper binds each folder where that root can reach it.
    const folders = commandFiles(daemonArgv);
    const binds = folders.flatMap((dir, i) => ["--ro-bind", join(state, "layer", "expose", String(i)), dir]);
    if (opts.network) {
      // slirp4netns's DNS; this computer's resolver may listen on its own loopback.
      writeFileSync(join(state, "resolv.conf"), "nameserver 10.0.2.3\n", { mode: 0o644 });
      binds.push("--ro-bind", join(state, "resolv.conf"), "/etc/resolv.conf");
    }
    const bwrap = bwrapArgv(state, sock, binds, daemonArgv);
    return {
      argv: [
        SANDBOX_HELPER,
        ...["--base", String(base), "--state", state, "--size", LAYER_SIZE, ...VIEW_ARGS],
        ...folders.flatMap((dir) => ["--expose", dir]),
        ...["--pid-fd", "3", "--", ...bwrap],
      ],
      address: `unix:${join(sock, "daemon.sock")}`,
      tokenFile,
      preparedMs,
      release() {
        rmSync(state, { recursive: true, force: true });
        ids.release();
      },
    };
  } catch (err) {
    rmSync(state, { recursive: true, force: true });
    ids.release();
    throw err;
  }
}
