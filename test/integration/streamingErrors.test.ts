import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { loadProtocol } from "@pincer/shared";
import { connect, InvalidArgumentError, NotFoundError, PermissionDeniedError, ResourceExhaustedError, type RemoteEnv } from "@pincer/controller";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";

// Errors of server-streaming methods (Files/Download, Process/Start) must reach the client with
// their status code, also when the call has no deadline worth waiting for.
let daemon: RunningDaemon;
let env: RemoteEnv;
/** "At once": far below the calls' deadlines (60 s and more), with room for a loaded machine. */
const AT_ONCE_MS = 15_000;

beforeAll(async () => {
  daemon = await spawnDaemon({ args: ["--max-processes", "2", "--exec-allow", "sleep,true,sh"] });
  // A long default deadline: an error that never arrives would hang the test until its own timeout.
  env = connect(daemon.address, { defaultTimeoutMs: 600_000 });
  await env.waitUntilReady({ timeoutMs: 20_000 });
});

afterAll(async () => {
  env?.close();
  await daemon?.close();
});

async function failure(run: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const t0 = performance.now();
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, ms: performance.now() - t0 };
}

async function drain(it: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of it);
}

test("Files/Download of a missing file is NOT_FOUND at once", async () => {
  const { error, ms } = await failure(() => env.files.download("/nonexistent/pincer-missing.bin", "/tmp/pincer-never-written.bin"));
  expect(error).toBeInstanceOf(NotFoundError);
  expect(ms).toBeLessThan(AT_ONCE_MS);
});

test("the raw Files/Download stream of a missing file ends with NOT_FOUND, not at the deadline", async () => {
  // Straight to the stream (env.files.download asks Stat first, which finds the file missing).
  const client = new (loadProtocol().grpcObject.pincer.v1.Files)(daemon.address, grpc.credentials.createInsecure());
  try {
    const t0 = performance.now();
    const call = client.Download({ path: "/nonexistent/pincer-missing.bin" }, { deadline: Date.now() + 60_000 });
    const status = await new Promise<grpc.ServiceError>((resolve) => {
      call.on("data", () => undefined);
      call.on("error", resolve);
    });
    expect(status.code).toBe(grpc.status.NOT_FOUND);
    expect(performance.now() - t0).toBeLessThan(AT_ONCE_MS);
  } finally {
    client.close();
  }
});

test("Process/Start with a missing cwd fails at once with a typed error naming cwd", async () => {
  const { error, ms } = await failure(() => drain(env.process.start(["true"], { cwd: "/nonexistent-pincer-dir" })));
  expect(error instanceof NotFoundError || error instanceof InvalidArgumentError).toBe(true);
  expect((error as Error).message).toMatch(/cwd|nonexistent-pincer-dir/);
  expect(ms).toBeLessThan(AT_ONCE_MS);
});

test("Process/Start of a program the policy refuses is PERMISSION_DENIED at once", async () => {
  const { error, ms } = await failure(() => drain(env.process.start(["cat", "/etc/hostname"])));
  expect(error).toBeInstanceOf(PermissionDeniedError);
  expect(ms).toBeLessThan(AT_ONCE_MS);
});

test("Process/Start over --max-processes is RESOURCE_EXHAUSTED at once", async () => {
  const running = [env.process.start(["sleep", "30"]), env.process.start(["sleep", "30"])];
  try {
    for (const h of running) await h.pid;
    const { error, ms } = await failure(() => drain(env.process.start(["sleep", "30"])));
    expect(error).toBeInstanceOf(ResourceExhaustedError);
    expect((error as Error).message).toMatch(/max-processes/);
    expect(ms).toBeLessThan(AT_ONCE_MS);
  } finally {
    for (const h of running) h.kill();
  }
});
