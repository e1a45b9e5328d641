import * as grpc from "@grpc/grpc-js";
import {
  methodKind,
  methodLabel,
  PincerError,
  serviceDefinition,
  UnavailableError,
  type KindOf,
  type MethodName,
  type RequestOf,
  type ResponseOutputOf,
  type RuntimeMethod,
  type ServiceName,
} from "@pincer/shared";
import { runChain, type RpcCall, type RpcChannel, type RpcHandler } from "./interceptors.js";
import type { CallOptions } from "./types.js";

export { callError } from "./interceptors.js";
export type { RpcChannel } from "./interceptors.js";

/**
 * The one call layer between the `env` APIs and grpc-js. Every method of every service, unary or
 * streaming, goes through one chain of interceptors (interceptors.ts): the user's, then the
 * built-in steps (refuse when the connection is closed, cancel on the caller's AbortSignal, type
 * deadline failures, track the call for link health, turn a failure into a typed `PincerError`),
 * then the transport here, which sends it with grpc-js. Clients are built from the generated
 * service definitions, so method paths, request and response types and streaming kinds are
 * inferred, never written by hand.
 */

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

/** The call as interceptors see it: its deadline counts from now, as the caller made it. */
function rpcCall(channel: RpcChannel, def: RuntimeMethod, request: unknown, opts: CallOptions): RpcCall {
  const [service = "", method = ""] = methodLabel(def).split("/");
  return {
    service,
    method,
    kind: methodKind(def),
    request,
    address: channel.address,
    deadline: Date.now() + (opts.timeoutMs ?? channel.defaultTimeoutMs),
    signal: opts.signal,
    // grpc-js takes wait-for-ready among the metadata's options, not among the call options.
    metadata: new grpc.Metadata(opts.waitForReady ? { waitForReady: true } : undefined),
  };
}

