import { closeSync, openSync, writeSync } from "node:fs";
import * as grpc from "@grpc/grpc-js";
import { baseServerCallPrototype } from "../grpcServerCall.js";

/** Where audit lines go: one JSON object per line. */
export interface AuditSink {
  /** Queues one line; `record` is serialized when it is written and must not change after this. */
  write(record: Record<string, unknown>): void;
  /** Writes what is queued and stops. */
  close(): Promise<void>;
}

/**
 * Audit lines to `path` (appended, created 0600) or, without a path, to stderr. Opening the file
 * happens here, so a bad --audit-file stops the daemon at start, not at the first call.
 *
 * Lines are serialized and written together at most 20 ms after their calls ended (at once when 512
 * are waiting), from a timer: a call's answer never waits for its audit line, and the calls of those
 * 20 ms cost one write (on the machines measured, a write to a pipe cost the daemon about 40 µs and
 * woke its reader each time). Lines still queued when the process exits (an uncaught exception too)
 * are written by an exit handler; only a process killed outright (SIGKILL, the OOM killer) loses
 * them, those of its last 20 ms.
 */
export function createAuditSink(path?: string): AuditSink {
  if (!path) return batchedSink(toStderr, () => undefined);
  let fd: number;
  try {
    fd = openSync(path, "a", 0o600);
  } catch (err) {
    throw new Error(`--audit-file ${path}: ${(err as Error).message}`);
  }
  let failed = false;
  const append = (text: string) => {
    try {
      writeSync(fd, text);
    } catch (err) {
      if (failed) return;
      failed = true;
      const line = { time: new Date().toISOString(), level: "error", msg: "audit file write failed", path, error: (err as Error).message };
      process.stderr.write(`${JSON.stringify(line)}\n`);
    }
  };
  return batchedSink(append, () => closeSync(fd));
}

const toStderr = (text: string) => {
  process.stderr.write(text);
};

/** How long a line waits at most to be written with others, in ms; and how many lines are written at once at most. */
const FLUSH_MS = 20;
const FLUSH_LINES = 512;

/** A sink that queues records and hands them to `append` as text every FLUSH_MS (or FLUSH_LINES) and at exit. */
function batchedSink(append: (text: string) => void, release: () => void): AuditSink {
  let queued: Record<string, unknown>[] = [];
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (queued.length === 0) return;
    const records = queued;
    queued = [];
    append(records.map((r) => `${JSON.stringify(r)}\n`).join(""));
  };
  process.on("exit", flush);
  return {
    write(record) {
      // After close (the server has stopped by then) nothing is appended to a descriptor that is gone.
      if (closed) return;
      if (queued.push(record) >= FLUSH_LINES) flush();
      else timer ??= setTimeout(flush, FLUSH_MS).unref();
    },
    async close() {
      flush();
      closed = true;
      process.off("exit", flush);
      release();
    },
  };
}

const MAX_DEBUG_STRING = 1000;
const MAX_DEBUG_BYTES = 64;

/** A request message made loggable: long strings cut, bytes shown as their length and first bytes. */
function forDebug(value: unknown, depth = 0): unknown {
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) {
    const b = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    return { bytes: b.length, head_base64: b.subarray(0, MAX_DEBUG_BYTES).toString("base64") };
  }
  if (typeof value === "string") return value.length > MAX_DEBUG_STRING ? `${value.slice(0, MAX_DEBUG_STRING)}… (${value.length} chars)` : value;
  if (depth > 6 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.slice(0, 100).map((v) => forDebug(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, forDebug(v, depth + 1)]));
}

/** grpc-js's own message for a too-large request, which names no flag. */
const TOO_LARGE = /^Received message (that decompresses to a size )?larger than/;

/** A status as a server call sends it (grpc-js's PartialStatusObject, which its index does not export). */
type PartialStatus = Parameters<grpc.ServerInterceptingCallInterface["sendStatus"]>[0];

