import { readdirSync, readFileSync } from "node:fs";

/** A process as /proc/<pid>/stat describes it: enough to follow a tree and to tell a reused pid. */
interface ProcStat {
  pid: number;
  ppid: number;
  session: number;
  /** Clock ticks after boot when it started: a pid reused by another process has another. */
  start: string;
}

/** /proc/<pid>/stat read, or undefined when the process is gone (or there is no /proc). */
function statOf(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: the fields after it follow the last ")".
  const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // f[0] is field 3 (state): ppid is field 4, session field 6, starttime field 22.
  if (f[0] === "Z" || f[0] === "X") return undefined;
  return { pid, ppid: Number(f[1]), session: Number(f[3]), start: f[19] ?? "" };
}

function allProcesses(): ProcStat[] {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const out: ProcStat[] = [];
  for (const n of names) {
    if (!/^\d+$/.test(n)) continue;
    const s = statOf(Number(n));
    if (s) out.push(s);
  }
  return out;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Gone already, or never ours to signal.
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Every process a program on this host started, found as it runs, so that all of them can be stopped:
 * its descendants (followed through /proc while it runs, remembered with their start times, so a
 * child that was orphaned and re-parented to init is still known) and every process of its session
 * (the program is started in a session of its own: a double-forked helper keeps it unless it calls
 * setsid, and one that does was seen as a descendant first unless it did so within one look).
 * Without /proc (not Linux) only the program's process group is known.
 */
export class ProcessTree {
  readonly #root: number;
  readonly #known = new Map<number, string>();
  readonly #timer: NodeJS.Timeout;

  /** Starts following the tree of `root`, a process leading its own session, every `everyMs`. */
  constructor(root: number, everyMs = 200) {
    this.#root = root;
    this.look();
    this.#timer = setInterval(() => this.look(), everyMs);
    this.#timer.unref();
  }

  /** Looks once at /proc and remembers the tree's processes. */
  look(): void {
    const procs = allProcesses();
    const byParent = new Map<number, ProcStat[]>();
    for (const p of procs) {
      const siblings = byParent.get(p.ppid);
      if (siblings) siblings.push(p);
      else byParent.set(p.ppid, [p]);
    }
    const parents = [this.#root, ...this.#known.keys()];
    const seen = new Set<number>();
    while (parents.length > 0) {
      const pid = parents.pop()!;
      for (const child of byParent.get(pid) ?? []) {
        if (seen.has(child.pid)) continue;
        seen.add(child.pid);
        this.#known.set(child.pid, child.start);
        parents.push(child.pid);
      }
    }
    for (const p of procs) if (p.session === this.#root) this.#known.set(p.pid, p.start);
    const root = procs.find((p) => p.pid === this.#root);
    if (root) this.#known.set(root.pid, root.start);
  }

  /** The tree's processes that still run (the same processes: a reused pid is not counted). */
  alive(): number[] {
    return [...this.#known].filter(([pid, start]) => statOf(pid)?.start === start).map(([pid]) => pid);
  }

  #signalAll(sig: NodeJS.Signals): void {
    this.look();
    signal(-this.#root, sig);
    for (const pid of this.alive()) signal(pid, sig);
  }

  /**
   * Stops the whole tree: SIGTERM, up to `graceMs` for it to end, then SIGKILL until nothing of it is
   * left (at most 5 s more). Returns the pids still alive then (none, unless a process cannot be killed).
   */
  async stop(graceMs = 2_000): Promise<number[]> {
    this.#signalAll("SIGTERM");
    for (const deadline = Date.now() + graceMs; this.alive().length > 0 && Date.now() < deadline; ) await sleep(50);
    for (const deadline = Date.now() + 5_000; Date.now() < deadline; ) {
      this.#signalAll("SIGKILL");
      if (this.alive().length === 0) break;
      await sleep(50);
    }
    clearInterval(this.#timer);
    return this.alive();
  }

  /** Stops following the tree without signalling it (the program and its children ended). */
  forget(): void {
    clearInterval(this.#timer);
  }
}
