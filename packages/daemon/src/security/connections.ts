import { readFileSync } from "node:fs";
import type { Http2Server, ServerHttp2Stream } from "node:http2";
import type { Socket } from "node:net";
import * as grpc from "@grpc/grpc-js";
import type { Logger } from "../logger.js";

/** Bounds on connections that have not yet had a call let in. */
export interface ConnectionLimits {
  /**
   * How long a new connection has to get a first call let in (past the token check, when there is
   * one): the TLS handshake, HTTP/2's preface and settings and the call's headers all count. Then
   * it is closed. @default 10_000
   */
  handshakeTimeoutMs: number;
  /** Most such connections open at once; for one more, the oldest is closed. @default 128 */
  maxUnauthenticated: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { handshakeTimeoutMs: 10_000, maxUnauthenticated: 128 };

/** How often at most the log says how many connections were closed, in ms. */
const REPORT_EVERY_MS = 10_000;

/** A connection still to prove itself. */
interface Pending {
  socket: Socket;
  timer: NodeJS.Timeout;
  /** It has sent a call's headers: closed only after those that have not. */
  started: boolean;
}

/** `address:port` of a peer, as both a socket and a call's connection info give it. */
const peerKey = (address: string | undefined, port: number | undefined) => `${address ?? "?"}:${port ?? 0}`;

/**
 * Closes connections that never get a call let in, and caps how many such connections are open at
 * once, so that clients which connect and stall (a truncated HTTP/2 frame, a TLS handshake never
 * finished, nothing at all) cannot take every file descriptor of the daemon. A connection counts
 * from its TCP accept until a call on it passes authentication ({@link admit}); then it is the
 * client's, bounded by the idle timeout. Over the cap, the oldest pending connection that has not
 * yet sent a call's headers is closed first, so a client in the middle of its first call keeps its
 * connection while a flood of stalled ones goes.
 */
export class ConnectionGuard {
  private readonly pending = new Map<string, Pending>();
  private closedStalled = 0;
  private closedOverCap = 0;
  private lastReport = 0;
  private reportTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly limits: ConnectionLimits,
    private readonly log: Logger,
  ) {}

  /**
   * Watches every listener of `server` (call after `bindAsync`). Returns false when grpc-js's
   * internals changed and nothing is watched; the daemon then warns that connections are unbounded.
   * The packages pin grpc-js; test/unit/daemon/grpcInternals.test.ts checks the internals used here.
   */
  attach(server: grpc.Server): boolean {
    const internals = server as unknown as { http2Servers?: Map<Http2Server, unknown> };
    if (!(internals.http2Servers instanceof Map) || internals.http2Servers.size === 0) return false;
    for (const http2Server of internals.http2Servers.keys()) {
      // The raw TCP socket, before any TLS: a handshake that never ends is bounded too.
      http2Server.on("connection", (socket: Socket) => this.opened(socket));
      http2Server.prependListener("stream", (stream: ServerHttp2Stream) => {
        const socket = stream.session?.socket;
        const entry = socket && this.pending.get(peerKey(socket.remoteAddress, socket.remotePort));
        if (entry) entry.started = true;
      });
    }
    return true;
  }

  /** The connection of a call that was let in: from now on it is not pending. */
  admit(connection: { remoteAddress?: string; remotePort?: number }): void {
    const key = peerKey(connection.remoteAddress, connection.remotePort);
    const entry = this.pending.get(key);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.pending.delete(key);
  }

  /**
   * The interceptor that admits the connections of the calls it sees; put it after the token check,
   * which passes on only calls it lets in. `counts(path)` false: calls that pass without proving
   * anything (health checks that need no token) do not admit their connection.
   */
  interceptor(counts: (path: string) => boolean = () => true): grpc.ServerInterceptor {
    return (method, call) => {
      if (!counts(method.path)) return new grpc.ServerInterceptingCall(call);
      const listener = new grpc.ServerListenerBuilder()
        .withOnReceiveMetadata((metadata, next) => {
          this.admit(call.getConnectionInfo());
          next(metadata);
        })
        .build();
      return new grpc.ServerInterceptingCall(call, new grpc.ResponderBuilder().withStart((next) => next(listener)).build());
    };
  }

  /** Connections open that have not had a call let in. */
  get unauthenticated(): number {
    return this.pending.size;
  }

