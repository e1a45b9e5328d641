import type * as grpc from "@grpc/grpc-js";
import type { Http2Server, ServerHttp2Session } from "node:http2";

/** HTTP/2 receive window the daemon advertises, per stream and per connection. @default 16 MiB */
export const FLOW_CONTROL_WINDOW_BYTES = 16 * 1024 * 1024;

/**
 * Raises the server's HTTP/2 receive windows. With the default 64 KiB windows an upload stalls on
 * a WINDOW_UPDATE round trip every 64 KiB and both processes sit mostly idle (about 100 MiB/s on
 * loopback here). grpc-js has a client option for this (`grpc-node.flow_control_window`) but none
 * for servers, so this sets the stream window in the options grpc-js hands to http2.createServer
 * and the connection window on each new session. Call before `bindAsync` (stream window) and after
 * it (connection window). Returns false when grpc-js's internals have changed and nothing was set.
 * The packages pin grpc-js; test/unit/daemon/grpcInternals.test.ts checks the internals used here.
 */
export function raiseStreamWindow(server: grpc.Server, bytes = FLOW_CONTROL_WINDOW_BYTES): boolean {
  const internals = server as unknown as { commonServerOptions?: { settings?: Record<string, unknown> } };
  if (typeof internals.commonServerOptions !== "object") return false;
  internals.commonServerOptions.settings = { ...internals.commonServerOptions.settings, initialWindowSize: bytes };
  return true;
}

export function raiseConnectionWindow(server: grpc.Server, bytes = FLOW_CONTROL_WINDOW_BYTES): boolean {
  const internals = server as unknown as { http2Servers?: Map<Http2Server, unknown> };
  if (!(internals.http2Servers instanceof Map)) return false;
  for (const http2Server of internals.http2Servers.keys()) {
    http2Server.on("session", (session: ServerHttp2Session) => {
      try {
        session.setLocalWindowSize(bytes);
      } catch {
        // A session that closed at once; nothing to raise.
      }
    });
  }
  return true;
}
