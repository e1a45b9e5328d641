import * as grpc from "@grpc/grpc-js";
import { CancelledError, fromServiceError, PincerError, UnavailableError } from "@pincer/shared";
import type { InFlightCalls } from "./linkHealth.js";

/**
 * Interceptors: the chain every call of an `env` goes through, unary and streaming, as in nice-grpc
 * (client middleware) and connect-es (`Interceptor = (next) => async (req) => …`). The built-in
 * steps (a closed connection, error types, cancellation, deadlines, link health, resending a call
 * that never left) are interceptors too; those a user gives (`connect(address, { interceptors })`)
 * come first, so they see every call as its caller does: the options it was made with, and the
 * typed error it ends with.
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
  /** The user's interceptors, outermost first, around every call (see {@link RpcInterceptor}). @default none */
  readonly interceptors?: readonly RpcInterceptor[];
}

/** How a call streams: one request and one reply, a stream of replies, or a stream of requests. */
export type RpcCallKind = "unary" | "serverStream" | "clientStream";

/** One call on its way to the daemon, as interceptors see it. */
export interface RpcCall {
  /** The service, as the .proto names it: "Process". */
  readonly service: string;
  /** The method, as the .proto names it: "Run". Errors name a call "Process/Run". */
  readonly method: string;
  /** How the call streams. */
  readonly kind: RpcCallKind;
  /**
   * The request message (its wire form) of a unary or server-streaming call; undefined for a
   * client-streaming one, whose messages are written after it started and pass no interceptor.
   */
  readonly request: unknown;
  /** "host:port" of the daemon. */
  readonly address: string;
  /**
   * When the call fails with a TimeoutError, in milliseconds since the epoch (as `Date.now()`): its
   * `timeoutMs` (default: the env's `defaultTimeoutMs`) from when it was made, so time interceptors
   * spend before sending it counts, as a gRPC deadline does.
   */
  readonly deadline: number;
  /** The caller's AbortSignal, if any: aborting it cancels the call with a CancelledError. */
  readonly signal: AbortSignal | undefined;
  /**
   * The metadata (gRPC headers) sent with the call: add entries with `metadata.set(key, value)`
   * before calling `next`. Replacing it loses the call's wait-for-ready option, which it carries.
   */
  readonly metadata: grpc.Metadata;
}

/**
 * The rest of the chain: sends `call` and settles with its outcome. A unary call resolves with the
 * reply message; a server-streaming one with undefined once its stream ended well (its messages go
 * to the caller, past the interceptors); a client-streaming one with the reply. Every failure is a
 * typed `PincerError` (TimeoutError, CancelledError, UnavailableError, NotFoundError, …).
 */
export type RpcHandler = (call: RpcCall) => Promise<unknown>;

/**
 * A step around every call: gets the rest of the chain (`next`) and returns the handler that runs
 * in its place, for each call anew. It may read or change the call (pass `next` a changed copy:
 * `next({ ...call, deadline })`, or set metadata), time it, and see or replace its outcome. A
 * streaming call is sent at most once: call `next` once for it. An error an interceptor throws of
 * its own (not one `next` gave it, and not a `PincerError`) ends the call with a `PincerError`
 * that names the interceptor and the call, its `cause` the error thrown.
 *
 * @example
 * const logging: RpcInterceptor = (next) => async (call) => {
 *   const started = Date.now();
 *   try {
 *     return await next(call);
 *   } finally {
 *     console.log(`${call.service}/${call.method} ${Date.now() - started} ms`);
 *   }
 * };
 * const env = connect("127.0.0.1:50051", { interceptors: [logging] });
 */
export type RpcInterceptor = (next: RpcHandler) => RpcHandler;

/** "Process/Run": how errors name a call. */
export function labelOf(call: RpcCall): string {
  return `${call.service}/${call.method}`;
}

/** True for a failure as grpc-js reports it (a status with a numeric code), not yet a typed error. */
function isStatusError(err: unknown): err is grpc.ServiceError {
  return !(err instanceof PincerError) && typeof (err as grpc.ServiceError | undefined)?.code === "number";
}

/** The CancelledError of a call the caller's own signal cancelled, or undefined for any other failure. */
function callerCancelled(label: string, err: unknown, signal: AbortSignal | undefined): Error | undefined {
  if (!signal?.aborted || (err as grpc.ServiceError | undefined)?.code !== grpc.status.CANCELLED) return undefined;
  return new CancelledError(`${label}: cancelled by the caller`, { cause: signal.reason });
}

/**
 * The UnavailableError of a deadline that passed while the connection was down (the machine is
 * unreachable, not slow), or undefined for any other failure.
 */
function deadlineWhileDown(label: string, channel: Pick<RpcChannel, "client" | "address">, err: unknown): Error | undefined {
  if ((err as grpc.ServiceError | undefined)?.code !== grpc.status.DEADLINE_EXCEEDED) return undefined;
  const state = channel.client.getChannel().getConnectivityState(false);
  if (state !== grpc.connectivityState.TRANSIENT_FAILURE && state !== grpc.connectivityState.CONNECTING) return undefined;
  return new UnavailableError(
    `${label}: no answer from ${channel.address} before the deadline, and the connection to it is down ` +
      `(${grpc.connectivityState[state]}): check the network path to the machine`,
    { cause: err },
  );
}

/**
 * The typed error of a failed call, telling the caller's own abort apart from a server-side cancel,
 * and a deadline that passed because the connection is down (UnavailableError: the machine is
 * unreachable) apart from one that passed because the work was slow (TimeoutError).
 */
