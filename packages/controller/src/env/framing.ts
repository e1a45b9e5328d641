import { createRequire } from "node:module";
import { framedBytes } from "@pincer/shared";

const PATCHED = Symbol.for("pincer.clientFramesChunksInPlace");

interface HandlerPrototype {
  writeMessage?: (this: unknown, message: Buffer, compress: boolean) => Promise<Buffer>;
  [PATCHED]?: boolean;
}

let patched: boolean | undefined;

/**
 * Makes grpc-js's client send an upload's chunk messages without copying them. A client frames
 * every message it sends by copying it into a new buffer behind gRPC's 5-byte prefix (the
 * uncompressed path, IdentityHandler.writeMessage in compression-filter.js): for an upload, a copy
 * of every MiB and as much more memory for the garbage collector to follow. The ChunkReader (see
 * @pincer/shared chunks.ts) reads each chunk of a file behind room for that prefix and writes it
 * there, so a chunk's bytes go out as the frame they already are; every other message, and every
 * compressed one, is framed by grpc-js as before. A client's chunk buffers are never reused (see
 * chunks.ts), so a message grpc-js keeps for a retry stays as it was.
 *
 * Patches grpc-js once per process, on the first upload; every client of that grpc-js shares it.
 * Returns false when grpc-js's internals changed and nothing was patched (uploads then take the
 * copy); test/unit/daemon/grpcInternals.test.ts checks them.
 */
export function frameUploadChunksInPlace(): boolean {
  patched ??= patch();
  return patched;
}

function patch(): boolean {
  let proto: HandlerPrototype | undefined;
  try {
    const internals = createRequire(import.meta.url)("@grpc/grpc-js/build/src/compression-filter.js") as {
      CompressionFilter?: new (options: object, shared: object) => { sendCompression?: object };
    };
    // A filter made with no options sends uncompressed: its handler is the IdentityHandler.
    const handler = internals.CompressionFilter && new internals.CompressionFilter({}, {}).sendCompression;
    proto = handler && (Object.getPrototypeOf(handler) as HandlerPrototype);
  } catch {
    return false;
  }
  const original = proto?.writeMessage;
  if (!proto || typeof original !== "function" || !Object.hasOwn(proto, "writeMessage")) return false;
  if (proto[PATCHED]) return true;
  proto.writeMessage = function (this: unknown, message: Buffer, compress: boolean): Promise<Buffer> {
    const framed = framedBytes(message);
    return framed ? Promise.resolve(framed) : original.call(this, message, compress);
  };
  proto[PATCHED] = true;
  return true;
}
