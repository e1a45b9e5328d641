import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { CancelledError } from "@pincer/controller";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";

let daemon: RunningDaemon;
let client: grpc.Client;

beforeAll(async () => {
  daemon = await spawnDaemon();
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  client = new grpc.Client(daemon.address, grpc.credentials.createInsecure());
});

afterAll(async () => {
  client?.close();
  await daemon?.close();
});

/** One unary call with raw bytes as the request; resolves with the status. */
function rawCall(path: string, body: Buffer): Promise<grpc.ServiceError | null> {
  return new Promise((resolve) =>
    client.makeUnaryRequest(
      path,
      (b: Buffer) => b,
      (b: Buffer) => b,
      body,
      new grpc.Metadata(),
      { deadline: Date.now() + 10_000 },
      (err) => resolve(err),
    ),
  );
}

test("a request that does not decode is INVALID_ARGUMENT, not INTERNAL, and logs no internal error", async () => {
  // A field tag whose varint never ends (protobuf decoders refuse more than 10 bytes).
  const broken = Buffer.alloc(11, 0xff);
  for (const path of ["/pincer.v1.Files/Stat", "/pincer.v1.Process/Run", "/pincer.v1.Input/TypeText"]) {
    const err = await rawCall(path, broken);
    expect(err?.code, path).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err?.details).toContain(`not a valid message for ${path.replace("/pincer.v1.", "")}`);
  }
  // A well-formed request still works on the same connection.
  expect(await rawCall("/pincer.v1.System/GetInfo", Buffer.alloc(0))).toBeNull();
  expect(daemon.log()).not.toMatch(/internal error/);
});

test("a Run the client cancels is not logged as an internal error", async () => {
  const ac = new AbortController();
  const run = daemon.env.process.run(["sleep", "30"], { signal: ac.signal });
  await new Promise((r) => setTimeout(r, 300));
  ac.abort();
  await expect(run).rejects.toBeInstanceOf(CancelledError);
  // The command's group is killed on cancel; wait (bounded) until the daemon no longer tracks it.
  const until = Date.now() + 10_000;
  while ((await daemon.env.process.list()).length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  expect(await daemon.env.process.list()).toEqual([]);
  expect(daemon.log()).not.toMatch(/internal error/);
});