/** The status as sent: the size-limit message gains the flag that raises it. */
function withLimitHint(status: PartialStatus): PartialStatus {
  if (status.code !== grpc.status.RESOURCE_EXHAUSTED || !TOO_LARGE.test(status.details ?? "")) return status;
  return { ...status, details: `${status.details}; this daemon's message limit is set with --max-message-bytes` };
}

/** Where a call's status observer sits on grpc-js's base server call (see {@link hookBaseSendStatus}). */
const ON_STATUS = Symbol("pincer.auditOnStatus");
const HOOKED = Symbol.for("pincer.auditHooksSendStatus");

interface BaseCallPrototype {
  sendStatus?: (this: HookedCall, status: PartialStatus) => void;
  [HOOKED]?: boolean;
}
type HookedCall = { [ON_STATUS]?: (status: PartialStatus) => PartialStatus };

/**
 * Makes grpc-js's base server call (BaseServerInterceptingCall) pass every status it sends through
 * the observer its audit interceptor set on it, once, on the class: the statuses of handlers and
 * interceptors and those grpc-js sends by itself (a message over the size limit, a deadline), which
 * do not pass through interceptors' responders. The alternative, replacing `sendStatus` on every
 * call, made each call's objects costlier to collect: the daemon's garbage collection per empty
 * call went from about 22 to 80 µs. Returns the prototype, or undefined when grpc-js's internals
 * changed (test/unit/daemon/audit.test.ts checks them); calls then get the per-call wrapper.
 */
function hookBaseSendStatus(): object | undefined {
  const proto = baseServerCallPrototype<BaseCallPrototype>();
  const original = proto?.sendStatus;
  if (!proto || typeof original !== "function") return undefined;
  if (!proto[HOOKED]) {
    proto.sendStatus = function (this: HookedCall, status: PartialStatus): void {
      const observe = this[ON_STATUS];
      original.call(this, observe ? observe(status) : status);
    };
    proto[HOOKED] = true;
  }
  return proto;
}

/**
 * The first server interceptor: writes one line per call when it ends — time it started, peer,
 * client certificate subject under mutual TLS, method, status code, duration — and nothing of
 * the request unless `debug` (then the first request message, with bytes and long strings cut;
 * the token never, it is not part of a message).
 *
 * It sees each call's status where grpc-js sends it (see {@link hookBaseSendStatus}), so statuses
 * grpc-js sends by itself are logged as well, and the size-limit message gains the flag that
 * raises it.
 */
export function auditInterceptor(sink: AuditSink, opts: { debug?: boolean } = {}): grpc.ServerInterceptor {
  const hooked = hookBaseSendStatus();
  return (method, call) => {
    const started = performance.now();
    // Serialized by the sink, off the call's path, as an ISO 8601 string.
    const time = new Date();
    let request: unknown;
    let done = false;
    const finish = (code: grpc.status, details: string | undefined) => {
      if (done) return;
      done = true;
      const cn = call.getAuthContext().sslPeerCertificate?.subject?.CN;
      sink.write({
        time,
        type: "audit",
        peer: call.getPeer(),
        ...(cn ? { client_cert: cn } : {}),
        method: method.path,
        code: grpc.status[code] ?? String(code),
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
        ...(opts.debug ? { request, details } : {}),
      });
    };
    const onStatus = (status: PartialStatus) => {
      const sent = withLimitHint(status);
      finish(sent.code, sent.details);
      return sent;
    };
    if (hooked && Object.getPrototypeOf(call) === hooked) (call as HookedCall)[ON_STATUS] = onStatus;
    else {
      // Not grpc-js's base call (another interceptor came first) or grpc-js changed: wrap this call's own.
      const next = call.sendStatus.bind(call);
      call.sendStatus = (status) => next(onStatus(status));
    }
    const listener = new grpc.ServerListenerBuilder()
      .withOnReceiveMessage((message, next) => {
        if (opts.debug && request === undefined) request = forDebug(message);
        next(message);
      })
      .withOnCancel(() => finish(grpc.status.CANCELLED, "cancelled by the client"))
      .build();
    return new grpc.ServerInterceptingCall(call, new grpc.ResponderBuilder().withStart((next) => next(listener)).build());
  };
}
