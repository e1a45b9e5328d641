import { once } from "node:events";
import { readFileSync } from "node:fs";
import http2 from "node:http2";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterEach, describe, expect, test } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { ChunkReader, FRAMED_ENCODING_FROM, passEncodedChunks } from "../../../packages/shared/src/chunks.js";
import { serviceDefinition } from "../../../packages/shared/src/services.js";
import { raiseConnectionWindow, raiseStreamWindow } from "../../../packages/daemon/src/flowControl.js";
import { frameChunksInPlace } from "../../../packages/daemon/src/framing.js";
import { frameUploadChunksInPlace } from "../../../packages/controller/src/env/framing.js";
import { createLogger } from "../../../packages/daemon/src/logger.js";
import { keepDuplicateAuthorization } from "../../../packages/daemon/src/security/auth.js";
import { ConnectionGuard, DEFAULT_CONNECTION_LIMITS } from "../../../packages/daemon/src/security/connections.js";
import { capEchoedHeaders } from "../../../packages/daemon/src/security/headers.js";

// The daemon reaches past grpc-js's public API in six places (flowControl.ts, framing.ts,
// security/audit.ts, security/auth.ts, security/connections.ts, security/headers.ts) and the
// controller in one (env/framing.ts), so the packages pin grpc-js exactly. Each test here (and, for
// security/audit.ts's status hook, test/unit/daemon/audit.test.ts)
// names one internal the daemon relies on and fails when grpc-js moves, renames or stops using it:
// run it after changing the pin. (The daemon itself only warns at startup when a patch finds nothing.)

const ROOT = resolve(import.meta.dirname, "../../..");
const ECHO_PATH = "/pincer.test.Echo/Echo";

/** A unary method with raw bytes both ways; the handler answers with what it saw, as JSON. */
const echoService: grpc.ServiceDefinition = {
  Echo: {
    path: ECHO_PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: (b: Buffer) => b,
    requestDeserialize: (b: Buffer) => b,
    responseSerialize: (b: Buffer) => b,
    responseDeserialize: (b: Buffer) => b,
  },
};

/** What the echo handler saw of each call: the values of its x-seen metadata. */
const echoHandler: grpc.handleUnaryCall<Buffer, Buffer> = (call, callback) => {
  callback(null, Buffer.from(JSON.stringify(call.metadata.get("x-seen").map(String))));
};

const servers: grpc.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.forceShutdown();
});

/** A grpc-js server with the echo service; `beforeBind` runs on it before bindAsync. */
async function startServer(beforeBind?: (s: grpc.Server) => void, options?: grpc.ServerOptions): Promise<{ server: grpc.Server; port: number }> {
  const server = new grpc.Server(options);
  servers.push(server);
  server.addService(echoService, { Echo: echoHandler });
  beforeBind?.(server);
  const port = await new Promise<number>((res, rej) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? rej(err) : res(p))),
  );
  return { server, port };
}

/** One unary gRPC call over a plain HTTP/2 session, so that the test sees the client's socket and frames. */
async function rawCall(port: number, path: string): Promise<{ status: string; message: string; body: string; localPort: number }> {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  try {
    await once(session, "connect");
    const localPort = session.socket.localPort!;
    const req = session.request({ ":method": "POST", ":path": path, "content-type": "application/grpc", te: "trailers" });
    req.end(Buffer.alloc(5)); // one empty message, uncompressed
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    let end: http2.IncomingHttpHeaders = {};
    req.on("response", (h) => (end = { ...end, ...h }));
    req.on("trailers", (h) => (end = { ...end, ...h }));
    await once(req, "close");
    const body = Buffer.concat(chunks);
    return {
      status: String(end["grpc-status"]),
      message: decodeURIComponent(String(end["grpc-message"] ?? "")),
      body: body.length > 5 ? body.subarray(5).toString() : "",
      localPort,
    };
  } finally {
    session.close();
  }
}

/** The named internal of a grpc-js server, or undefined. */
const internal = (server: grpc.Server, name: string): unknown => (server as unknown as Record<string, unknown>)[name];

