import { Metadata, status, type ServiceError } from "@grpc/grpc-js";
import { capText, MAX_STATUS_MESSAGE_BYTES } from "./echo.js";
import { decodeFieldViolations, encodeBadRequestStatus, STATUS_DETAILS_KEY, type FieldViolation } from "./statusDetails.js";

export type { FieldViolation } from "./statusDetails.js";

/** Options every Pincer error takes. */
export interface PincerErrorOptions {
  cause?: unknown;
  /** The request fields that were wrong; travel as a google.rpc.BadRequest (see {@link InvalidArgumentError}). */
  fieldViolations?: readonly FieldViolation[];
}

/**
 * Root of every error Pincer raises on purpose. `code` is the gRPC status the error travels as;
 * `message` says what went wrong and, where it can, what to do about it.
 */
export class PincerError extends Error {
  /** gRPC status code this error maps to on the wire. */
  readonly code: status = status.UNKNOWN;
  /**
   * The request fields that were wrong, each named as in the .proto (`max_width`, `path[1].x`);
   * empty when the error is not about particular fields. A daemon sends them in the standard
   * `grpc-status-details-bin` trailer (google.rpc.BadRequest), and the controller reads them back.
   */
  readonly fieldViolations: readonly FieldViolation[];

  constructor(message: string, options?: PincerErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.fieldViolations = options?.fieldViolations ?? [];
  }
}

/**
 * The request is malformed: a field is out of range, a key name is unknown, a path is not absolute.
 * Name the bad fields with a violation or a list of them, e.g.
 * `new InvalidArgumentError("max_width: …", { field: "max_width", description: "…" })`, or build
 * message and violation together with {@link InvalidArgumentError.forField}.
 */
export class InvalidArgumentError extends PincerError {
  override readonly code = status.INVALID_ARGUMENT;

  constructor(message: string, options?: PincerErrorOptions | FieldViolation | readonly FieldViolation[]) {
    super(message, isViolations(options) ? { fieldViolations: Array.isArray(options) ? options : [options] } : options);
  }

  /** `"<field>: <description>"`, with `field` named as violated; several fields share the description. */
  static forField(field: string | readonly string[], description: string, options?: { cause?: unknown }): InvalidArgumentError {
    const fields = typeof field === "string" ? [field] : field;
    return new InvalidArgumentError(`${fields.join(", ")}: ${description}`, {
      ...options,
      fieldViolations: fields.map((f) => ({ field: f, description })),
    });
  }
}

function isViolations(
  options: PincerErrorOptions | FieldViolation | readonly FieldViolation[] | undefined,
): options is FieldViolation | readonly FieldViolation[] {
  return Array.isArray(options) || (typeof options === "object" && options !== null && "field" in options);
}
/** A path, process or window does not exist. */
export class NotFoundError extends PincerError {
  override readonly code = status.NOT_FOUND;
}
/** The target exists and the request did not allow replacing it. */
export class AlreadyExistsError extends PincerError {
  override readonly code = status.ALREADY_EXISTS;
}
/** The daemon's policy or the operating system refused the operation. */
export class PermissionDeniedError extends PincerError {
  override readonly code = status.PERMISSION_DENIED;
}
/** Missing or wrong credentials (token, client certificate). */
export class UnauthenticatedError extends PincerError {
  override readonly code = status.UNAUTHENTICATED;
}
/** The machine is not in a state to do this, e.g. no X display; the message says how to fix it. */
export class FailedPreconditionError extends PincerError {
  override readonly code = status.FAILED_PRECONDITION;
}
/** A size, count or rate limit was exceeded. */
export class ResourceExhaustedError extends PincerError {
  override readonly code = status.RESOURCE_EXHAUSTED;
}
/** The call's deadline passed before it finished. */
export class TimeoutError extends PincerError {
  override readonly code = status.DEADLINE_EXCEEDED;
}
/** The caller cancelled the call (an AbortSignal fired). */
export class CancelledError extends PincerError {
  override readonly code = status.CANCELLED;
}
/** The daemon could not be reached or went away. */
export class UnavailableError extends PincerError {
  override readonly code = status.UNAVAILABLE;
}
/** The daemon does not implement this (older version, or not on this platform). */
export class UnimplementedError extends PincerError {
  override readonly code = status.UNIMPLEMENTED;
}
/** Something failed inside the daemon; the detail is in the daemon's log. */
export class InternalError extends PincerError {
  override readonly code = status.INTERNAL;
}

type PincerErrorClass = new (message: string, options?: PincerErrorOptions) => PincerError;

/** One table, both directions: gRPC status ↔ error class. */
const BY_STATUS = new Map<status, PincerErrorClass>([
  [status.INVALID_ARGUMENT, InvalidArgumentError],
  [status.OUT_OF_RANGE, InvalidArgumentError],
  [status.NOT_FOUND, NotFoundError],
  [status.ALREADY_EXISTS, AlreadyExistsError],
  [status.PERMISSION_DENIED, PermissionDeniedError],
  [status.UNAUTHENTICATED, UnauthenticatedError],
  [status.FAILED_PRECONDITION, FailedPreconditionError],
  [status.RESOURCE_EXHAUSTED, ResourceExhaustedError],
  [status.DEADLINE_EXCEEDED, TimeoutError],
  [status.CANCELLED, CancelledError],
  [status.UNAVAILABLE, UnavailableError],
  [status.UNIMPLEMENTED, UnimplementedError],
  [status.INTERNAL, InternalError],
  [status.UNKNOWN, InternalError],
  [status.DATA_LOSS, InternalError],
  [status.ABORTED, InternalError],
]);

