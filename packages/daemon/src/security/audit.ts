import { closeSync, createWriteStream, openSync } from "node:fs";
import * as grpc from "@grpc/grpc-js";

/** Where audit lines go: one JSON object per line. */
export interface AuditSink {
  write(record: Record<string, unknown>): void;
  close(): Promise<void>;
}

/**
 * Audit lines to `path` (appended, created 0600) or, without a path, to stderr. Opening the file
 * happens here, so a bad --audit-file stops the daemon at start, not at the first call.
 */
export function createAuditSink(path?: string): AuditSink {
  if (!path) {
    return { write: (r) => void process.stderr.write(`${JSON.stringify(r)}\n`), close: async () => undefined };
  }
  try {
    closeSync(openSync(path, "a", 0o600));
  } catch (err) {
    throw new Error(`--audit-file ${path}: ${(err as Error).message}`);
  }
  const stream = createWriteStream(path, { flags: "a", mode: 0o600 });
  stream.on("error", (err) =>
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: "error", msg: "audit file write failed", path, error: err.message })}\n`),
  );
  return {
    write: (r) => void stream.write(`${JSON.stringify(r)}\n`),
    close: () => new Promise<void>((resolve) => stream.end(resolve)),
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

/**
 * The first server interceptor: writes one line per call when it ends — time it started, peer,
 * client certificate subject under mutual TLS, method, status code, duration — and nothing of
 * the request unless `debug` (then the first request message, with bytes and long strings cut;
 * the token never, it is not part of a message).
 *
 * Statuses that grpc-js sends by itself (a message over the size limit, a deadline) do not pass
 * through interceptors' responders; this interceptor wraps the base call's `sendStatus` instead,
 * so those are logged as well, and the size-limit message gains the flag that raises it.
 */
export function auditInterceptor(sink: AuditSink, opts: { debug?: boolean } = {}): grpc.ServerInterceptor {
  return (method, call) => {
    const started = performance.now();
    const time = new Date().toISOString();
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
    const baseSendStatus = call.sendStatus.bind(call);
    call.sendStatus = (status) => {
      let s = status;
      if (s.code === grpc.status.RESOURCE_EXHAUSTED && TOO_LARGE.test(s.details ?? "")) {
        s = { ...s, details: `${s.details}; this daemon's message limit is set with --max-message-bytes` };
      }
      finish(s.code, s.details);
      baseSendStatus(s);
    };
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
