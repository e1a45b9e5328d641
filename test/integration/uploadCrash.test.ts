import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterAll, expect, test } from "vitest";
import { spawnDaemon } from "../fixtures/daemon.js";

// A daemon killed in the middle of an upload (SIGKILL, a crash, power loss) cannot clean up its
// temporary file. The next daemon to start must.

const base = mkdtempSync(join(tmpdir(), "pincer-crash-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A protobuf length-delimited field. */
function field(num: number, body: Buffer): Buffer {
  const len: number[] = [];
  let n = body.length;
  do {
    len.push((n & 0x7f) | (n >= 0x80 ? 0x80 : 0));
    n >>>= 7;
  } while (n > 0);
  return Buffer.concat([Buffer.from([(num << 3) | 2, ...len]), body]);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An upload to `path` that sends its header and `bytes` of data, then waits (never ends by itself). */
function stuckUpload(address: string, path: string, bytes: number): { client: grpc.Client; call: grpc.ClientWritableStream<Buffer> } {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  const call = client.makeClientStreamRequest(
    "/pincer.v1.Files/Upload",
    (b: Buffer) => b,
    (b: Buffer) => b,
    new grpc.Metadata(),
    {},
    () => undefined, // it ends with UNAVAILABLE or CANCELLED, which these tests cause on purpose
  );
  call.write(field(1, field(1, Buffer.from(path))));
  call.write(field(2, Buffer.alloc(bytes, 1)));
  return { client, call };
}

test("the temporary file of an upload cut by the daemon's death is removed when a daemon starts again", async () => {
  const dir = join(base, "data");
  const env = { XDG_STATE_HOME: join(base, "state") };
  rmSync(dir, { recursive: true, force: true });
  const first = await spawnDaemon({ env });
  await first.env.waitUntilReady({ timeoutMs: 20_000 });
  await first.env.files.mkdir(dir);

  // An upload that sends its header and 1 MiB, then waits: its temporary file exists.
  const { client } = stuckUpload(first.address, join(dir, "big.bin"), 1024 * 1024);
  const parts = () => readdirSync(dir).filter((f) => f.endsWith(".part"));
  for (const until = Date.now() + 10_000; parts().length === 0 && Date.now() < until; ) await sleep(50);
  expect(parts()).toHaveLength(1);

  first.process.kill("SIGKILL");
  await new Promise((r) => first.process.once("exit", r));
  client.close();
  expect(parts()).toHaveLength(1); // nobody cleaned up

  // Another daemon with a journal elsewhere does not know about it...
  const other = await spawnDaemon({ env: { XDG_STATE_HOME: join(base, "other-state") } });
  await other.close();
  expect(parts()).toHaveLength(1);
  // ...the next one of the same user does, and removes it at start.
  const second = await spawnDaemon({ env });
  try {
    await second.env.waitUntilReady({ timeoutMs: 20_000 });
    expect(parts()).toEqual([]);
    expect(second.log()).toContain("removed temporary files of interrupted uploads");
    // Uploads still work, and leave no journal entry behind.
    await second.env.files.upload(Buffer.from("after"), join(dir, "after.txt"));
    expect(readdirSync(join(base, "state", "pincer-daemon", "uploads"))).toEqual([]);
  } finally {
    await second.close();
  }
});

test("a running daemon's uploads are left alone by another daemon starting", async () => {
  const dir = join(base, "data2");
  const env = { XDG_STATE_HOME: join(base, "state2") };
  const running = await spawnDaemon({ env });
  try {
    await running.env.waitUntilReady({ timeoutMs: 20_000 });
    await running.env.files.mkdir(dir);
    const { client, call } = stuckUpload(running.address, join(dir, "slow.bin"), 64 * 1024);
    const parts = () => readdirSync(dir).filter((f) => f.endsWith(".part"));
    for (const until = Date.now() + 10_000; parts().length === 0 && Date.now() < until; ) await sleep(50);
    const second = await spawnDaemon({ env });
    await second.close();
    expect(parts()).toHaveLength(1);
    call.cancel();
    client.close();
    // The cancelled upload removes its file, and a client's cancel is not logged as the daemon's error.
    for (const until = Date.now() + 15_000; parts().length > 0 && Date.now() < until; ) await sleep(50);
    expect(parts()).toEqual([]);
    expect(running.log()).not.toMatch(/internal error/);
  } finally {
    await running.close();
  }
});
