import { createHash, randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, mkdirSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import {
  AlreadyExistsError,
  CancelledError,
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
  PermissionDeniedError,
  ResourceExhaustedError,
  TimeoutError,
  connect,
} from "@pincer/controller";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { eventually } from "../fixtures/poll.js";
import { startTcpProxy } from "../fixtures/tcpProxy.js";

let daemon: RunningDaemon;
let dir: string;

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
async function shaOfFile(path: string): Promise<string> {
  const h = createHash("sha256");
  for await (const c of createReadStream(path)) h.update(c as Buffer);
  return h.digest("hex");
}
/**
 * The number of audit lines once earlier calls have all logged their end (a cancelled call may log
 * it a moment later, and later on a loaded machine): unchanged for 500 ms.
 */
async function settledCount(lines: () => string[]): Promise<number> {
  let n = lines().length;
  for (let quiet = 0; quiet < 500; quiet += 25) {
    await new Promise((r) => setTimeout(r, 25));
    if (lines().length !== n) {
      n = lines().length;
      quiet = -25;
    }
  }
  return n;
}

/** The daemon's audit lines so far, one per call. */
const calls = () =>
  daemon
    .log()
    .split("\n")
    .filter((l) => l.includes('"type":"audit"'));

/** Nothing but `names` in the directory: no temporary files left behind. */
const entries = (d: string) => readdirSync(d).sort();

beforeAll(async () => {
  // Files and processes need no display.
  daemon = await spawnDaemon();
  dir = mkdtempSync(join(tmpdir(), "pincer-files-"));
});

afterAll(async () => {
  await daemon?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("upload and download, verified by sha256 on both sides", () => {
  const MiB = 1024 * 1024;
  test.each([
    ["0 bytes", 0],
    ["1 byte", 1],
    ["exactly one chunk", MiB],
    ["one chunk and one byte", MiB + 1],
    ["many chunks", 5 * MiB + 123],
  ])("%s", async (_name, size) => {
    const data = randomBytes(size);
    const remote = join(dir, `up-${size}.bin`);
    const up = await daemon.env.files.upload(data, remote);
    expect(up).toEqual({ path: remote, size, sha256: sha(data) });
    expect(sha(readFileSync(remote))).toBe(sha(data));
    const down = await daemon.env.files.download(remote);
    expect(down.sha256).toBe(sha(data));
    expect(down.data.equals(data)).toBe(true);
    const local = join(dir, `down-${size}.bin`);
    const toFile = await daemon.env.files.download(remote, local);
    expect(toFile).toEqual({ path: local, size, sha256: sha(data) });
    expect(readFileSync(local).equals(data)).toBe(true);
  });

  test("a 200 MiB file from disk, with progress, and back", async () => {
    const src = join(dir, "big-src.bin");
    // Write in pieces so the test itself stays small in memory.
    const piece = randomBytes(8 * 1024 * 1024);
    writeFileSync(src, Buffer.alloc(0));
    for (let i = 0; i < 25; i++) writeFileSync(src, piece, { flag: "a" });
    const want = await shaOfFile(src);
    let lastProgress = 0;
    const remote = join(dir, "big-remote.bin");
    const up = await daemon.env.files.upload(src, remote, { onProgress: (p) => (lastProgress = p.bytes) });
    expect(up.size).toBe(200 * 1024 * 1024);
    expect(up.sha256).toBe(want);
    expect(lastProgress).toBe(200 * 1024 * 1024);
    expect(await shaOfFile(remote)).toBe(want);
    const back = join(dir, "big-back.bin");
    const down = await daemon.env.files.download(remote, back);
    expect(down.sha256).toBe(want);
    expect(await shaOfFile(back)).toBe(want);
    for (const f of [src, remote, back]) rmSync(f);
  });

  test("an upload from disk reads its chunks into reused buffers, and the daemon gets every byte", async () => {
    // 48 whole chunks of 1 MiB and a short last one (which is never reused: see transfers.ts).
    const data = randomBytes(48 * MiB + 300 * 1024);
    const src = join(dir, "reuse-src.bin");
    writeFileSync(src, data);
    const remote = join(dir, "reuse-remote.bin");
    // The controller's chunk buffers: 1 MiB of data behind 11 bytes of room for the framing (chunks.ts).
    const chunkBuffer = MiB + 11;
    const alloc = vi.spyOn(Buffer, "allocUnsafeSlow");
    let made = 0;
    try {
      const up = await daemon.env.files.upload(src, remote);
      expect(up).toEqual({ path: remote, size: data.length, sha256: sha(data) });
      made = alloc.mock.calls.filter(([n]) => n === chunkBuffer).length;
    } finally {
      alloc.mockRestore();
    }
    expect(readFileSync(remote).equals(data)).toBe(true);
    // A new buffer per chunk (49, and more for the reads ahead past the end) without reuse; with it
    // as many as are in flight at once: grpc-js's queue of 16 messages, the reads ahead (19 here).
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThanOrEqual(24);
    for (const f of [src, remote]) rmSync(f);
  });

  test("a large file whose size is not a multiple of 4096 (direct I/O with a padded last block), both ways", async () => {
    const data = randomBytes(65 * MiB + 4097);
    const remote = join(dir, "odd-remote.bin");
    const up = await daemon.env.files.upload(data, remote);
    expect(up).toEqual({ path: remote, size: data.length, sha256: sha(data) });
    expect(statSync(remote).size).toBe(data.length);
    expect(readFileSync(remote).equals(data)).toBe(true);
    const back = join(dir, "odd-back.bin");
    const down = await daemon.env.files.download(remote, back);
    expect(down).toEqual({ path: back, size: data.length, sha256: sha(data) });
    expect(statSync(back).size).toBe(data.length);
    expect(readFileSync(back).equals(data)).toBe(true);
    // From an offset that is not on a 4096-byte boundary.
    const tail = await daemon.env.files.download(remote, undefined, { offset: 3 * MiB + 5, maxBytes: 80 * MiB });
    expect(tail.data.equals(data.subarray(3 * MiB + 5))).toBe(true);
    for (const f of [remote, back]) rmSync(f);
  });

  test("a download cancelled halfway leaves no file and no temp file at the local destination", async () => {
    const remote = join(dir, "cancel-down.bin");
    writeFileSync(remote, randomBytes(96 * MiB));
    const sub = join(dir, "cancel-down");
    mkdirSync(sub);
    const controller = new AbortController();
    const download = daemon.env.files.download(remote, join(sub, "target.bin"), {
      signal: controller.signal,
      onProgress: (p) => {
        if (p.bytes >= 8 * MiB) controller.abort();
      },
    });
    await expect(download).rejects.toBeInstanceOf(CancelledError);
    expect(entries(sub)).toEqual([]);
    rmSync(remote);
  });

  test("a download to a local directory that does not exist says so and writes nothing", async () => {
    const remote = join(dir, "nowhere-src.txt");
    writeFileSync(remote, "content");
    const missing = join(dir, "no-such-dir", "out.txt");
    await expect(daemon.env.files.download(remote, missing)).rejects.toThrow(NotFoundError);
    await expect(daemon.env.files.download(remote, missing)).rejects.toThrow(/local directory .*no-such-dir does not exist; create it first/);
    expect(entries(dir)).not.toContain("no-such-dir");
    rmSync(remote);
  });

  test("a download from an offset sends the rest", async () => {
    const data = randomBytes(3000);
    const remote = join(dir, "offset.bin");
    writeFileSync(remote, data);
    const down = await daemon.env.files.download(remote, undefined, { offset: 1000 });
    expect(down.data.equals(data.subarray(1000))).toBe(true);
    expect(down.sha256).toBe(sha(data.subarray(1000)));
  });

  test("an upload cut halfway by the client leaves nothing at the destination, and no temp file", async () => {
    const sub = join(dir, "cut");
    mkdirSync(sub);
    const src = join(sub, "..", "cut-src.bin");
    writeFileSync(src, randomBytes(64 * 1024 * 1024));
    const controller = new AbortController();
    const upload = daemon.env.files.upload(src, join(sub, "target.bin"), {
      signal: controller.signal,
      onProgress: (p) => {
        if (p.bytes >= 8 * 1024 * 1024) controller.abort();
      },
    });
    await expect(upload).rejects.toBeInstanceOf(CancelledError);
    // The daemon removes its temporary file when it sees the stream end; poll for it.
    await eventually(() => entries(sub).length === 0);
    expect(entries(sub)).toEqual([]);
    rmSync(src);
  });

  test("a wrong expected sha256 is refused and leaves nothing", async () => {
    const sub = join(dir, "badsha");
    mkdirSync(sub);
    // The raw client sends a header sha that does not match what follows.
    const { loadProtocol } = await import("@pincer/shared");
    const grpc = await import("@grpc/grpc-js");
    const v1 = loadProtocol().grpcObject.pincer.v1;
    const client = new v1.Files(daemon.address, grpc.credentials.createInsecure());
    try {
      const err = await new Promise<any>((resolve) => {
        const call = client.Upload((e) => resolve(e));
        call.write({ header: { path: join(sub, "x.bin"), sha256: "0".repeat(64) } });
        call.write({ chunk: Buffer.from("hello") });
        call.end();
      });
      expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(err.details).toMatch(/header\.sha256: .*x\.bin: content has sha256 [0-9a-f]{64}, not 0{64}; nothing was written/);
      expect(entries(sub)).toEqual([]);
    } finally {
      client.close();
    }
  });

  test("a size that does not match is refused and leaves nothing", async () => {
    const sub = join(dir, "badsize");
    mkdirSync(sub);
    const { loadProtocol } = await import("@pincer/shared");
    const grpc = await import("@grpc/grpc-js");
    const client = new (loadProtocol().grpcObject.pincer.v1.Files)(daemon.address, grpc.credentials.createInsecure());
    try {
      const err = await new Promise<any>((resolve) => {
        const call = client.Upload((e) => resolve(e));
        call.write({ header: { path: join(sub, "y.bin"), size: 10 } });
        call.write({ chunk: Buffer.from("12345") });
        call.end();
      });
      expect(err.details).toMatch(/received 5 bytes but 10 were announced/);
      expect(entries(sub)).toEqual([]);
    } finally {
      client.close();
    }
  });

  test("no overwrite keeps the existing file and says ALREADY_EXISTS", async () => {
    const remote = join(dir, "keep.txt");
    writeFileSync(remote, "original");
    await expect(daemon.env.files.upload(Buffer.from("new"), remote, { overwrite: false })).rejects.toBeInstanceOf(AlreadyExistsError);
    expect(readFileSync(remote, "utf8")).toBe("original");
    await daemon.env.files.upload(Buffer.from("new"), remote, { overwrite: true });
    expect(readFileSync(remote, "utf8")).toBe("new");
  });

  test("mode and parent directories", async () => {
    const remote = join(dir, "a/b/c/run.sh");
    await daemon.env.files.upload(Buffer.from("#!/bin/sh\necho hi\n"), remote, { mode: 0o755 });
    expect(statSync(remote).mode & 0o777).toBe(0o755);
    await expect(daemon.env.files.upload(Buffer.from("x"), join(dir, "nope/x.txt"), { createParents: false })).rejects.toBeInstanceOf(NotFoundError);
  });

  test("read and write small text", async () => {
    const remote = join(dir, "note.txt");
    await daemon.env.files.write(remote, "Grüße 世界\n");
    expect(readFileSync(remote, "utf8")).toBe("Grüße 世界\n");
    expect(await daemon.env.files.read(remote)).toBe("Grüße 世界\n");
  });

  test("reading into memory is one call: the Download's header gives the size, and a missing file is its NOT_FOUND", async () => {
    const remote = join(dir, "one-call.txt");
    writeFileSync(remote, "x".repeat(2048));
    const before = await settledCount(calls);
    expect(await daemon.env.files.read(remote)).toHaveLength(2048);
    // Audit lines are written as calls end; stderr is another pipe.
    await eventually(() => calls().length > before, 10_000, 20);
    expect(
      calls()
        .slice(before)
        .map((l) => (JSON.parse(l) as { method: string }).method),
    ).toEqual(["/pincer.v1.Files/Download"]);
    await expect(daemon.env.files.read(join(dir, "missing.txt"))).rejects.toBeInstanceOf(NotFoundError);
    // For checks: undefined instead of NotFoundError, still one call.
    expect(await daemon.env.files.readIfExists(join(dir, "missing.txt"))).toBeUndefined();
    expect(await daemon.env.files.readIfExists(remote)).toHaveLength(2048);
    const big = daemon.env.files.download(remote, undefined, { maxBytes: 1024 });
    await expect(big).rejects.toBeInstanceOf(ResourceExhaustedError);
    await expect(big).rejects.toThrow(/2048 bytes is over maxBytes \(1024\)/);
  });

  test("a download to a file is one call too, bounded by its own timer once the header gave the size", async () => {
    const remote = join(dir, "one-call-file.bin");
    writeFileSync(remote, randomBytes(2 * MiB));
    const before = await settledCount(calls);
    const out = join(dir, "one-call-file.out");
    expect(await daemon.env.files.download(remote, out)).toMatchObject({ path: out, size: 2 * MiB });
    await eventually(() => calls().length > before, 10_000, 20);
    expect(
      calls()
        .slice(before)
        .map((l) => (JSON.parse(l) as { method: string }).method),
    ).toEqual(["/pincer.v1.Files/Download"]);
    expect(sha(readFileSync(out))).toBe(sha(readFileSync(remote)));
    // A link that goes silent before the header: the transfer stops after the default deadline
    // (0.3 s here; once the header is in, it is the default plus 1 s per MiB), as a TimeoutError,
    // and leaves nothing at the destination.
    const proxy = await startTcpProxy(daemon.address);
    const env = connect(proxy.address, { defaultTimeoutMs: 300 });
    const sub = join(dir, "stalled-down");
    mkdirSync(sub);
    try {
      // Its own deadline: the first call also connects, which a loaded machine makes slower than 300 ms.
      await env.system.info({ timeoutMs: 20_000 });
      await proxy.blackhole(true);
      const t0 = performance.now();
      const stalled = env.files.download(remote, join(sub, "target.bin"));
      await expect(stalled).rejects.toBeInstanceOf(TimeoutError);
      await expect(stalled).rejects.toThrow(/Files\/Download: no answer from .* before the deadline \(deadline of 300 ms exceeded\)/);
      expect(performance.now() - t0).toBeGreaterThan(280);
      expect(entries(sub)).toEqual([]);
    } finally {
      env.close();
      await proxy.close();
    }
  });
});

describe("uploads and downloads at the same time", () => {
  // Node's HTTP/2 stops reading a connection while one of its writes waits for the socket. With
  // 16 MiB windows both ways, an upload and a download on one connection each filled the socket
  // and stopped reading the other's bytes: both hung until their deadlines.
  const sha = (f: string) => createHash("sha256").update(readFileSync(f)).digest("hex");

  test("on one env, and from two envs to the same daemon, all finish with the right bytes", async () => {
    const sub = mkdtempSync(join(dir, "both-"));
    const up = join(sub, "up.bin");
    const there = join(sub, "there.bin");
    writeFileSync(up, randomBytes(64 << 20));
    writeFileSync(there, randomBytes(64 << 20));
    const other = connect(daemon.address);
    try {
      const within = { timeoutMs: 20_000 };
      await Promise.all([
        daemon.env.files.upload(up, join(sub, "a.bin"), within),
        daemon.env.files.download(there, join(sub, "b.bin"), within),
        daemon.env.files.download(there, join(sub, "c.bin"), within),
      ]);
      await Promise.all([other.files.upload(up, join(sub, "d.bin"), within), daemon.env.files.download(there, join(sub, "e.bin"), within)]);
      for (const f of ["a.bin", "d.bin"]) expect(sha(join(sub, f)), f).toBe(sha(up));
      for (const f of ["b.bin", "c.bin", "e.bin"]) expect(sha(join(sub, f)), f).toBe(sha(there));
    } finally {
      other.close();
      rmSync(sub, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("stat, list, mkdir, remove, move", () => {
  test("stat describes files, directories and symlinks", async () => {
    const f = join(dir, "s.txt");
    writeFileSync(f, "12345");
    chmodSync(f, 0o640);
    symlinkSync(f, join(dir, "s.link"));
    expect(await daemon.env.files.stat(f)).toMatchObject({ path: f, name: "s.txt", type: "file", size: 5, mode: 0o640 });
    expect(await daemon.env.files.stat(dir)).toMatchObject({ type: "directory" });
    expect(await daemon.env.files.stat(join(dir, "s.link"))).toMatchObject({ type: "symlink", symlinkTarget: f });
    expect(await daemon.env.files.exists(join(dir, "missing"))).toBe(false);
    expect(await daemon.env.files.exists(f)).toBe(true);
  });

  test("list: flat, recursive with depth, and a limit that truncates", async () => {
    const root = join(dir, "tree");
    mkdirSync(join(root, "x/y/z"), { recursive: true });
    writeFileSync(join(root, "a.txt"), "a");
    writeFileSync(join(root, "x/b.txt"), "b");
    writeFileSync(join(root, "x/y/c.txt"), "c");
    const flat = await daemon.env.files.list(root);
    expect(flat.entries.map((e) => e.name)).toEqual(["a.txt", "x"]);
    const deep = await daemon.env.files.list(root, { recursive: true });
    expect(deep.entries.map((e) => e.path.slice(root.length + 1))).toEqual(["a.txt", "x", "x/b.txt", "x/y", "x/y/c.txt", "x/y/z"]);
    const two = await daemon.env.files.list(root, { recursive: true, maxDepth: 2 });
    expect(two.entries.map((e) => e.path.slice(root.length + 1))).toEqual(["a.txt", "x", "x/b.txt", "x/y"]);
    const limited = await daemon.env.files.list(root, { recursive: true, limit: 3 });
    expect(limited).toMatchObject({ truncated: true });
    expect(limited.entries).toHaveLength(3);
  });

  test("mkdir, remove (recursive only when asked), move (overwrite only when asked)", async () => {
    const d = join(dir, "m/n");
    await expect(daemon.env.files.mkdir(d)).rejects.toBeInstanceOf(NotFoundError);
    expect(await daemon.env.files.mkdir(d, { parents: true })).toEqual({ created: true });
    expect(await daemon.env.files.mkdir(d, { parents: true })).toEqual({ created: false });
    await expect(daemon.env.files.mkdir(d)).rejects.toBeInstanceOf(AlreadyExistsError);
    writeFileSync(join(d, "f.txt"), "f");
    const err = await daemon.env.files.remove(join(dir, "m")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FailedPreconditionError);
    expect((err as Error).message).toMatch(/directory not empty; pass recursive/);
    expect(await daemon.env.files.remove(join(dir, "m"), { recursive: true })).toEqual({ removed: true });
    expect(await daemon.env.files.remove(join(dir, "m"), { missingOk: true })).toEqual({ removed: false });
    await expect(daemon.env.files.remove(join(dir, "m"))).rejects.toBeInstanceOf(NotFoundError);

    writeFileSync(join(dir, "from.txt"), "from");
    writeFileSync(join(dir, "to.txt"), "to");
    await expect(daemon.env.files.move(join(dir, "from.txt"), join(dir, "to.txt"))).rejects.toBeInstanceOf(AlreadyExistsError);
    expect(readFileSync(join(dir, "to.txt"), "utf8")).toBe("to");
    const moved = await daemon.env.files.move(join(dir, "from.txt"), join(dir, "to.txt"), { overwrite: true });
    expect(moved).toMatchObject({ name: "to.txt", size: 4 });
    expect(readFileSync(join(dir, "to.txt"), "utf8")).toBe("from");
  });

  test("errors name the path and have their codes", async () => {
    const missing = join(dir, "does-not-exist.txt");
    const e1 = await daemon.env.files.stat(missing).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(NotFoundError);
    expect((e1 as Error).message).toContain(missing);
    const e2 = await daemon.env.files.stat("relative/path").catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(InvalidArgumentError);
    expect((e2 as Error).message).toMatch(/"relative\/path" is not absolute/);
    await expect(daemon.env.files.download(missing)).rejects.toBeInstanceOf(NotFoundError);
    if (process.getuid?.() !== 0) {
      await expect(daemon.env.files.write("/root/forbidden.txt", "x")).rejects.toBeInstanceOf(PermissionDeniedError);
    } else {
      // root may write anywhere; a read-only file system still refuses.
      await expect(daemon.env.files.write("/proc/pincer-test", "x")).rejects.toThrow(/proc/);
    }
  });
});
