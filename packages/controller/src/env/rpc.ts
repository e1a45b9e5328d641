import * as grpc from "@grpc/grpc-js";
import {
  CancelledError,
  fromServiceError,
  methodKind,
  methodLabel,
  serviceDefinition,
  UnavailableError,
  type KindOf,
  type MethodName,
  type RequestOf,
  type ResponseOutputOf,
  type RuntimeMethod,
  type ServiceName,
} from "@pincer/shared";
import type { CallEntry, InFlightCalls } from "./linkHealth.js";
import type { CallOptions } from "./types.js";

/**
 * The one call layer between the `env` APIs and grpc-js. Every method of every service, unary or
 * streaming, goes through the same four steps: refuse when the connection is closed, set the
 * deadline, cancel on the caller's AbortSignal, and turn a failure into a typed `PincerError`.
 * Clients are built from the generated service definitions, so method paths, request and response
 * types and streaming kinds are inferred, never written by hand.
 */

/** The connection every call of one `env` goes over. */
export interface RpcChannel {
  /** The grpc-js client that owns the channel (one HTTP/2 connection per daemon). */
  readonly client: grpc.Client;
  /** "host:port", for error messages. */
  readonly address: string;
  /** Deadline of a call that gives no `timeoutMs`, in milliseconds. */
  readonly defaultTimeoutMs: number;
  /** True once the `env` was closed: calls then fail with UnavailableError without starting. */
  isClosed(): boolean;
  /** The calls under way, so that a machine found gone can fail them at once (see linkHealth.ts). */
  readonly calls: InFlightCalls;
}

/** A server-streaming call: iterate its messages once; `cancel()` ends it without an error. */
export interface ServerStreamCall<Res> extends AsyncIterable<Res> {
  cancel(): void;
}

/** A client-streaming call: write messages, then `end()`, then await `response`. */
export interface ClientStreamCall<Req, Res> {
  /**
   * Sends one message; resolves when the call can take more (flow control), rejects when the call
   * failed. `onWritten` runs once the message was written out (grpc-js's write callback, after Node's
   * HTTP/2 stream wrote its bytes); never if the call failed first.
   */
  write(message: Req, onWritten?: () => void): Promise<void>;
  /** No more messages. */
  end(): void;
  /** The reply, or the call's typed error. */
  readonly response: Promise<Res>;
  /** Cancels the call; the daemon keeps nothing of it. */
  cancel(): void;
}

/** A promise client of one service: one function per method, shaped by how the method streams. */
export type PromiseClient<S extends ServiceName> = {
  [M in MethodName<S>]: KindOf<S, M> extends "serverStream"
    ? (request: RequestOf<S, M>, opts?: CallOptions) => ServerStreamCall<ResponseOutputOf<S, M>>
    : KindOf<S, M> extends "clientStream"
      ? (opts?: CallOptions) => ClientStreamCall<RequestOf<S, M>, ResponseOutputOf<S, M>>
      : (request: RequestOf<S, M>, opts?: CallOptions) => Promise<ResponseOutputOf<S, M>>;
};

/** Builds the promise client of service `name` over `channel`. */
export function createPromiseClient<S extends ServiceName>(name: S, channel: RpcChannel): PromiseClient<S> {
  const methods: Record<string, unknown> = {};
  for (const [method, def] of Object.entries(serviceDefinition(name) as Record<string, RuntimeMethod>)) {
    const kind = methodKind(def);
    methods[method] =
      kind === "unary"
        ? (req: unknown, opts?: CallOptions) => unaryCall(channel, def, req, opts ?? {})
        : kind === "serverStream"
          ? (req: unknown, opts?: CallOptions) => serverStreamCall(channel, def, req, opts ?? {})
          : (opts?: CallOptions) => clientStreamCall(channel, def, opts ?? {});
  }
  return methods as PromiseClient<S>;
}

/** Why a call cannot start (closed connection, aborted signal), or undefined when it can. */
function refusal(channel: RpcChannel, label: string, signal: AbortSignal | undefined): Error | undefined {
  if (channel.isClosed()) return new UnavailableError(`${label}: the connection to ${channel.address} is closed`);
  if (signal?.aborted) return new CancelledError(`${label}: cancelled before it started`, { cause: signal.reason });
  return undefined;
}

function callOptions(channel: RpcChannel, opts: CallOptions): grpc.CallOptions {
  return { deadline: Date.now() + (opts.timeoutMs ?? channel.defaultTimeoutMs) };
}

/** A call's metadata; grpc-js takes wait-for-ready there, not among the call options. */
function metadataOf(opts: CallOptions): grpc.Metadata {
  return new grpc.Metadata(opts.waitForReady ? { waitForReady: true } : undefined);
}

/**
 * The typed error of a failed call, telling the caller's own abort apart from a server-side cancel,
 * and a deadline that passed because the connection is down (UnavailableError: the machine is
 * unreachable) apart from one that passed because the work was slow (TimeoutError).
 */
export function callError(label: string, channel: Pick<RpcChannel, "client" | "address">, err: unknown, signal?: AbortSignal): Error {
  const code = (err as grpc.ServiceError)?.code;
  if (signal?.aborted && code === grpc.status.CANCELLED) {
    return new CancelledError(`${label}: cancelled by the caller`, { cause: signal.reason });
  }
  if (code === grpc.status.DEADLINE_EXCEEDED) {
    const state = channel.client.getChannel().getConnectivityState(false);
    if (state === grpc.connectivityState.TRANSIENT_FAILURE || state === grpc.connectivityState.CONNECTING) {
      return new UnavailableError(
        `${label}: no answer from ${channel.address} before the deadline, and the connection to it is down ` +
          `(${grpc.connectivityState[state]}): check the network path to the machine`,
        { cause: err },
      );
    }
  }
  return fromServiceError(err, { method: label, address: channel.address });
}

