/**
 * The ceiling for a verified transfer over grpc-js on this machine: a server-streaming call of
 * 1 MiB in-memory buffers between two Node processes (identity serializers: no protobuf, no disk),
 * without and with sha256 on both ends. Whatever Pincer's transfers add (protobuf messages, reading
 * and writing real files, fsync) comes on top of this. Run as a child with `serve` to be the server.
 */
import { fork } from "node:child_process";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import { raiseConnectionWindow, raiseStreamWindow } from "../../packages/daemon/src/flowControl.js";

const MiB = 1024 * 1024;
const WINDOW = 16 * MiB;
const id = (b: Buffer) => b;
const service = {
  Down: {
    path: "/bench.Ceiling/Down",
    requestStream: false,
    responseStream: true,
    requestSerialize: id,
    requestDeserialize: id,
    responseSerialize: id,
    responseDeserialize: id,
  },
  Up: {
    path: "/bench.Ceiling/Up",
    requestStream: true,
    responseStream: false,
    requestSerialize: id,
    requestDeserialize: id,
    responseSerialize: id,
    responseDeserialize: id,
  },
  Ping: {
    path: "/bench.Ceiling/Ping",
    requestStream: false,
    responseStream: false,
    requestSerialize: id,
    requestDeserialize: id,
    responseSerialize: id,
    responseDeserialize: id,
  },
} as const;
const options = { "grpc.max_receive_message_length": 64 * MiB, "grpc-node.flow_control_window": WINDOW, "grpc.enable_retries": 0 };

function serve(): void {
  const server = new grpc.Server(options);
  // The same 16 MiB HTTP/2 windows as the daemon.
  raiseStreamWindow(server, WINDOW);
  server.addService(service, {
    Down: (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
      const [mib, hashing] = call.request.toString().split(",").map(Number) as [number, number];
      const data = Buffer.alloc(MiB, 7);
      const hash = createHash("sha256");
      let sent = 0;
      const pump = () => {
        while (sent < mib) {
          sent++;
          if (hashing) hash.update(data);
          if (!call.write(data)) return void call.once("drain", pump);
        }
        call.end();
      };
      pump();
    },
    // Hashes what it receives, as a verifying receiver would.
    Up: (call: grpc.ServerReadableStream<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => {
      const hash = createHash("sha256");
      call.on("data", (d: Buffer) => hash.update(d));
      call.on("end", () => done(null, hash.digest()));
    },
    Ping: (_call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => done(null, Buffer.alloc(0)),
  });
  server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) throw err;
    raiseConnectionWindow(server, WINDOW);
    process.send!(port);
  });
}

type CeilingClient = grpc.Client & {
  Down(req: Buffer): grpc.ClientReadableStream<Buffer>;
  Up(cb: (err: grpc.ServiceError | null) => void): grpc.ClientWritableStream<Buffer>;
  Ping(req: Buffer, cb: (err: grpc.ServiceError | null) => void): void;
};

/** A bare grpc-js server in a child process and a client of it; `stop` ends both. */
async function ceilingServer(): Promise<{ client: CeilingClient; stop(): void }> {
  const child = fork(fileURLToPath(import.meta.url), ["serve"], { execArgv: process.execArgv });
  try {
    const port = await new Promise<number>((resolve, reject) => child.once("message", (p) => resolve(p as number)).once("exit", reject));
    const Client = grpc.makeGenericClientConstructor(service, "Ceiling");
    const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), options) as unknown as CeilingClient;
    return {
      client,
      stop: () => {
        client.close();
        child.kill();
      },
    };
  } catch (err) {
    child.kill();
    throw err;
  }
}

/**
 * The floor for an empty call: a bare grpc-js unary round trip (empty messages, no protobuf, no
 * interceptors) to a server in another Node process. `timed` is given a function that makes one.
 */
export async function withBareUnary<T>(timed: (ping: () => Promise<void>) => Promise<T>): Promise<T> {
  const { client, stop } = await ceilingServer();
  try {
    const ping = () => new Promise<void>((resolve, reject) => client.Ping(Buffer.alloc(0), (err) => (err ? reject(err) : resolve())));
    return await timed(ping);
  } finally {
    stop();
  }
}

/** Milliseconds to stream `sizeMiB` 1 MiB in-memory buffers from the server to the client, with sha256 at both ends or at neither. */
function downOnce(client: CeilingClient, sizeMiB: number, hashing: boolean): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const hash = createHash("sha256");
    const started = performance.now();
    const call = client.Down(Buffer.from(`${sizeMiB},${hashing ? 1 : 0}`));
    call.on("data", (d: Buffer) => hashing && hash.update(d));
    call.on("end", () => resolve(performance.now() - started));
    call.on("error", reject);
  });
}

/** Milliseconds to stream `sizeMiB` 1 MiB in-memory buffers from the client to the server, sha256 at both ends. */
function upOnce(client: CeilingClient, sizeMiB: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const data = Buffer.alloc(MiB, 7);
    const hash = createHash("sha256");
    const started = performance.now();
    const call = client.Up((err) => (err ? reject(err) : resolve(performance.now() - started)));
    let sent = 0;
    const pump = () => {
      while (sent < sizeMiB) {
        sent++;
        hash.update(data);
        if (!call.write(data)) return void call.once("drain", pump);
      }
      hash.digest();
      call.end();
    };
    pump();
  });
}

/** Bare grpc-js transfers, timed; see {@link openTransferFloor}. */
export interface TransferFloor {
  /** Milliseconds to stream `sizeMiB` from the server to the client (a download's direction). */
  down(sizeMiB: number): Promise<number>;
  /** Milliseconds to stream `sizeMiB` from the client to the server (an upload's direction). */
  up(sizeMiB: number): Promise<number>;
  stop(): void;
}

/**
 * What a verified transfer costs over grpc-js here and nothing else: 1 MiB in-memory buffers
 * streamed between this process and a bare grpc-js server in another, with sha256 at both ends (no
 * protobuf, no files). The server stays up between calls and is warmed up before the first.
 */
export async function openTransferFloor(): Promise<TransferFloor> {
  const { client, stop } = await ceilingServer();
  const down = (sizeMiB: number) => downOnce(client, sizeMiB, true);
  const up = (sizeMiB: number) => upOnce(client, sizeMiB);
  try {
    // One direction at a time: both at once on one connection stalled here.
    for (let i = 0; i < 2; i++) {
      await down(64);
      await up(64);
    }
  } catch (err) {
    stop();
    throw err;
  }
  return { down, up, stop };
}

/** MiB/s of `sizeMiB` streamed from a child process, without and with sha256 at both ends (median of 3). */
export async function grpcCeiling(sizeMiB: number): Promise<{ plain: number; hashed: number }> {
  const { client, stop } = await ceilingServer();
  try {
    const once = async (hashing: boolean) => sizeMiB / ((await downOnce(client, sizeMiB, hashing)) / 1000);
    const median = async (hashing: boolean) => {
      const r = [await once(hashing), await once(hashing), await once(hashing)].sort((a, b) => a - b);
      return r[1]!;
    };
    const plain = await median(false);
    const hashed = await median(true);
    return { plain, hashed };
  } finally {
    stop();
  }
}

if (process.argv[2] === "serve") serve();
