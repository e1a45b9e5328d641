import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import * as grpc from "@grpc/grpc-js";
import { serviceDefinition, toWireError } from "@pincer/shared";
import type { EpisodeService } from "./service.js";

/** Where `pincer serve` listens by default: loopback, a free port. */
export const DEFAULT_LISTEN = "127.0.0.1:0";

/** Whether a listen address (host:port) is a loopback one, where no token is required. */
export function isLoopback(address: string): boolean {
  const host = address.replace(/:\d+$/, "").replace(/^\[|\]$/g, "");
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  return host === "::1";
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/** Why the call's metadata does not carry the token, or undefined when it does (constant-time). */
function authProblem(metadata: grpc.Metadata, want: Buffer): string | undefined {
  const values = metadata.get("authorization");
  if (values.length === 0) return "this server requires a token and the call carried none (send it as 'authorization: Bearer <token>' metadata)";
  if (values.length > 1) return "the call carried several authorization values; send exactly one 'Bearer <token>'";
  const m = /^Bearer[ \t]+(\S+)\s*$/i.exec(String(values[0]));
  if (!m) return "the authorization metadata is not one 'Bearer <token>' value";
  if (!timingSafeEqual(digest(m[1]!), want)) return "the token is wrong";
  return undefined;
}

/** A running episode server. */
export interface EpisodeServer {
  /** host:port it listens on. */
  address: string;
  /** Stops taking calls (running ones get `graceMs`). */
  close(graceMs?: number): Promise<void>;
}

type Handler = (req: never, signal: AbortSignal) => Promise<unknown> | unknown;

/**
 * Serves `service` as pincer.v1.Episodes on `listen`. With `token`, every call must carry
 * `authorization: Bearer <token>`; without one, only a loopback address is accepted.
 */
export async function startEpisodeServer(service: EpisodeService, opts: { listen: string; token?: string; log?(line: string): void }): Promise<EpisodeServer> {
  if (!opts.token && !isLoopback(opts.listen)) {
    throw new Error(`--listen ${opts.listen} is beyond loopback: give a token with --token-file (anyone who reaches the port could drive the machines)`);
  }
  const want = opts.token ? digest(opts.token) : undefined;
  const handlers: Record<string, Handler> = {
    ListTasks: (req) => service.listTasks(req),
    StartEpisode: (req, signal) => service.startEpisode(req, signal),
    Step: (req) => service.step(req),
    Observe: (req) => service.observe(req),
    Evaluate: (req) => service.evaluate(req),
    CloseEpisode: (req) => service.closeEpisode(req),
    RenewLease: (req) => service.renewLease(req),
    StartGroup: (req, signal) => service.startGroup(req, signal),
  };
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(handlers)) {
    implementation[name] = (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      if (want) {
        const problem = authProblem(call.metadata, want);
        if (problem) return callback({ code: grpc.status.UNAUTHENTICATED, details: problem });
      }
      const cancelled = new AbortController();
      call.once("cancelled", () => cancelled.abort());
      Promise.resolve()
        .then(() => handler(call.request as never, cancelled.signal))
        .then(
          (res) => callback(null, res),
          (err: unknown) => {
            const wire = toWireError(err, randomUUID().slice(0, 8));
            if (wire.isInternal) opts.log?.(`${name}: ${(err as Error)?.stack ?? String(err)}`);
            callback({
              code: wire.code,
              details: wire.isInternal ? `internal error: ${(err as Error)?.message ?? String(err)}` : wire.details,
              ...(wire.metadata ? { metadata: wire.metadata } : {}),
            });
          },
        );
    };
  }
  const server = new grpc.Server({ "grpc.max_send_message_length": 200 * 1024 * 1024, "grpc.max_receive_message_length": 16 * 1024 * 1024 });
  server.addService(serviceDefinition("Episodes") as unknown as grpc.ServiceDefinition, implementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(opts.listen, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  const host = opts.listen.replace(/:\d+$/, "");
  return {
    address: `${host}:${port}`,
    close: (graceMs = 2_000) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}
