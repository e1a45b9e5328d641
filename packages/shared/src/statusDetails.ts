import protobuf from "protobufjs";

/**
 * The gRPC richer error model for INVALID_ARGUMENT: a `grpc-status-details-bin` trailer holding a
 * serialized `google.rpc.Status` whose details carry one `google.rpc.BadRequest`, so a client in
 * any language finds the bad fields without parsing the message. The messages below are the
 * subset of google/rpc/status.proto, google/rpc/error_details.proto and google/protobuf/any.proto
 * that this needs, with the same packages, names and field numbers, so the bytes are the standard ones.
 */

/** One bad field of a request: its path as written in the .proto (`max_width`, `path[2].x`) and what is wrong. */
export interface FieldViolation {
  field: string;
  description: string;
}

/** The trailer gRPC clients read the richer error model from. */
export const STATUS_DETAILS_KEY = "grpc-status-details-bin";

/** The type URL of a `google.rpc.BadRequest` packed in a `google.protobuf.Any`. */
export const BAD_REQUEST_TYPE_URL = "type.googleapis.com/google.rpc.BadRequest";

const PROTO = `
syntax = "proto3";
package google.protobuf;
message Any {
  string type_url = 1;
  bytes value = 2;
}
`;
const RPC_PROTO = `
syntax = "proto3";
package google.rpc;
import "google/protobuf/any.proto";
message Status {
  int32 code = 1;
  string message = 2;
  repeated google.protobuf.Any details = 3;
}
message BadRequest {
  message FieldViolation {
    string field = 1;
    string description = 2;
  }
  repeated FieldViolation field_violations = 1;
}
`;

const root = new protobuf.Root();
protobuf.parse(PROTO, root, { keepCase: true });
protobuf.parse(RPC_PROTO, root, { keepCase: true });
root.resolveAll();
const StatusType = root.lookupType("google.rpc.Status");
const BadRequestType = root.lookupType("google.rpc.BadRequest");

interface StatusMessage {
  code: number;
  message: string;
  details: Array<{ type_url: string; value: Uint8Array }>;
}

/** A serialized `google.rpc.Status` with one `google.rpc.BadRequest` detail listing `violations`. */
export function encodeBadRequestStatus(code: number, message: string, violations: readonly FieldViolation[]): Buffer {
  const badRequest = BadRequestType.encode(BadRequestType.fromObject({ field_violations: violations.map((v) => ({ ...v })) })).finish();
  const status: StatusMessage = { code, message, details: [{ type_url: BAD_REQUEST_TYPE_URL, value: badRequest }] };
  return Buffer.from(StatusType.encode(StatusType.fromObject(status)).finish());
}

/**
 * The field violations of every `google.rpc.BadRequest` in a serialized `google.rpc.Status`; none
 * when there is no such detail or the bytes do not decode (a stray trailer is not worth failing over).
 */
export function decodeFieldViolations(bytes: Uint8Array): FieldViolation[] {
  try {
    const status = StatusType.toObject(StatusType.decode(bytes), { defaults: true }) as StatusMessage;
    return status.details
      .filter((any) => any.type_url === BAD_REQUEST_TYPE_URL)
      .flatMap((any) => {
        const br = BadRequestType.toObject(BadRequestType.decode(any.value), { defaults: true }) as { field_violations: FieldViolation[] };
        return br.field_violations.map((v) => ({ field: v.field, description: v.description }));
      });
  } catch {
    return [];
  }
}
