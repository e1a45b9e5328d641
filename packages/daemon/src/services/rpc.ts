import { randomUUID } from "node:crypto";
import * as grpc from "@grpc/grpc-js";
import {
  InvalidArgumentError,
  KeyNameError,
  methodKind,
  methodLabel,
  PincerError,
  ResourceExhaustedError,
  serviceDefinition,
  toWireError,
  type KindOf,
  type MethodName,
  type RequestOutputOf,
  type ResponseOf,
  type RuntimeMethod,
  type ServiceDefinitionOf,
  type ServiceName,
} from "@pincer/shared";
import type { Logger } from "../logger.js";

/** What a handler gets besides its request. */
export interface CallContext {
  /** Aborts when the client cancels or the deadline passes. */
  signal: AbortSignal;
  peer: string;
}

/** A unary handler: answers one request. */
export type UnaryHandler<S extends ServiceName, M extends MethodName<S>> = (req: RequestOutputOf<S, M>, ctx: CallContext) => Promise<ResponseOf<S, M>>;

/** A server-streaming handler: writes to `call`; the call is ended when the promise resolves. */
export type ServerStreamHandler<S extends ServiceName, M extends MethodName<S>> = (
  call: grpc.ServerWritableStream<RequestOutputOf<S, M>, ResponseOf<S, M>>,
  ctx: CallContext,
) => Promise<void>;

/** A client-streaming handler: reads `call` itself and answers once. */
export type ClientStreamHandler<S extends ServiceName, M extends MethodName<S>> = (
  call: grpc.ServerReadableStream<RequestOutputOf<S, M>, ResponseOf<S, M>>,
  ctx: CallContext,
) => Promise<ResponseOf<S, M>>;

/** The handler of method `M`, shaped by how the method streams. */
export type HandlerOf<S extends ServiceName, M extends MethodName<S>> =
  KindOf<S, M> extends "serverStream" ? ServerStreamHandler<S, M> : KindOf<S, M> extends "clientStream" ? ClientStreamHandler<S, M> : UnaryHandler<S, M>;

/** One handler for every method of service `S`: a missing or unknown method is a type error. */
export type ServiceHandlers<S extends ServiceName> = { [M in MethodName<S>]: HandlerOf<S, M> };

/** A service ready for `grpc.Server.addService(definition, implementation)`. */
export interface DefinedService<S extends ServiceName> {
  name: S;
  definition: ServiceDefinitionOf<S> & Record<string, RuntimeMethod>;
  implementation: grpc.UntypedServiceImplementation;
}

/** How many calls of one method run at once, and how many more may wait for a place. */
export interface CallLimit {
  running: number;
  /** Calls beyond `running` that wait (in order) for a place; more are RESOURCE_EXHAUSTED at once. @default 0 */
  waiting?: number;
}

/** Options of {@link defineService}. */
export interface DefineServiceOptions<S extends ServiceName> {
  /**
   * Limits on calls of a method at once, for methods whose work costs memory or CPU until it stops
   * (a tree walk, a long wait, a screenshot). A call holds its place until its handler has
   * finished, so a cancelled call that is still stopping counts; a waiting call that is cancelled
   * leaves the line.
   */
  concurrency?: { [M in MethodName<S>]?: CallLimit };
}

/**
 * Builds the grpc-js implementation of service `name` from async handlers. Each method is wrapped
 * by how its runtime definition streams, and named in logs and errors as in "Input/Click"; no
 * method path or name is written by hand.
 */
export function defineService<S extends ServiceName>(
  name: S,
  log: Logger,
  handlers: ServiceHandlers<S>,
  opts: DefineServiceOptions<S> = {},
): DefinedService<S> {
  const definition = serviceDefinition(name);
  const given = handlers as unknown as Record<string, Handler | undefined>;
  const strays = Object.keys(given).filter((m) => !Object.hasOwn(definition, m));
  if (strays.length > 0) throw new Error(`${name}: no such method ${strays.join(", ")}`);
  const implementation: grpc.UntypedServiceImplementation = {};
  const served: Record<string, RuntimeMethod> = {};
  for (const [method, def] of Object.entries(definition as Record<string, RuntimeMethod>)) {
    const handler = given[method];
    if (!handler) throw new Error(`${methodLabel(def)}: no handler`);
    const limit = (opts.concurrency as Record<string, CallLimit | undefined> | undefined)?.[method];
    implementation[method] = wrap(def, log, limit === undefined ? handler : limited(methodLabel(def), limit, handler));
    served[method] = { ...def, requestDeserialize: tolerantDeserialize(def.requestDeserialize) };
  }
  return { name, definition: served as DefinedService<S>["definition"], implementation };
}

