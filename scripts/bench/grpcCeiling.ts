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
  });
  server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) throw err;
    raiseConnectionWindow(server, WINDOW);
    process.send!(port);
  });
}

/** MiB/s of `sizeMiB` streamed from a child process, without and with sha256 at both ends (median of 3). */
export async function grpcCeiling(sizeMiB: number): Promise<{ plain: number; hashed: number }> {
  const child = fork(fileURLToPath(import.meta.url), ["serve"], { execArgv: process.execArgv });
  try {
    const port = await new Promise<number>((resolve, reject) => child.once("message", (p) => resolve(p as number)).once("exit", reject));
    const Client = grpc.makeGenericClientConstructor(service, "Ceiling");
    const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), options) as unknown as grpc.Client & {
      Down(req: Buffer): grpc.ClientReadableStream<Buffer>;
    };
    const once = (hashing: boolean) =>
      new Promise<number>((resolve, reject) => {
        const hash = createHash("sha256");
        const started = performance.now();
        const call = client.Down(Buffer.from(`${sizeMiB},${hashing ? 1 : 0}`));
        call.on("data", (d: Buffer) => hashing && hash.update(d));
        call.on("end", () => resolve(sizeMiB / ((performance.now() - started) / 1000)));
        call.on("error", reject);
      });
    const median = async (hashing: boolean) => {
      const r = [await once(hashing), await once(hashing), await once(hashing)].sort((a, b) => a - b);
      return r[1]!;
    };
    const plain = await median(false);
    const hashed = await median(true);
    client.close();
    return { plain, hashed };
  } finally {
    child.kill();
  }
}

if (process.argv[2] === "serve") serve();
