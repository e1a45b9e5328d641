import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import type { Http2Server, IncomingHttpHeaders } from "node:http2";
import * as grpc from "@grpc/grpc-js";

/** Methods of the standard health service; callable without a token unless --health-auth. */
export const HEALTH_PREFIX = "/grpc.health.v1.Health/";

/** Shortest token accepted: 16 characters (`openssl rand -hex 32` gives 64). */
export const MIN_TOKEN_LENGTH = 16;

/** Checks a token's shape; returns it trimmed. `source` names where it came from for the message. */
export function validToken(token: string, source: string): string {
  const t = token.trim();
  if (t.length < MIN_TOKEN_LENGTH) {
    throw new Error(`${source}: the token is ${t.length ? `shorter than ${MIN_TOKEN_LENGTH} characters` : "empty"}; generate one with: openssl rand -hex 32`);
  }
  if (/\s/.test(t)) throw new Error(`${source}: the token contains whitespace`);
  return t;
}

/**
 * Reads a token file. Returns the token and, when the file is readable by group or others, a
 * warning to put in the log (a refusal would break secrets mounted 0644 by container runtimes).
 */
export function readTokenFile(path: string): { token: string; warning?: string } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new Error(`--token-file ${path}: ${(err as Error).message}`);
  }
  const token = validToken(text, `--token-file ${path}`);
  const mode = statSync(path).mode & 0o777;
  const warning = mode & 0o077 ? `token file ${path} is readable by other users (mode ${mode.toString(8)}); chmod 600 it` : undefined;
  return { token, warning };
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/**
 * A constant-time token check: both sides are hashed to 32 bytes first, so neither the content
 * nor the length of the expected token leaks through timing.
 */
export function tokenChecker(token: string): (presented: string) => boolean {
  const want = digest(token);
  return (presented) => timingSafeEqual(digest(presented), want);
}

/** Why the call's metadata does not authenticate it, or undefined when it does. */
export function authProblem(metadata: grpc.Metadata, check: (presented: string) => boolean): string | undefined {
  const values = metadata.get("authorization");
  if (values.length === 0) {
    return "this daemon requires a token and the call carried none (send it as 'authorization: Bearer <token>' metadata)";
  }
  const m = /^Bearer[ \t]+(\S+)\s*$/i.exec(String(values[0]));
  if (values.length > 1) return "the call carried several authorization values; send exactly one 'Bearer <token>'";
  if (!m) return "the authorization metadata is not one 'Bearer <token>' value";
  if (!check(m[1]!)) return "the token is wrong";
  return undefined;
}

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
        const problem = authProblem(metadata, check);
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