/**
 * A request that did not decode as its method's message. grpc-js answers a decoder that throws with
 * INTERNAL, which blames the daemon; this stands in for the request instead, and the handler
 * wrappers answer INVALID_ARGUMENT (an Upload's stream gets it as a message that is neither header,
 * chunk nor trailer, which the upload refuses as INVALID_ARGUMENT too).
 */
class UndecodableRequest {
  constructor(readonly reason: string) {}
}

function tolerantDeserialize(deserialize: (bytes: Buffer) => unknown): (bytes: Buffer) => unknown {
  return (bytes) => {
    try {
      return deserialize(bytes);
    } catch (err) {
      return new UndecodableRequest(err instanceof Error ? err.message : String(err));
    }
  };
}

/** The request, or INVALID_ARGUMENT when it did not decode. */
function decoded<Req>(method: string, request: Req): Req {
  if (request instanceof UndecodableRequest) {
    throw new InvalidArgumentError(`the request is not a valid message for ${method} (${request.reason}); encode it from proto/pincer/v1`);
  }
  return request;
}

// Handlers once the service's types are erased; `defineService` checked them against the contract.
// biome-ignore lint/suspicious/noExplicitAny: requests and responses are whatever the method's are
type Handler = (arg: any, ctx: CallContext) => Promise<any>;

/**
 * `handler` under `limit`: at most `running` calls in it at once, `waiting` more in line (in
 * order; one whose signal fires leaves the line and rejects with its reason), RESOURCE_EXHAUSTED
 * naming `method` beyond.
 */
export function limited<Arg, Res>(
  method: string,
  limit: CallLimit,
  handler: (arg: Arg, ctx: CallContext) => Promise<Res>,
): (arg: Arg, ctx: CallContext) => Promise<Res> {
  let running = 0;
  const line: Array<() => void> = [];
  const room = limit.waiting ?? 0;
  return async (arg, ctx) => {
    if (running < limit.running) running++;
    else {
      if (line.length >= room) {
        const waiting = room > 0 ? ` and ${room} waiting` : "";
        throw new ResourceExhaustedError(`${method}: ${limit.running} calls running${waiting}, the most this daemon takes at once; retry when one has ended`);
      }
      ctx.signal.throwIfAborted();
      await new Promise<void>((go, stop) => {
        const leave = () => {
          line.splice(line.indexOf(turn), 1);
          stop(ctx.signal.reason);
        };
        const turn = () => {
          ctx.signal.removeEventListener("abort", leave);
          go();
        };
        line.push(turn);
        ctx.signal.addEventListener("abort", leave, { once: true });
      });
      // The call that ended handed its place over: `running` did not change.
    }
    try {
      return await handler(arg, ctx);
    } finally {
      const next = line.shift();
      if (next) next();
      else running--;
    }
  };
}

function wrap(def: RuntimeMethod, log: Logger, handler: Handler): grpc.UntypedHandleCall {
  const label = methodLabel(def);
  switch (methodKind(def)) {
    case "unary":
      return unary(label, log, handler);
    case "clientStream":
      return clientStream(label, log, handler);
    case "serverStream":
      return serverStream(label, log, handler);
  }
}

/**
 * Wraps an async handler as a grpc-js unary handler: the call's cancellation becomes an
 * AbortSignal, typed errors keep their status, anything else becomes INTERNAL with an incident id
 * on the wire and the detail in the daemon log.
 */
function unary<Req, Res>(method: string, log: Logger, handler: (req: Req, ctx: CallContext) => Promise<Res>): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const ctx = new ServerCallContext(call);
    Promise.resolve()
      .then(() => handler(decoded(method, call.request), ctx))
      .then(...answer(method, log, ctx, callback));
  };
}

/** Like {@link unary} for a client-streaming call: the handler reads `call` itself. */
function clientStream<Req, Res>(
  method: string,
  log: Logger,
  handler: (call: grpc.ServerReadableStream<Req, Res>, ctx: CallContext) => Promise<Res>,
): grpc.handleClientStreamingCall<Req, Res> {
  return (call, callback) => {
    const ctx = new ServerCallContext(call);
    handler(call, ctx).then(...answer(method, log, ctx, callback));
  };
}

/** What a unary or client-streaming call's handler settles with: the response, or the status of its error. */
function answer<Res>(method: string, log: Logger, ctx: ServerCallContext, callback: grpc.sendUnaryData<Res>) {
  return [
    (res: Res) => {
      ctx.settle();
      callback(null, res);
    },
    (err: unknown) => callback(ctx.settle(wireError(method, log, err, ctx.signal))),
  ] as const;
}