/** Cancels `call` when `signal` aborts; returns the function that stops listening. */
function cancelOnAbort(call: { cancel(): void }, signal?: AbortSignal): () => void {
  if (!signal) return () => undefined;
  const onAbort = () => call.cancel();
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

/** The error of a streaming call's `next` called a second time (an interceptor that retries it). */
function sentTwice(call: RpcCall): Error {
  return new PincerError(`${call.service}/${call.method}: an interceptor called next twice; a streaming call is sent once`);
}

/** The metadata and options grpc-js sends `call` with (a copy of the metadata per send: grpc-js may add to it). */
function sendOptions(call: RpcCall): [grpc.Metadata, grpc.CallOptions] {
  return [call.metadata.clone(), { deadline: call.deadline }];
}

function unaryCall(channel: RpcChannel, def: RuntimeMethod, req: unknown, opts: CallOptions): Promise<unknown> {
  const transport: RpcHandler = (call) =>
    new Promise((resolve, reject) => {
      let stopListening: () => void = () => undefined;
      const sent = channel.client.makeUnaryRequest(def.path, def.requestSerialize, def.responseDeserialize, call.request, ...sendOptions(call), (err, res) => {
        stopListening();
        if (err) reject(err);
        else resolve(res);
      });
      stopListening = cancelOnAbort(sent, call.signal);
    });
  return runChain(channel, rpcCall(channel, def, req, opts), transport);
}

/**
 * The transport of a server-streaming call: sends it, hands the stream to `onStart`, and settles
 * with the stream's status (the error grpc-js emits for it when it is not OK).
 */
function serverStreamTransport(channel: RpcChannel, def: RuntimeMethod, onStart: (stream: grpc.ClientReadableStream<unknown>) => void): RpcHandler {
  let sent = false;
  return (call) =>
    new Promise((resolve, reject) => {
      if (sent) throw sentTwice(call);
      sent = true;
      const stream = channel.client.makeServerStreamRequest(def.path, def.requestSerialize, def.responseDeserialize, call.request, ...sendOptions(call));
      const stopListening = cancelOnAbort(stream, call.signal);
      let failure: unknown;
      // Also keeps an error nobody reads yet (the stream not iterated) from being thrown as unhandled.
      stream.on("error", (err) => (failure ??= err));
      // Its end, whether or not anyone reads it.
      stream.once("status", (status: grpc.StatusObject) => {
        stopListening();
        if (status.code === grpc.status.OK) resolve(undefined);
        else reject(failure ?? Object.assign(new Error(status.details), status));
      });
      onStart(stream);
    });
}

/** True for the end of a stream that `cancel()` ended on purpose. */
function cancelledOnPurpose(cancelled: boolean, err: unknown): boolean {
  return cancelled && (err as grpc.ServiceError | undefined)?.code === grpc.status.CANCELLED;
}

function serverStreamCall(channel: RpcChannel, def: RuntimeMethod, req: unknown, opts: CallOptions): ServerStreamCall<unknown> {
  let stream: grpc.ClientReadableStream<unknown> | undefined;
  let cancelled = false;
  let started!: (s: grpc.ClientReadableStream<unknown>) => void;
  const whenSent = new Promise<grpc.ClientReadableStream<unknown>>((resolve) => (started = resolve));
  const onStart = (s: grpc.ClientReadableStream<unknown>) => {
    stream = s;
    if (cancelled) s.cancel();
    started(s);
  };
  const outcome = runChain(channel, rpcCall(channel, def, req, opts), serverStreamTransport(channel, def, onStart));
  // Read by the iterator; a stream nobody iterates must not report its failure as unhandled.
  outcome.catch(() => undefined);
  // The stream once sent, or undefined when the chain ended without sending it (refused, or answered by an interceptor).
  const whenStarted = Promise.race([whenSent, outcome.then(noStream, noStream)]);
  // The chain's outcome, the typed error a failed stream ends with (undefined when it ended well or was cancelled on purpose).
  const failure = () => outcome.then(noStream, (err: unknown) => (cancelledOnPurpose(cancelled, err) ? undefined : err));
  return {
    cancel() {
      cancelled = true;
      stream?.cancel();
    },
    async *[Symbol.asyncIterator]() {
      const s = await whenStarted;
      if (s) {
        try {
          for await (const message of s as AsyncIterable<unknown>) yield message;
        } catch (err) {
          if (cancelledOnPurpose(cancelled, err)) return;
        }
      }
      const err = await failure();
      if (err !== undefined) throw err;
    },
  };
}

function noStream(): undefined {
  return undefined;
}

/** A client-streaming call's grpc-js stream, once the chain sent it, and whether it ended. */
interface ClientStreamState {
  call: grpc.ClientWritableStream<unknown> | undefined;
  settled: boolean;
}

/** The transport of a client-streaming call: sends it, hands the stream to `onStart`, and settles with its reply. */
function clientStreamTransport(
  channel: RpcChannel,
  def: RuntimeMethod,
  state: ClientStreamState,
  onStart: (call: grpc.ClientWritableStream<unknown>) => void,
): RpcHandler {
  return (call) =>
    new Promise((resolve, reject) => {
      if (state.call) throw sentTwice(call);
      let stopListening: () => void = () => undefined;
      const sent = channel.client.makeClientStreamRequest(def.path, def.requestSerialize, def.responseDeserialize, ...sendOptions(call), (err, res) => {
        state.settled = true;
        stopListening();
        if (err) reject(err);
        else resolve(res);
      });
      stopListening = cancelOnAbort(sent, call.signal);
      state.call = sent;
      onStart(sent);
    });
}

function clientStreamCall(channel: RpcChannel, def: RuntimeMethod, opts: CallOptions): ClientStreamCall<unknown, unknown> {
  const label = methodLabel(def);
  const state: ClientStreamState = { call: undefined, settled: false };
  let started!: (call: grpc.ClientWritableStream<unknown>) => void;
  const whenSent = new Promise<grpc.ClientWritableStream<unknown>>((resolve) => (started = resolve));
  const response = runChain(
    channel,
    rpcCall(channel, def, undefined, opts),
    clientStreamTransport(channel, def, state, (call) => started(call)),
  );
  const ended = () => {
    state.settled = true;
    return undefined;
  };
  // A caller that stops at a failed write still sees the error there; this only keeps an
  // unread rejection from being reported as unhandled.
  response.then(ended, ended);
  // The stream once sent, or undefined when the chain ended without sending it (refused, or answered by an interceptor).
  // What comes before the call was sent waits for it, in order: writes, then end() or cancel().
  const whenStarted = Promise.race([whenSent, response.then(noStream, noStream)]);
  const settledError = () => response.then(() => Promise.reject(new UnavailableError(`${label}: the call already ended`)));
  const write = (message: unknown, onWritten?: () => void): Promise<void> => {
    const call = state.call;
    if (state.settled) return settledError();
    if (!call) return whenStarted.then((c) => (c ? write(message, onWritten) : settledError()));
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
  };
  return {
    response,
    write,
    end: () => (state.call ? state.call.end() : void whenStarted.then((c) => c?.end())),
    cancel: () => (state.call ? state.call.cancel() : void whenStarted.then((c) => c?.cancel())),
  };
}
