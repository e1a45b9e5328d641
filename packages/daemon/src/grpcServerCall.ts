import { createRequire } from "node:module";

/**
 * The prototype of grpc-js's own server call (BaseServerInterceptingCall, an internal the packages
 * pin grpc-js for), which framing.ts and security/audit.ts patch once; undefined when grpc-js no
 * longer has it where it was.
 */
export function baseServerCallPrototype<P extends object>(): P | undefined {
  try {
    const internals = createRequire(import.meta.url)("@grpc/grpc-js/build/src/server-interceptors.js") as {
      BaseServerInterceptingCall?: { prototype: P };
    };
    return internals.BaseServerInterceptingCall?.prototype;
  } catch {
    return undefined;
  }
}
