import { encodeLargeMessagesFramed, framedBytes, framedChunk } from "@pincer/shared";
import { baseServerCallPrototype } from "./grpcServerCall.js";

const PATCHED = Symbol.for("pincer.framesChunksInPlace");
/** gRPC's message prefix: a compression flag (0) and the message's length, u32 big-endian. */
const GRPC_PREFIX = 5;

/** What serializeMessage reads of a call: the method's handler, with its serializer. */
type ServerCall = { handler?: { serialize?: (value: unknown) => Buffer } };

interface ServerCallPrototype {
  serializeMessage?: (this: ServerCall, value: unknown) => Buffer;
  [PATCHED]?: boolean;
}

/**
 * Makes grpc-js's server send large messages without copying them. grpc-js frames every message it
 * sends by copying it into a new buffer behind its 5-byte prefix
 * (BaseServerInterceptingCall.serializeMessage): for a download, a copy of every MiB, about 150 ms
 * of the daemon's CPU per 256 MiB here; for a screenshot, a copy of the whole image. The daemon's
 * ChunkReader (see @pincer/shared chunks.ts) already reads each chunk behind room for that prefix
 * and writes it there, and protobufjs encodes every other message of 64 KiB or more behind it too
 * (encodeLargeMessagesFramed), so such a message goes out as the frame it already is; smaller ones
 * are framed as grpc-js does. A chunk's buffer goes back to its pool in the write callback, which
 * Node's HTTP/2 stream calls once the bytes are written to the socket. Returns false when grpc-js's
 * internals changed and nothing was patched (messages then take the copy);
 * test/unit/daemon/grpcInternals.test.ts checks those and protobufjs's.
 */
export function frameChunksInPlace(): boolean {
  const proto = baseServerCallPrototype<ServerCallPrototype>();
  const original = proto?.serializeMessage;
  if (!proto || typeof original !== "function") return false;
  if (proto[PATCHED]) return true;
  // Without it (protobufjs changed) large messages other than chunks take grpc-js's copy, as before.
  encodeLargeMessagesFramed();
  proto.serializeMessage = function (this: ServerCall, value: unknown): Buffer {
    const chunk = framedChunk(value);
    if (chunk) return chunk;
    const handler = this.handler;
    if (typeof handler?.serialize !== "function") return original.call(this, value);
    const message = handler.serialize(value);
    const framed = framedBytes(message);
    if (framed) return framed;
    // As grpc-js frames it.
    const output = Buffer.allocUnsafe(GRPC_PREFIX + message.length);
    output[0] = 0;
    output.writeUInt32BE(message.length, 1);
    output.set(message, GRPC_PREFIX);
    return output;
  };
  proto[PATCHED] = true;
  return true;
}