export function callError(label: string, channel: Pick<RpcChannel, "client" | "address">, err: unknown, signal?: AbortSignal): Error {
  return callerCancelled(label, err, signal) ?? deadlineWhileDown(label, channel, err) ?? fromServiceError(err, { method: label, address: channel.address });
}

/** Refuses a call on a closed connection with UnavailableError; nothing is sent. */
function refuseWhenClosed(channel: RpcChannel): RpcInterceptor {
  return (next) => (call) =>
    channel.isClosed() ? Promise.reject(new UnavailableError(`${labelOf(call)}: the connection to ${channel.address} is closed`)) : next(call);
}

/** Turns a failure grpc-js reports into its typed error (the steps inside it type the special cases first). */
function typedErrors(channel: RpcChannel): RpcInterceptor {
  return (next) => (call) =>
    next(call).catch((err: unknown) => {
      throw isStatusError(err) ? fromServiceError(err, { method: labelOf(call), address: channel.address }) : err;
    });
}

/**
 * Cancellation: a call whose signal already aborted is refused, and one cancelled by its signal
 * ends with CancelledError. (The transport cancels the call when the signal it is given aborts.)
 */
function cancellation(): RpcInterceptor {
  return (next) => (call) => {
    if (call.signal?.aborted) return Promise.reject(new CancelledError(`${labelOf(call)}: cancelled before it started`, { cause: call.signal.reason }));
    return next(call).catch((err: unknown) => {
      throw (isStatusError(err) && callerCancelled(labelOf(call), err, call.signal)) || err;
    });
  };
}

/**
 * Deadlines: grpc-js ends a call at `call.deadline` (and tells the daemon, which stops its work);
 * a deadline that passed while the connection was down is the machine being unreachable.
 */
function deadlines(channel: RpcChannel): RpcInterceptor {
  return (next) => (call) =>
    next(call).catch((err: unknown) => {
      throw (isStatusError(err) && deadlineWhileDown(labelOf(call), channel, err)) || err;
    });
}

/**
 * True for a failure that grpc-js reports when the client a call was queued on was replaced before
 * the call went out (the connection watchdog does that): the daemon never saw the call.
 */
function neverSent(err: unknown): boolean {
  const e = err as grpc.ServiceError | undefined;
  return e?.code === grpc.status.UNAVAILABLE && /before call started/.test(e.details ?? "");
}

/** Sends again, on the client that replaced its own, a unary call that never left this process. */
function resendNeverSent(channel: RpcChannel): RpcInterceptor {
  return (next) => async (call) => {
    for (;;) {
      try {
        return await next(call);
      } catch (err) {
        const again = call.kind === "unary" && neverSent(err) && !channel.isClosed() && !call.signal?.aborted && Date.now() < call.deadline;
        if (!again) throw err;
      }
    }
  };
}

/**
 * Link health as a step of every call: tracks the call in `calls` while it is under way, so that a
 * machine found gone (see watchLink in linkHealth.ts) fails it at once, with the UnavailableError
 * InFlightCalls.failAll gave it in place of the cancellation it caused. The call is handed on
 * with a signal of its own, which aborts when the caller's does or when the machine is found gone.
 */
function linkHealth(calls: InFlightCalls): RpcInterceptor {
  return (next) => async (call) => {
    const own = new AbortController();
    const forward = () => own.abort(call.signal?.reason);
    if (call.signal?.aborted) forward();
    else call.signal?.addEventListener("abort", forward, { once: true });
    const tracked = calls.add(`${call.service}/${call.method}`, () => own.abort());
    try {
      return await next({ ...call, signal: own.signal });
    } catch (err) {
      throw tracked.failure ?? err;
    } finally {
      tracked.done();
      call.signal?.removeEventListener("abort", forward);
    }
  };
}

/**
 * A user's interceptor, with its own errors made clear: one it throws (not one `next` gave it, and
 * not a PincerError it chose) becomes a PincerError naming it and the call.
 */
function guarded(interceptor: RpcInterceptor, index: number): RpcInterceptor {
  return (next) => async (call) => {
    const fromNext = new Set<unknown>();
    const watched: RpcHandler = (c) =>
      next(c).catch((err: unknown) => {
        fromNext.add(err);
        throw err;
      });
    try {
      return await interceptor(watched)(call);
    } catch (err) {
      if (err instanceof PincerError || fromNext.has(err)) throw err;
      const name = interceptor.name ? ` (${interceptor.name})` : "";
      const why = err instanceof Error ? err.message : String(err);
      throw new PincerError(`${labelOf(call)}: interceptor ${index + 1}${name} of the connection to ${call.address} threw: ${why}`, { cause: err });
    }
  };
}

/**
 * Runs `call` through the user's interceptors, then the built-in ones, then `transport` (which
 * sends it with grpc-js). The built-in steps call `next` before any await, so without interceptors
 * of the user's that wait, the call is sent in the same tick it was made, as a plain grpc-js call.
 */
export function runChain(channel: RpcChannel, call: RpcCall, transport: RpcHandler): Promise<unknown> {
  const chain: RpcInterceptor[] = [
    ...(channel.interceptors ?? []).map(guarded),
    refuseWhenClosed(channel),
    typedErrors(channel),
    cancellation(),
    deadlines(channel),
    linkHealth(channel.calls),
    resendNeverSent(channel),
  ];
  return chain.reduceRight<RpcHandler>((next, interceptor) => interceptor(next), transport)(call);
}
