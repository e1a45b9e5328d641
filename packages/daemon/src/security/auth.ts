import type { Http2Server, IncomingHttpHeaders } from "node:http2";
import * as grpc from "@grpc/grpc-js";
import { authProblem, tokenChecker } from "@pincer/shared";

/** Methods of the standard health service; callable without a token unless --health-auth. */
export const HEALTH_PREFIX = "/grpc.health.v1.Health/";

/**
 * Node's HTTP/2 server keeps only the first of several `authorization` headers, so a call that
 * carried a valid one and a second one looked like a call with one. This puts every value back in
 * the headers grpc-js reads its metadata from, where {@link authProblem} refuses more than one.
 * Call after `bindAsync`. Returns false when grpc-js's internals changed and nothing was done (the
 * packages pin grpc-js; test/unit/daemon/grpcInternals.test.ts checks them).
 */
export function keepDuplicateAuthorization(server: grpc.Server): boolean {
  const internals = server as unknown as { http2Servers?: Map<Http2Server, unknown> };
  if (!(internals.http2Servers instanceof Map)) return false;
  for (const http2Server of internals.http2Servers.keys()) {
    http2Server.prependListener("stream", (_stream: unknown, headers: IncomingHttpHeaders, _flags: number, rawHeaders: string[]) => {
      const values: string[] = [];
      for (let i = 0; i + 1 < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === "authorization") values.push(rawHeaders[i + 1]!);
      if (values.length > 1) (headers as Record<string, string | string[]>).authorization = values;
    });
  }
  return true;
}

/**
 * The server interceptor that enforces the token. It answers UNAUTHENTICATED when the request
 * metadata arrives, before grpc-js hands the call to its handler, so a rejected call runs no
 * handler code at all: no upload starts, no process spawns. Health checks pass without a token
 * when `healthWithoutToken`; server reflection and everything else need it.
 */
export function authInterceptor(opts: { token: string; healthWithoutToken: boolean }): grpc.ServerInterceptor {
  const check = tokenChecker(opts.token);
  return (method, call) => {
    if (opts.healthWithoutToken && method.path.startsWith(HEALTH_PREFIX)) return new grpc.ServerInterceptingCall(call);
    const listener = new grpc.ServerListenerBuilder()
      .withOnReceiveMetadata((metadata, next) => {
        const problem = authProblem(metadata, check, "this daemon");
        if (problem) {
          call.sendStatus({ code: grpc.status.UNAUTHENTICATED, details: problem });
          return;
        }
        // Handlers never need the token; keep it out of anything that might log metadata.
        metadata.remove("authorization");
        next(metadata);
      })
      .build();
    return new grpc.ServerInterceptingCall(call, new grpc.ResponderBuilder().withStart((next) => next(listener)).build());
  };
}

/**
 * Refuses every call whose method starts with `prefix` with PERMISSION_DENIED, before its handler
 * runs (`--no-exec` refuses the whole Process service this way).
 */
export function denyInterceptor(prefix: string, details: string): grpc.ServerInterceptor {
  return (method, call) => {
    if (!method.path.startsWith(prefix)) return new grpc.ServerInterceptingCall(call);
    const listener = new grpc.ServerListenerBuilder().withOnReceiveMetadata(() => call.sendStatus({ code: grpc.status.PERMISSION_DENIED, details })).build();
    return new grpc.ServerInterceptingCall(call, new grpc.ResponderBuilder().withStart((next) => next(listener)).build());
  };
}