/** Builds the typed error for a gRPC status code. */
export function errorForStatus(code: status, message: string, cause?: unknown, fieldViolations?: readonly FieldViolation[]): PincerError {
  const ErrorClass = BY_STATUS.get(code) ?? InternalError;
  return new ErrorClass(message, { cause, ...(fieldViolations?.length ? { fieldViolations } : {}) });
}

/** The wire form of a handler's failure. */
export interface WireError {
  code: status;
  details: string;
  /** Trailers: `grpc-status-details-bin` with a google.rpc.BadRequest when the error names fields. */
  metadata?: Metadata;
}

/**
 * Turns anything a daemon handler threw into what goes on the wire. A {@link PincerError} keeps its
 * code and message (cut to MAX_STATUS_MESSAGE_BYTES, its field violations to a few short ones, so the
 * trailers fit every client's limit); anything else becomes INTERNAL with a generic message, so no stack trace or
 * internal detail reaches the client. `isInternal` tells the caller to log the original.
 */
export function toWireError(err: unknown, incidentId: string): WireError & { isInternal: boolean } {
  if (err instanceof PincerError) {
    const details = capText(err.message, MAX_STATUS_MESSAGE_BYTES);
    const wire = { code: err.code, details, isInternal: false };
    if (err.fieldViolations.length === 0) return wire;
    const metadata = new Metadata();
    metadata.set(STATUS_DETAILS_KEY, encodeBadRequestStatus(err.code, details, boundedViolations(err.fieldViolations)));
    return { ...wire, metadata };
  }
  return {
    code: status.INTERNAL,
    details: `internal daemon error (incident ${incidentId}; the daemon log has the detail)`,
    isInternal: true,
  };
}

/** Most field violations a status carries, and most bytes of each one's field name and description. */
const MAX_VIOLATIONS = 4;
const MAX_FIELD_BYTES = 64;
const MAX_DESCRIPTION_BYTES = 192;

/** The violations as they fit a trailer beside the message (see MAX_STATUS_MESSAGE_BYTES): the first few, each cut. */
function boundedViolations(violations: readonly FieldViolation[]): FieldViolation[] {
  return violations
    .slice(0, MAX_VIOLATIONS)
    .map((v) => ({ field: capText(v.field, MAX_FIELD_BYTES), description: capText(v.description, MAX_DESCRIPTION_BYTES) }));
}

function isServiceError(err: unknown): err is ServiceError {
  return typeof err === "object" && err !== null && "code" in err && typeof (err as ServiceError).code === "number";
}

/** The field violations a failed call's `grpc-status-details-bin` trailer carries, if any. */
function violationsOf(err: ServiceError): FieldViolation[] {
  const values = err.metadata instanceof Metadata ? err.metadata.get(STATUS_DETAILS_KEY) : [];
  return values.flatMap((v) => (typeof v === "string" ? [] : decodeFieldViolations(v)));
}

/**
 * Turns a failed gRPC call into a typed error. `context` names the method and address so the
 * message can say which call failed and what to try.
 */
export function fromServiceError(err: unknown, context: { method: string; address: string }): PincerError {
  if (err instanceof PincerError) return err;
  if (!isServiceError(err)) return new InternalError(`${context.method}: ${String(err)}`, { cause: err });
  const details = err.details || err.message;
  switch (err.code) {
    case status.UNAVAILABLE:
      return new UnavailableError(
        `${context.method}: pincer-daemon at ${context.address} is unreachable (${details}). ` +
          `Check that it is running (pincer-daemon --host ... --port ...) and that the address is right.`,
        { cause: err },
      );
    case status.DEADLINE_EXCEEDED:
      return new TimeoutError(`${context.method}: no answer from ${context.address} before the deadline (${details}). Raise timeoutMs for slow operations.`, {
        cause: err,
      });
    case status.UNAUTHENTICATED:
      return new UnauthenticatedError(
        `${context.method}: pincer-daemon at ${context.address} refused the credentials: ${details}. ` +
          `Pass its token as connect(address, { token }) or connect(address, { tokenFile: "/path/to/token" }) ` +
          `(the daemon reads it from --token-file or PINCER_TOKEN).`,
        { cause: err },
      );
    default:
      return errorForStatus(err.code, `${context.method}: ${details}`, err, violationsOf(err));
  }
}

/** Raised by `env.process.run(..., { check: true })` when a command exits non-zero. */
export class CommandExitError extends PincerError {
  override readonly code = status.ABORTED;
  constructor(
    message: string,
    readonly result: { exitCode: number | null; signal: string | null; stdout: string; stderr: string },
  ) {
    super(message);
  }
}