/** Cancels `call` when `signal` aborts; returns the function that stops listening. */
function cancelOnAbort(call: { cancel(): void }, signal?: AbortSignal): () => void {
  if (!signal) return () => undefined;
  const onAbort = () => call.cancel();
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

/**
 * True for a failure that grpc-js reports when the client a call was queued on was replaced before
 * the call went out (the connection watchdog does that): the daemon never saw the call.
 */
function neverSent(err: unknown): boolean {
  const e = err as grpc.ServiceError;
  return e?.code === grpc.status.UNAVAILABLE && /before call started/.test(e.details ?? "");
}

function unaryCall(channel: RpcChannel, def: RuntimeMethod, req: unknown, opts: CallOptions): Promise<unknown> {
  const label = methodLabel(def);
  const refused = refusal(channel, label, opts.signal);
  if (refused) return Promise.reject(refused);
  const options = callOptions(channel, opts);
  return new Promise((resolve, reject) => {
    const send = () => {
      let stopListening: () => void = () => undefined;
      const call = channel.client.makeUnaryRequest(def.path, def.requestSerialize, def.responseDeserialize, req, metadataOf(opts), options, (err, res) => {
        stopListening();
        tracked.done();
        // A call that never left this process is sent again on the client that replaced its own.
        if (err && neverSent(err) && !channel.isClosed() && !opts.signal?.aborted && Date.now() < Number(options.deadline)) send();
        else if (err) reject(tracked.failure ?? callError(label, channel, err, opts.signal));
        else resolve(res);
      });
      const tracked = channel.calls.add(label, () => call.cancel());
      stopListening = cancelOnAbort(call, opts.signal);
    };
    send();
  });
}

function serverStreamCall(channel: RpcChannel, def: RuntimeMethod, req: unknown, opts: CallOptions): ServerStreamCall<unknown> {
  const label = methodLabel(def);
  const refused = refusal(channel, label, opts.signal);
  const call = refused
    ? undefined
    : channel.client.makeServerStreamRequest(def.path, def.requestSerialize, def.responseDeserialize, req, metadataOf(opts), callOptions(channel, opts));
  const stopListening = call ? cancelOnAbort(call, opts.signal) : () => undefined;
  const tracked = call ? channel.calls.add(label, () => call.cancel()) : undefined;
  // Its end, whether or not anyone reads it.
  call?.once("status", () => tracked?.done());
  let cancelled = false;
  return {
    cancel() {
      cancelled = true;
      call?.cancel();
    },
    async *[Symbol.asyncIterator]() {
      if (!call) throw refused;
      try {
        for await (const message of call as AsyncIterable<unknown>) yield message;
      } catch (err) {
        // cancel() ends the stream on purpose.
        if (cancelled && (err as grpc.ServiceError).code === grpc.status.CANCELLED) return;
        throw tracked?.failure ?? callError(label, channel, err, opts.signal);
      } finally {
        stopListening();
      }
    },
  };
}

function clientStreamCall(channel: RpcChannel, def: RuntimeMethod, opts: CallOptions): ClientStreamCall<unknown, unknown> {
  const label = methodLabel(def);
  const refused = refusal(channel, label, opts.signal);
  if (refused) {
    const response = Promise.reject(refused);
    response.catch(() => undefined);
    return { write: () => response.then(() => undefined), end: () => undefined, response, cancel: () => undefined };
  }
  let settled = false;
  let stopListening: () => void = () => undefined;
  let call!: grpc.ClientWritableStream<unknown>;
  let tracked: CallEntry | undefined;
  const response = new Promise<unknown>((resolve, reject) => {
    call = channel.client.makeClientStreamRequest(
      def.path,
      def.requestSerialize,
      def.responseDeserialize,
      metadataOf(opts),
      callOptions(channel, opts),
      (err, res) => {
        settled = true;
        stopListening();
        tracked?.done();
        if (err) reject(tracked?.failure ?? callError(label, channel, err, opts.signal));
        else resolve(res);
      },
    );
  });
  tracked = channel.calls.add(label, () => call.cancel());
  // A caller that stops at a failed write still sees the error there; this only keeps an
  // unread rejection from being reported as unhandled.
  response.catch(() => undefined);
  stopListening = cancelOnAbort(call, opts.signal);
  const settledError = () => response.then(() => Promise.reject(new UnavailableError(`${label}: the call already ended`)));
  return {
    response,
    end: () => call.end(),
    cancel: () => call.cancel(),
    write(message, onWritten) {
      if (settled) return settledError();
      const written = onWritten && ((err?: Error | null) => (err ? undefined : onWritten()));
      if (call.write(message, written)) return Promise.resolve();
      // Flow control: wait for room, or for the call to end, whichever comes first.
      return new Promise<void>((resolve, reject) => {
        const onDrain = () => resolve();
        call.once("drain", onDrain);
        settledError().catch((err: unknown) => {
          call.off("drain", onDrain);
          reject(err);
        });
      });
    },
  };
}