/** Like {@link unary} for a server-streaming call: the handler writes to `call`; this ends it. */
function serverStream<Req, Res>(
  method: string,
  log: Logger,
  handler: (call: grpc.ServerWritableStream<Req, Res>, ctx: CallContext) => Promise<void>,
): grpc.handleServerStreamingCall<Req, Res> {
  return (call) => {
    const ctx = new ServerCallContext(call);
    Promise.resolve()
      .then(() => decoded(method, call.request) && handler(call, ctx))
      .then(
        () => {
          ctx.settle();
          call.end();
        },
        (err: unknown) => {
          // grpc-js ends a server stream with the status of an 'error' event; destroy() would end
          // it without sending any status, and the client would wait for its deadline.
          const wire = ctx.settle(wireError(method, log, err, ctx.signal));
          if (!ctx.signal.aborted) call.emit("error", Object.assign(new Error(), wire));
        },
      );
  };
}

/** How far before this end's deadline a client's cancel still counts as its deadline passing, in ms. */
const DEADLINE_SLACK_MS = 100;

/** Why a call was cancelled: the `reason` of its context's signal. */
class CallCancelled extends Error {}

type ServerCall = {
  on(event: "cancelled", listener: () => void): unknown;
  removeListener(event: "cancelled", listener: () => void): unknown;
  cancelled: boolean;
  getPeer(): string;
  getDeadline(): grpc.Deadline;
};

/**
 * A call's context for its handler. Its signal aborts when the client cancels the call or its
 * deadline passes while the handler runs; it is made only when the handler asks for it.
 *
 * grpc-js reports every call as cancelled once its status is sent (notifyOnCancel). After the
 * handler has settled that is ignored: nothing tied to the signal is stopped for a call that ended
 * well, and an ended call makes no error object.
 */
class ServerCallContext implements CallContext {
  #controller: AbortController | undefined;
  #reason: CallCancelled | undefined;
  #peer: string | undefined;
  readonly #call: ServerCall;
  readonly #cancel = () => this.cancel();

  constructor(call: ServerCall) {
    this.#call = call;
    call.on("cancelled", this.#cancel);
    // Cancelled before its handler started: the event has come and gone.
    if (call.cancelled) this.cancel();
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#reason) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  get peer(): string {
    this.#peer ??= this.#call.getPeer();
    return this.#peer;
  }

  /** The handler is done: a cancel from here on is grpc-js's end-of-call notice. Returns `value`. */
  settle<T>(value?: T): T {
    this.#call.removeListener("cancelled", this.#cancel);
    return value as T;
  }

  private cancel(): void {
    if (this.#reason) return;
    const deadline = this.#call.getDeadline();
    const at = deadline instanceof Date ? deadline.getTime() : deadline;
    // A client cancels its call when its deadline passes, a moment before this end's copy of it
    // (taken when the request arrived) does: that is a deadline too.
    const why = Number.isFinite(at) && Date.now() >= at - DEADLINE_SLACK_MS ? "the call's deadline passed" : "the client cancelled the call";
    this.#reason = new CallCancelled(why);
    this.#controller?.abort(this.#reason);
  }
}

/** A key name the request got wrong, as INVALID_ARGUMENT naming its field when the key error knows it. */
function keyNameError(err: KeyNameError): InvalidArgumentError {
  const prefix = `${err.field}: `;
  if (!err.field || !err.message.startsWith(prefix)) return new InvalidArgumentError(err.message);
  return new InvalidArgumentError(err.message, { field: err.field, description: err.message.slice(prefix.length) });
}

/**
 * The status a failed call ends with: code, message and, when the error names request fields, the
 * `grpc-status-details-bin` trailer with a google.rpc.BadRequest (grpc-js sends `metadata` as trailers).
 * A call whose client went away (cancelled, or past its deadline) is logged as such, whatever its
 * handler threw on the way out: nobody hears its status, and it is no fault of the daemon.
 */
function wireError(method: string, log: Logger, err: unknown, signal: AbortSignal): { code: number; details: string; metadata?: grpc.Metadata } {
  if (signal.aborted) {
    const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason);
    // What the handler threw on its way out, unless that is the cancellation itself.
    const thrown = err === signal.reason || err instanceof PincerError ? {} : { error: err instanceof Error ? err.message : String(err) };
    log.info("call cancelled", { method, reason, ...thrown });
    return { code: grpc.status.CANCELLED, details: reason };
  }
  const mapped = err instanceof KeyNameError ? keyNameError(err) : err;
  const incident = randomUUID().slice(0, 8);
  const wire = toWireError(mapped, incident);
  if (wire.isInternal) {
    log.error("internal error", { method, incident, error: err instanceof Error ? err.stack : String(err) });
  }
  return { code: wire.code, details: wire.details, ...(wire.metadata ? { metadata: wire.metadata } : {}) };
}
