import { connect as netConnect, type NetConnectOpts } from "node:net";

/**
 * How an `env` tells a machine that is busy from one that is gone.
 *
 * A daemon that is alive but cannot run for a while — a starved process on a loaded host, a
 * container whose CPU share is taken by the browser it just started, a paused VM — does not answer
 * HTTP/2 pings, exactly as a dead one does. Its machine's kernel still accepts a TCP connection at
 * its address, though, and that is what a machine that is really gone (the daemon exited, the
 * host is off, the path to it is down) does not do. So while calls are under way, the `env` opens
 * (and at once closes) a new connection to the daemon's address every so often: when nothing
 * accepts it in time, the calls in flight fail with UnavailableError at once; when something does,
 * they go on waiting, bounded by their own deadlines.
 */

/** A call under way: how to cancel it, and the error it ends with if the machine was found gone. */
export interface CallEntry {
  /** The error that replaces the call's own when {@link InFlightCalls.failAll} cancelled it. */
  readonly failure: Error | undefined;
  /** The call ended; stop tracking it. */
  done(): void;
}

/** The calls under way on one connection; the link-health step of every call's interceptor chain (interceptors.ts) adds each. */
export class InFlightCalls {
  readonly #calls = new Set<{ label: string; cancel(): void; failure: Error | undefined }>();
  /** Called when the first call starts and when the last one ends. */
  onBusyChange: (busy: boolean) => void = () => undefined;

  get size(): number {
    return this.#calls.size;
  }

  /** Tracks a call, `label` naming it in errors ("Process/Run"). */
  add(label: string, cancel: () => void): CallEntry {
    const entry = { label, cancel, failure: undefined as Error | undefined };
    this.#calls.add(entry);
    if (this.#calls.size === 1) this.onBusyChange(true);
    return {
      get failure() {
        return entry.failure;
      },
      done: () => {
        if (this.#calls.delete(entry) && this.#calls.size === 0) this.onBusyChange(false);
      },
    };
  }

  /** Cancels every call under way; each ends with `errorFor(its label)`. */
  failAll(errorFor: (label: string) => Error): void {
    for (const entry of [...this.#calls]) {
      entry.failure = errorFor(entry.label);
      entry.cancel();
    }
  }
}

/**
 * Where a reachability probe connects for a gRPC target: `host:port`, `[v6]:port`, `dns:host:port`,
 * `unix:/path` or `unix:///path`; undefined for other forms (no probe is made for those).
 */
export function probeTarget(address: string): NetConnectOpts | undefined {
  if (address.startsWith("unix:")) return { path: address.replace(/^unix:(?:\/\/(?=\/))?/, "") };
  const m = /^(?:dns:(?:\/\/\/)?)?(\[[^\]]+\]|[^:[\]]+):(\d+)$/.exec(address);
  if (!m) return undefined;
  return { host: m[1]!.replace(/^\[|\]$/g, ""), port: Number(m[2]) };
}

/** Errors of a probe that mean nothing is there; others (a DNS hiccup, no free descriptor here) say nothing about the machine. */
const GONE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EHOSTUNREACH", "ENETUNREACH", "EHOSTDOWN", "ETIMEDOUT", "ENOENT"]);

/**
 * Opens a connection to `target` and closes it: undefined when something accepted it within
 * `timeoutMs`, else why not. A timer that fires late because this process was busy does not count
 * against the machine: the verdict waits until connections that completed meanwhile were seen.
 */
export function probeReachable(target: NetConnectOpts, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = netConnect(target);
    let timer: NodeJS.Timeout | undefined;
    const finish = (why: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(why);
    };
    socket.once("connect", () => finish(undefined));
    socket.once("error", (err: NodeJS.ErrnoException) => finish(GONE_CODES.has(err.code ?? "") ? (err.code ?? err.message) : undefined));
    // setImmediate runs after this turn's I/O callbacks, so a connect that completed while this
    // process was too busy to run the timer on time is seen first.
    timer = setTimeout(() => setImmediate(() => finish(`nothing accepted a connection within ${timeoutMs} ms`)), timeoutMs);
  });
}

/** Options of {@link watchLink}. */
export interface LinkWatchOptions {
  /** Time between probes while calls are under way. */
  intervalMs: number;
  /** How long a probe waits for the connection to be accepted. */
  timeoutMs: number;
  /** Called with the reason when a probe finds the machine gone. */
  onGone(why: string): void;
}

/**
 * Probes `address` every `intervalMs` while `calls` has calls under way, and reports a machine found
 * gone. Returns the function that stops watching. Timers are unref'd: watching never keeps the
 * process alive.
 */
export function watchLink(address: string, calls: InFlightCalls, opts: LinkWatchOptions): () => void {
  const target = probeTarget(address);
  if (!target) return () => undefined;
  let timer: NodeJS.Timeout | undefined;
  let probing = false;
  const tick = async () => {
    // Stopped lazily, on the first tick without calls: quick calls one after another start no timers.
    if (calls.size === 0) {
      clearInterval(timer);
      timer = undefined;
      return;
    }
    if (probing) return;
    probing = true;
    const why = await probeReachable(target, opts.timeoutMs);
    probing = false;
    if (why !== undefined && calls.size > 0) opts.onGone(why);
  };
  calls.onBusyChange = (busy) => {
    if (!busy || timer) return;
    timer = setInterval(() => void tick(), opts.intervalMs);
    timer.unref();
  };
  return () => {
    calls.onBusyChange = () => undefined;
    clearInterval(timer);
  };
}