  private opened(socket: Socket): void {
    const key = peerKey(socket.remoteAddress, socket.remotePort);
    if (this.pending.size >= this.limits.maxUnauthenticated) this.closeOne();
    const timer = setTimeout(() => {
      this.closedStalled++;
      socket.destroy();
      this.report();
    }, this.limits.handshakeTimeoutMs);
    timer.unref();
    const entry: Pending = { socket, timer, started: false };
    this.pending.set(key, entry);
    socket.once("close", () => {
      clearTimeout(timer);
      if (this.pending.get(key) === entry) this.pending.delete(key);
    });
  }

  /** Closes the oldest pending connection that has not started a call, else the oldest. */
  private closeOne(): void {
    let victim: Pending | undefined;
    for (const entry of this.pending.values()) {
      victim ??= entry;
      if (!entry.started) {
        victim = entry;
        break;
      }
    }
    if (!victim) return;
    this.closedOverCap++;
    victim.socket.destroy();
    this.report();
  }

  /** At most every REPORT_EVERY_MS, one log line with what was closed since the last. */
  private report(): void {
    const now = Date.now();
    if (now - this.lastReport < REPORT_EVERY_MS) {
      // The rest of a burst is told when the interval is over.
      this.reportTimer ??= setTimeout(
        () => {
          this.reportTimer = undefined;
          this.report();
        },
        this.lastReport + REPORT_EVERY_MS - now,
      ).unref();
      return;
    }
    if (this.closedStalled + this.closedOverCap === 0) return;
    this.lastReport = now;
    this.log.warn("closed connections that had no call let in", {
      afterHandshakeTimeout: this.closedStalled,
      overMaxUnauthenticated: this.closedOverCap,
      handshakeTimeoutMs: this.limits.handshakeTimeoutMs,
      maxUnauthenticatedConnections: this.limits.maxUnauthenticated,
    });
    this.closedStalled = 0;
    this.closedOverCap = 0;
  }
}

/** The soft limit on open files of this process (Linux, from /proc/self/limits), or undefined. */
export function openFilesLimit(): number | undefined {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync("/proc/self/limits", "utf8"));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** The connection settings in force: the limits, the idle timeout, and the open-files limit they were fitted to. */
export interface ConnectionSettings extends ConnectionLimits {
  idleTimeoutMs: number;
  openFilesLimit: number | null;
}

/** @default 300_000 (5 minutes) */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

/**
 * Checks the connection options and fits them to this process's open-files limit: at most half of
 * it may go to connections still to prove themselves, the rest stays for files, commands, the X
 * connection and the buses. `warn` is told when the limit is lowered for that.
 */
export function connectionSettings(given: Partial<ConnectionLimits> & { idleTimeoutMs?: number }, warn: (msg: string) => void): ConnectionSettings {
  const handshakeTimeoutMs = given.handshakeTimeoutMs ?? DEFAULT_CONNECTION_LIMITS.handshakeTimeoutMs;
  const idleTimeoutMs = given.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  let maxUnauthenticated = given.maxUnauthenticated ?? DEFAULT_CONNECTION_LIMITS.maxUnauthenticated;
  if (!Number.isSafeInteger(handshakeTimeoutMs) || handshakeTimeoutMs < 100) throw new Error("--handshake-timeout-ms: must be at least 100");
  if (!Number.isSafeInteger(idleTimeoutMs) || idleTimeoutMs < 1000) throw new Error("--idle-timeout-ms: must be at least 1000");
  if (!Number.isSafeInteger(maxUnauthenticated) || maxUnauthenticated < 1) throw new Error("--max-unauthenticated-connections: must be at least 1");
  const files = openFilesLimit() ?? null;
  if (files !== null && maxUnauthenticated > Math.floor(files / 2)) {
    const fitted = Math.max(1, Math.floor(files / 2));
    warn(
      `the open-files limit of this process is ${files}: at most ${fitted} connections that have not authenticated, not ` +
        `${maxUnauthenticated}; raise the limit (LimitNOFILE= in the systemd unit, ulimit -n) for more`,
    );
    maxUnauthenticated = fitted;
  }
  return { handshakeTimeoutMs, maxUnauthenticated, idleTimeoutMs, openFilesLimit: files };
}
