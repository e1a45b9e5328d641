import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { DAEMON_MALLOC_ENV, hasMallocEnv } from "@pincer/shared";

const MiB = 1024 * 1024;

/**
 * V8's full collection for this process. `--expose-gc` may be set while V8 runs; the function it
 * defines appears in contexts made after that, so it is taken from a new one.
 */
export function exposedGc(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

/** The resident memory of this process in bytes (one read of /proc/self/stat). */
const residentBytes = () => process.memoryUsage.rss();

export interface IdleCollectorOptions {
  /** How often the daemon looks. @default 500 */
  everyMs?: number;
  /** Growth of resident memory since the last collection that makes one worth it. @default 16 MiB */
  growthBytes?: number;
  /** The event loop's busy share over the last look under which the daemon counts as quiet. @default 0.05 */
  quietShare?: number;
  rss?: () => number;
  gc?: () => void;
  /** The event loop's busy share since the last call (0-1). @default from performance.eventLoopUtilization */
  busy?: () => number;
  /** Run before each collection, which waits for it: lets go of memory held between calls (capture buffers). */
  release?: () => Promise<void>;
  /** Run after each collection: gives the heap's free pages back to the system (glibc's malloc_trim). @default none */
  trim?: () => void;
}

/** The event loop's busy share since the previous call of the returned function. */
function loopBusy(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const share = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    return share;
  };
}

/**
 * Gives memory back once the daemon goes quiet after work that took much of it. A transfer or a
 * screenshot leaves its buffers to V8's garbage collector, and an idle V8 collects only after its
 * memory reducer's delay (8 s and more): until then the buffers stay resident, so a host running a
 * daemon per machine pays for every machine's last transfer. Every `everyMs` this compares the
 * resident memory with what was left after the last collection; when it grew by `growthBytes` or
 * more and the event loop was quiet over the last look, it runs one full collection (a few ms on
 * the daemon's heap), after `release` let go of what the drivers hold between calls. A busy
 * daemon is left to V8's own scheduling. With `trim`, the pages the collection freed inside
 * glibc's heap go back to the system too (see {@link heapControl}).
 */
export class IdleCollector {
  /** Collections run so far. */
  collections = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly rss: () => number;
  private readonly gc: () => void;
  private readonly busy: () => number;
  private baseline: number;
  private collecting = false;

  constructor(private readonly opts: IdleCollectorOptions = {}) {
    this.rss = opts.rss ?? residentBytes;
    this.gc = opts.gc ?? exposedGc();
    this.busy = opts.busy ?? loopBusy();
    this.baseline = this.rss();
    this.timer = setInterval(() => this.look(), opts.everyMs ?? 500).unref();
  }

  /** One look: collects when memory grew and the loop was quiet. */
  look(): void {
    const busy = this.busy();
    const rss = this.rss();
    if (rss < this.baseline) this.baseline = rss;
    if (this.collecting || busy > (this.opts.quietShare ?? 0.05) || rss - this.baseline < (this.opts.growthBytes ?? 16 * MiB)) return;
    if (!this.opts.release) {
      this.collect();
      return;
    }
    this.collecting = true;
    void this.opts
      .release()
      .catch(() => undefined)
      .finally(() => {
        this.collecting = false;
        this.collect();
      });
  }

  private collect(): void {
    this.gc();
    if (this.opts.trim) {
      this.opts.trim();
      setTimeout(() => this.opts.trim?.(), 200).unref();
    }
    this.collections += 1;
    this.baseline = this.rss();
  }

  close(): void {
    clearInterval(this.timer);
  }
}

/**
 * Whether this process started with {@link DAEMON_MALLOC_ENV}; removes those settings from
 * process.env, so that the commands the daemon runs (the machine's programs) do not inherit them.
 */
export function takeMallocEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  const had = hasMallocEnv(env);
  for (const [key, value] of Object.entries(DAEMON_MALLOC_ENV)) if (env[key] === value) delete env[key];
  return had;
}

/** glibc's heap controls, from native/memory.c (pincer_memory.node). */
export interface HeapControl {
  /** malloc_trim(0): gives every free page of the heap back; true when some went back. */
  trim(): boolean;
  /** mallopt(M_MMAP_THRESHOLD, bytes); true when glibc took it. */
  setMmapThreshold(bytes: number): boolean;
  /** prctl(PR_SET_DUMPABLE, on); true when taken. Missing from an addon built before it (security/memoryAccess.ts). */
  setDumpable?(on: boolean): boolean;
}

/** Where `npm ci` (or `npm run build:native`) puts the addon. */
export const HEAP_CONTROL_PATH = resolve(dirname(fileURLToPath(import.meta.url)), "../native/build/pincer_memory.node");

/**
 * The mmap threshold the daemon sets when it can trim. Node reads sockets into 64 KiB buffers;
 * under the launchers' 64 KiB threshold each was a new mapping whose pages the kernel faulted in
 * and zeroed (about 470 faults per MiB uploaded, a fifth of an upload's time here). At 256 KiB
 * they stay on the heap and are reused, while larger buffers (transfer messages, screen captures)
 * are still mapped on their own and unmapped when freed, which keeps the daemon's peak under load
 * low (2 MiB was about as fast but held 30-50 MiB more under the load test). What the small
 * buffers leave free inside the heap, the idle trim gives back.
 */
export const TRIMMED_MMAP_THRESHOLD = 256 * 1024;

let loaded: { control?: HeapControl; why?: string } | undefined;

/** The addon, loaded once; undefined, with the reason in {@link heapControlMissing}, where it is not built or not loadable. */
export function heapControl(path = HEAP_CONTROL_PATH): HeapControl | undefined {
  if (!loaded) {
    if (process.platform !== "linux") loaded = { why: "glibc only" };
    else if (!existsSync(path)) loaded = { why: `${path} was not built (npm run build:native: needs a C compiler and Node.js's headers)` };
    else {
      try {
        loaded = { control: createRequire(import.meta.url)(path) as HeapControl };
      } catch (err) {
        loaded = { why: `${path} did not load: ${(err as Error).message}` };
      }
    }
  }
  return loaded.control;
}

/** Why {@link heapControl} is undefined, once it was asked. */
export function heapControlMissing(): string | undefined {
  return loaded?.why;
}

/**
 * Where the daemon started with the launchers' fixed mmap threshold ({@link DAEMON_MALLOC_ENV})
 * and can trim its heap when idle, raises the threshold to {@link TRIMMED_MMAP_THRESHOLD}; returns
 * the threshold now in force when it set one. A threshold set otherwise (by the user) is left.
 */
export function raiseMmapThreshold(startedWithSettings: boolean, control: HeapControl | undefined): number | undefined {
  if (!startedWithSettings || !control) return undefined;
  return control.setMmapThreshold(TRIMMED_MMAP_THRESHOLD) ? TRIMMED_MMAP_THRESHOLD : undefined;
}
