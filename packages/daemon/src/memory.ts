import { performance } from "node:perf_hooks";
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
 * daemon is left to V8's own scheduling.
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
