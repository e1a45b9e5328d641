import { randomUUID } from "node:crypto";
import { isIP } from "node:net";
import * as grpc from "@grpc/grpc-js";
import { authProblem, serverCredentials, serviceDefinition, type TlsOptions, tokenChecker, toWireError, UnauthenticatedError } from "@pincer/shared";
import type { MachineAccess } from "./machineAccess.js";
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

/** A running episode server. */
export interface EpisodeServer {
  /** host:port it listens on. */
  address: string;
  /** Stops taking calls (running ones get `graceMs`). */
  close(graceMs?: number): Promise<void>;
}

type TokenCheck = (presented: string) => boolean;

type Handler = (req: never, signal: AbortSignal) => Promise<unknown> | unknown;

/** Options of {@link startEpisodeServer}. */
export interface EpisodeServerOptions {
  /** host:port to listen on. */
  listen: string;
  /** The token every call must carry; required beyond loopback unless clients prove themselves by certificate. */
  token?: string;
  /** TLS (certificate and key), mutual with `clientCa`: only clients whose certificate it signed connect. */
  tls?: TlsOptions;
  log?(line: string): void;
  /** Serves the daemon's services too, forwarded by grant (see machineAccess.ts). */
  machineAccess?: MachineAccess;
}

/** An error as the gRPC status the client gets; an internal one is logged with its stack. */
function statusOf(method: string, err: unknown, log?: (line: string) => void): grpc.StatusObject & { metadata?: grpc.Metadata } {
  const wire = toWireError(err, randomUUID().slice(0, 8));
  if (wire.isInternal) log?.(`${method}: ${(err as Error)?.stack ?? String(err)}`);
  const details = wire.isInternal ? `internal error: ${(err as Error)?.message ?? String(err)}` : wire.details;
  return { code: wire.code, details, metadata: wire.metadata ?? new grpc.Metadata() };
}

/** Episodes' unary methods, each checking the token first and cancelled with its call. */
function unaryHandlers(service: EpisodeService, check: TokenCheck | undefined, log?: (line: string) => void): grpc.UntypedServiceImplementation {
  const handlers: Record<string, Handler> = {
    ListTasks: (req) => service.listTasks(req),
    StartEpisode: (req, signal) => service.startEpisode(req, signal),
    Step: (req) => service.step(req),
    Observe: (req) => service.observe(req),
    Evaluate: (req) => service.evaluate(req),
    CloseEpisode: (req) => service.closeEpisode(req),
    RenewLease: (req) => service.renewLease(req),
    StartRecording: (req) => service.startRecording(req),
  };
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(handlers)) {
    implementation[name] = (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const problem = check && authProblem(call.metadata, check, "this server");
      if (problem) return callback({ code: grpc.status.UNAUTHENTICATED, details: problem });
      const cancelled = new AbortController();
      call.once("cancelled", () => cancelled.abort());
      Promise.resolve()
        .then(() => handler(call.request as never, cancelled.signal))
        .then(
          (res) => callback(null, res),
          (err: unknown) => callback(statusOf(name, err, log)),
        );
    };
  }
  return implementation;
}

type Stream = grpc.ServerWritableStream<unknown, unknown>;

/** A server-streaming method: checks the token first, cancels `run` with the call, ends the stream when `run` is done or sends its error. */
function streamHandler(
  method: string,
  run: (req: never, call: Stream, signal: AbortSignal) => Promise<void>,
  check: TokenCheck | undefined,
  log?: (line: string) => void,
): grpc.handleServerStreamingCall<unknown, unknown> {
  return (call) => {
    const fail = (err: unknown) => {
      const status = statusOf(method, err, log);
      if (!call.cancelled) call.emit("error", Object.assign(new Error(status.details), status));
    };
    const problem = check && authProblem(call.metadata, check, "this server");
    if (problem) return fail(new UnauthenticatedError(problem));
    const cancelled = new AbortController();
    call.once("cancelled", () => cancelled.abort());
    Promise.resolve()
      .then(() => run(call.request as never, call, cancelled.signal))
      .then(() => call.end(), fail);
  };
}

/** Writes `res`; when grpc-js holds too much already, waits for room. False: the client is gone. */
function written(call: Stream, res: unknown): Promise<boolean> {
  if (call.cancelled) return Promise.resolve(false);
  if (call.write(res)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = () => {
      call.off("drain", done);
      call.off("cancelled", done);
      resolve(!call.cancelled);
    };
    call.once("drain", done);
    call.once("cancelled", done);
  });
}

/** StartGroup streams each episode as it starts (the stream's end or error says the group is done); EndRecording streams a video. */
function streamHandlers(service: EpisodeService, check: TokenCheck | undefined, log?: (line: string) => void): grpc.UntypedServiceImplementation {
  // An episode is a small message: sent at once.
  const sendNow = (call: Stream) => (res: unknown) => {
    if (call.cancelled) return false;
    call.write(res);
    return true;
  };
  return {
    StartGroup: streamHandler("StartGroup", (req, call, signal) => service.startGroup(req, sendNow(call), signal), check, log),
    EndRecording: streamHandler("EndRecording", (req, call) => service.endRecording(req, (res) => written(call, res)), check, log),
  };
}

/**
 * Serves `service` as pincer.v1.Episodes on `listen`. With `token`, every call must carry
 * `authorization: Bearer <token>`; with `tls`, calls come over TLS (mutual TLS with a client CA).
 * Beyond loopback a token or mutual TLS is required. With `machineAccess`, the daemon's services
 * are served too, forwarded by grant (see machineAccess.ts).
 */
export async function startEpisodeServer(service: EpisodeService, opts: EpisodeServerOptions): Promise<EpisodeServer> {
  if (!opts.token && !opts.tls?.clientCa && !isLoopback(opts.listen)) {
    throw new Error(
      `--listen ${opts.listen} is beyond loopback: give a token with --token-file, or client certificates with --tls-client-ca ` +
        "(anyone who reaches the port could drive the machines)",
    );
  }
  const check = opts.token ? tokenChecker(opts.token) : undefined;
  const implementation = { ...unaryHandlers(service, check, opts.log), ...streamHandlers(service, check, opts.log) };
  const server = new grpc.Server({ "grpc.max_send_message_length": 200 * 1024 * 1024, "grpc.max_receive_message_length": 16 * 1024 * 1024 });
  server.addService(serviceDefinition("Episodes") as unknown as grpc.ServiceDefinition, implementation);
  // Grant tokens, not the server's token, open these.
  opts.machineAccess?.addTo(server);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(opts.listen, serverCredentials(opts.tls), (err, p) => (err ? reject(err) : resolve(p))),
  );
  const host = opts.listen.replace(/:\d+$/, "");
  if (opts.machineAccess) opts.machineAccess.address = `${host}:${port}`;
  return {
    address: `${host}:${port}`,
    close: (graceMs = 2_000) =>
      new Promise<void>((resolve) => {
        opts.machineAccess?.revokeAll("the server shut down");
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