describe("the grpc-js version", () => {
  test("every package that depends on @grpc/grpc-js pins the same exact version, the one installed", () => {
    const installed = (createRequire(join(ROOT, "packages/daemon/package.json"))("@grpc/grpc-js/package.json") as { version: string }).version;
    const pins = Object.fromEntries(
      ["shared", "daemon", "controller"].map((pkg) => {
        const manifest = JSON.parse(readFileSync(join(ROOT, "packages", pkg, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
        return [pkg, manifest.dependencies?.["@grpc/grpc-js"]];
      }),
    );
    expect(pins).toEqual({ shared: installed, daemon: installed, controller: installed });
    expect(installed).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe("grpc-js internals the daemon patches", () => {
  test("Server#commonServerOptions: the options bindAsync hands to http2.createServer (raiseStreamWindow sets the stream window there)", async () => {
    const bytes = 3 * 1024 * 1024;
    const { port } = await startServer((s) => {
      expect(typeof internal(s, "commonServerOptions")).toBe("object");
      expect(raiseStreamWindow(s, bytes)).toBe(true);
    });
    const session = http2.connect(`http://127.0.0.1:${port}`);
    try {
      const [settings] = (await once(session, "remoteSettings")) as [http2.Settings];
      expect(settings.initialWindowSize).toBe(bytes);
    } finally {
      session.close();
    }
  });

  test("Server#http2Servers: a Map whose keys are the listening HTTP/2 servers bindAsync made (each patch walks it)", async () => {
    const { server, port } = await startServer();
    const map = internal(server, "http2Servers");
    expect(map).toBeInstanceOf(Map);
    const listening = [...(map as Map<http2.Http2Server, unknown>).keys()];
    expect(listening.map((s) => (s.address() as { port: number }).port)).toEqual([port]);
    expect(listening[0]!.listenerCount("stream")).toBeGreaterThan(0);
  });

  test("raiseConnectionWindow: each new session of those servers gets the larger connection window", async () => {
    const bytes = 5 * 1024 * 1024;
    const { server, port } = await startServer();
    expect(raiseConnectionWindow(server, bytes)).toBe(true);
    const session = http2.connect(`http://127.0.0.1:${port}`);
    try {
      await once(session, "remoteSettings");
      // The WINDOW_UPDATE is sent when the session starts; a ping's answer comes after it.
      await new Promise<void>((res, rej) => session.ping((err) => (err ? rej(err) : res())));
      expect(session.state.remoteWindowSize).toBe(bytes);
    } finally {
      session.close();
    }
  });

  test("a call's path and metadata are read from the headers object of the server's 'stream' event, after listeners prepended to it", async () => {
    // What keepDuplicateAuthorization (auth.ts) and capEchoedHeaders (headers.ts) do: change the
    // headers in a listener that runs before grpc-js's own.
    const { server, port } = await startServer();
    for (const http2Server of (internal(server, "http2Servers") as Map<http2.Http2Server, unknown>).keys()) {
      http2Server.prependListener("stream", (_stream: unknown, headers: http2.IncomingHttpHeaders) => {
        if (headers[":path"] === "/pincer.test.Echo/Renamed") headers[":path"] = ECHO_PATH;
        (headers as Record<string, string | string[]>)["x-seen"] = ["first", "second"];
      });
    }
    const r = await rawCall(port, "/pincer.test.Echo/Renamed");
    expect(r).toMatchObject({ status: "0", body: JSON.stringify(["first", "second"]) });
  });

  test("a call's connection info names the peer its socket names (ConnectionGuard admits connections by it)", async () => {
    const seen: Array<{ remoteAddress?: string; remotePort?: number }> = [];
    const interceptor: grpc.ServerInterceptor = (_method, call) => {
      seen.push(call.getConnectionInfo());
      return new grpc.ServerInterceptingCall(call);
    };
    const { port } = await startServer(undefined, { interceptors: [interceptor] });
    const r = await rawCall(port, ECHO_PATH);
    expect(r.status).toBe("0");
    expect(seen).toEqual([expect.objectContaining({ remoteAddress: "127.0.0.1", remotePort: r.localPort })]);
  });

  test("the daemon's patches all take on a bound server, and a long unknown method comes back cut", async () => {
    const { server, port } = await startServer();
    const guard = new ConnectionGuard(DEFAULT_CONNECTION_LIMITS, createLogger({ quiet: true }));
    expect({
      keepDuplicateAuthorization: keepDuplicateAuthorization(server),
      connectionGuard: guard.attach(server),
      capEchoedHeaders: capEchoedHeaders(server),
    }).toEqual({ keepDuplicateAuthorization: true, connectionGuard: true, capEchoedHeaders: true });
    const long = `/pincer.test.Echo/${"x".repeat(20_000)}`;
    const r = await rawCall(port, long);
    expect(r.status).toBe(String(grpc.status.UNIMPLEMENTED));
    expect(r.message.length).toBeLessThan(1_000);
    expect(r.message).toContain(`(${long.length} bytes)`);
  });

  test("BaseServerInterceptingCall#serializeMessage frames each message sent; frameChunksInPlace sends a chunk as the frame it already is", async () => {
    const internals = createRequire(import.meta.url)("@grpc/grpc-js/build/src/server-interceptors.js") as {
      BaseServerInterceptingCall: { prototype: { serializeMessage(this: unknown, v: unknown): Buffer } };
    };
    const dir = mkdtempSync(join(tmpdir(), "pincer-framing-"));
    const fh = await open(join(dir, "f"), "w+");
    try {
      const data = Buffer.from("chunk bytes, framed where they lie");
      await fh.write(data, 0, data.length, 0);
      const reader = new ChunkReader(fh, 0, 1024, 1);
      const chunk = (await reader.next())!;
      const plain = { handler: { serialize: passEncodedChunks((m: Buffer) => m) } };
      const serialize = (v: unknown) => internals.BaseServerInterceptingCall.prototype.serializeMessage.call(plain, v);
      const copied = serialize(chunk.message);
      expect(frameChunksInPlace()).toBe(true);
      const inPlace = serialize(chunk.message);
      // The same bytes on the wire: flag 0, the length, then tag 0x12, the varint length, the data.
      expect(inPlace.equals(copied)).toBe(true);
      expect([...inPlace.subarray(0, 7)]).toEqual([0, 0, 0, 0, data.length + 2, 0x12, data.length]);
      expect(inPlace.buffer).toBe(chunk.data.buffer);
      expect(copied.buffer).not.toBe(chunk.data.buffer);
      // Any other message is framed by grpc-js as before.
      expect([...serialize(Buffer.from([1, 2]))]).toEqual([0, 0, 0, 0, 2, 1, 2]);
      chunk.release();
      await reader.close();
    } finally {
      await fh.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a large message is encoded behind room for the prefix and sent as that frame; a small one is copied as grpc-js does", () => {
    const internals = createRequire(import.meta.url)("@grpc/grpc-js/build/src/server-interceptors.js") as {
      BaseServerInterceptingCall: { prototype: { serializeMessage(this: unknown, v: unknown): Buffer } };
    };
    expect(frameChunksInPlace()).toBe(true);
    // The method's own serializer (proto-loader's, protobufjs underneath), as the daemon registers it.
    const method = serviceDefinition("Screen").Screenshot;
    const encoded: Buffer[] = [];
    const call = { handler: { serialize: (v: object) => encoded.at(encoded.push(method.responseSerialize(v)) - 1)! } };
    const send = (v: object) => internals.BaseServerInterceptingCall.prototype.serializeMessage.call(call, v);
    const shot = { data: Buffer.alloc(FRAMED_ENCODING_FROM + 1000, 7), width: 640, height: 480, scale: 0.5 };
    const frame = send(shot);
    const message = encoded[0]!;
    expect(message.length).toBeGreaterThan(FRAMED_ENCODING_FROM);
    // The frame is the memory the message was encoded in, 5 bytes earlier: no copy.
    expect(frame.buffer).toBe(message.buffer);
    expect(frame.byteOffset + 5).toBe(message.byteOffset);
    expect(frame.length).toBe(message.length + 5);
    expect(frame[0]).toBe(0);
    expect(frame.readUInt32BE(1)).toBe(message.length);
    const back = method.responseDeserialize(frame.subarray(5)) as { data: Buffer; width: number; height: number; scale: number };
    expect(back.data.equals(shot.data)).toBe(true);
    expect([back.width, back.height, back.scale]).toEqual([640, 480, 0.5]);
    // A small message: framed by copy, the same bytes as grpc-js's.
    const small = send({ width: 3, height: 4 });
    expect(small.buffer === encoded[1]!.buffer && small.byteOffset + 5 === encoded[1]!.byteOffset).toBe(false);
    expect([...small.subarray(0, 5)]).toEqual([0, 0, 0, 0, encoded[1]!.length]);
    expect(small.subarray(5).equals(encoded[1]!)).toBe(true);
  });

  test("a client's IdentityHandler#writeMessage frames each message sent; frameUploadChunksInPlace sends a chunk as the frame it already is", async () => {
    type Handler = { writeMessage(message: Buffer, compress: boolean): Promise<Buffer> };
    const { CompressionFilter } = createRequire(import.meta.url)("@grpc/grpc-js/build/src/compression-filter.js") as {
      CompressionFilter: new (options: object, shared: object) => { sendCompression: Handler };
    };
    const identity = new CompressionFilter({}, {}).sendCompression;
    const dir = mkdtempSync(join(tmpdir(), "pincer-client-framing-"));
    const fh = await open(join(dir, "f"), "w+");
    try {
      const data = Buffer.from("an upload's chunk, framed where it lies");
      await fh.write(data, 0, data.length, 0);
      const reader = new ChunkReader(fh, 0, 1024);
      const chunk = (await reader.next())!;
      // What the Upload method's serializer hands grpc-js for a chunk message.
      const bytes = passEncodedChunks((m: Buffer) => m)(chunk.message);
      const copied = await identity.writeMessage(bytes, false);
      expect(frameUploadChunksInPlace()).toBe(true);
      const inPlace = await identity.writeMessage(bytes, false);
      expect(inPlace.equals(copied)).toBe(true);
      expect([...inPlace.subarray(0, 7)]).toEqual([0, 0, 0, 0, data.length + 2, 0x12, data.length]);
      expect(inPlace.buffer).toBe(chunk.data.buffer);
      expect(copied.buffer).not.toBe(chunk.data.buffer);
      // Any other message is framed by grpc-js as before, and a compressing channel compresses.
      expect([...(await identity.writeMessage(Buffer.from([1, 2]), false))]).toEqual([0, 0, 0, 0, 2, 1, 2]);
      const gzip = new CompressionFilter({ "grpc.default_compression_algorithm": 2 }, {}).sendCompression;
      expect((await gzip.writeMessage(bytes, true))[0]).toBe(1);
      await reader.close();
    } finally {
      await fh.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
