import type { Http2Server, IncomingHttpHeaders } from "node:http2";
import type * as grpc from "@grpc/grpc-js";
import { MAX_ECHO_BYTES } from "@pincer/shared";

/**
 * Request headers grpc-js repeats whole in statuses it sends by itself, before any interceptor or
 * handler runs: the method path (UNIMPLEMENTED "The server does not implement the method …"),
 * grpc-timeout ("Invalid grpc-timeout value …") and grpc-encoding ("unsupported encoding …").
 */
const ECHOED_HEADERS = [":path", "grpc-timeout", "grpc-encoding"] as const;

/**
 * Cuts the request headers grpc-js echoes ({@link ECHOED_HEADERS}) to their first bytes and size
 * when they are longer than any valid value, so that a 60 KB method name does not come back as a
 * 60 KB status message (which makes grpcio drop the connection, failing every call on it). No
 * method path of the contract is near that long, so a cut path still finds no method. Call after
 * `bindAsync`. Returns false when grpc-js's internals changed and nothing was done (the packages
 * pin grpc-js; test/unit/daemon/grpcInternals.test.ts checks them).
 */
export function capEchoedHeaders(server: grpc.Server): boolean {
  const internals = server as unknown as { http2Servers?: Map<Http2Server, unknown> };
  if (!(internals.http2Servers instanceof Map) || internals.http2Servers.size === 0) return false;
  for (const http2Server of internals.http2Servers.keys()) {
    // Before grpc-js's own listener, which reads the same headers object.
    http2Server.prependListener("stream", (_stream: unknown, headers: IncomingHttpHeaders) => {
      for (const name of ECHOED_HEADERS) {
        const value = headers[name];
        // Header values are Latin-1: one byte a character, and no "…" (it would arrive as "&").
        if (typeof value === "string" && value.length > MAX_ECHO_BYTES) headers[name] = `${value.slice(0, MAX_ECHO_BYTES)}... (${value.length} bytes)`;
      }
    });
  }
  return true;
}
