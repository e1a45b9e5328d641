import { framedChunk } from "@pincer/shared";
import { baseServerCallPrototype } from "./grpcServerCall.js";

const PATCHED = Symbol.for("pincer.framesChunksInPlace");

interface ServerCallPrototype {
  serializeMessage?: (this: unknown, value: unknown) => Buffer;
  [PATCHED]?: boolean;
}

/**
 * Makes grpc-js's server send a download's chunk messages without copying them. grpc-js frames
 * every message it sends by copying it into a new buffer behind its 5-byte prefix
 * (BaseServerInterceptingCall.serializeMessage): for a download, a copy of every MiB, about 150 ms
 * of the daemon's CPU per 256 MiB here. The daemon's ChunkReader (see @pincer/shared chunks.ts)
 * already reads each chunk behind room for that prefix and writes it there, so a chunk message
 * goes out as the frame it already is; every other message is framed by grpc-js as before. The
 * chunk's buffer goes back to its pool in the write callback, which Node's HTTP/2 stream calls once
 * the bytes are written to the socket. Returns false when grpc-js's internals changed and nothing
 * was patched (downloads then take the copy); test/unit/daemon/grpcInternals.test.ts checks them.
 */
export function frameChunksInPlace(): boolean {
  const proto = baseServerCallPrototype<ServerCallPrototype>();
  const original = proto?.serializeMessage;
  if (!proto || typeof original !== "function") return false;
  if (proto[PATCHED]) return true;
  proto.serializeMessage = function (this: unknown, value: unknown): Buffer {
    return framedChunk(value) ?? original.call(this, value);
  };
  proto[PATCHED] = true;
  return true;
}
