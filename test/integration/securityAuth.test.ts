import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connect, UnauthenticatedError, type RemoteEnv } from "@pincer/controller";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { eventually } from "../fixtures/poll.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

const run = promisify(execFile);

const TOKEN = randomBytes(32).toString("hex");
const WRONG = randomBytes(32).toString("hex");

let xs: XServer;
let daemon: RunningDaemon;
let dir: string;
let good: RemoteEnv;
let wrong: RemoteEnv;
let none: RemoteEnv;

beforeAll(async () => {
  xs = await startXvfb({ width: 800, height: 600 });
  dir = mkdtempSync(join(tmpdir(), "pincer-auth-"));
  daemon = await spawnDaemon({ display: xs.display, env: { PINCER_TOKEN: TOKEN } });
  good = connect(daemon.address, { token: TOKEN });
  const tokenFile = join(dir, "wrong-token");
  writeFileSync(tokenFile, `${WRONG}\n`, { mode: 0o600 });
  wrong = connect(daemon.address, { tokenFile });
  none = daemon.env; // the fixture connects without credentials
});

afterAll(async () => {
  good?.close();
  wrong?.close();
  await daemon?.close();
  await xs?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Drains a Process/Start stream. */
async function drain(handle: AsyncIterable<unknown>): Promise<unknown[]> {
  const events: unknown[] = [];
  for await (const e of handle) events.push(e);
  return events;
}

const families: Array<[string, (env: RemoteEnv) => Promise<unknown>]> = [
  ["Input (unary)", (env) => env.mouse.position()],
  ["Screen (unary)", (env) => env.screen.size()],
  ["System (unary)", (env) => env.system.info()],
  ["Files (unary)", (env) => env.files.stat(dir)],
  ["Files/Download (server stream)", (env) => env.files.download(join(dir, "wrong-token"))],
  ["Files/Upload (client stream)", (env) => env.files.upload(Buffer.from("x"), join(dir, `up-${randomBytes(4).toString("hex")}`))],
  ["Process/Run (unary)", (env) => env.process.run(["true"])],
  ["Process/Start (server stream)", (env) => drain(env.process.start(["true"]))],
];

describe("every RPC family needs the token", () => {
  test.each(families)("%s: no token and a wrong token are UNAUTHENTICATED, the right one works", async (_name, call) => {
    const noToken = await call(none).catch((e: unknown) => e);
    expect(noToken).toBeInstanceOf(UnauthenticatedError);
    expect((noToken as Error).message).toMatch(/carried none/);
    // The message tells the caller what to set.
    expect((noToken as Error).message).toContain("connect(address, { token })");
    expect((noToken as Error).message).toContain("tokenFile");
    const wrongToken = await call(wrong).catch((e: unknown) => e);
    expect(wrongToken).toBeInstanceOf(UnauthenticatedError);
    expect((wrongToken as Error).message).toMatch(/token is wrong/);
    await expect(call(good)).resolves.toBeDefined();
  });
});

describe("a call without valid credentials has no side effect", () => {
  test("an upload leaves no file, not even a temporary one", async () => {
    const sub = mkdtempSync(join(dir, "upload-"));
    const target = join(sub, "refused.bin");
    for (const env of [none, wrong]) {
      await expect(env.files.upload(randomBytes(3 * 1024 * 1024), target)).rejects.toBeInstanceOf(UnauthenticatedError);
    }
    expect(readdirSync(sub)).toEqual([]);
    await expect(good.files.upload(Buffer.from("ok"), target)).resolves.toMatchObject({ size: 2 });
    expect(readdirSync(sub)).toEqual(["refused.bin"]);
  });

  test("Process/Run, Start and Launch run nothing", async () => {
    const marker = (n: string) => join(dir, `ran-${n}`);
    for (const [n, env] of [
      ["none", none],
      ["wrong", wrong],
    ] as const) {
      await expect(env.process.run(["touch", marker(`run-${n}`)])).rejects.toBeInstanceOf(UnauthenticatedError);
      await expect(drain(env.process.start(["touch", marker(`start-${n}`)]))).rejects.toBeInstanceOf(UnauthenticatedError);
      await expect(env.process.launch(["touch", marker(`launch-${n}`)])).rejects.toBeInstanceOf(UnauthenticatedError);
      await expect(env.files.mkdir(marker(`mkdir-${n}`))).rejects.toBeInstanceOf(UnauthenticatedError);
    }
    // Give a spawned process, had there been one, time to touch its file.
    await good.process.run(["sleep", "0.3"]);
    expect(readdirSync(dir).filter((f) => f.startsWith("ran-"))).toEqual([]);
    await good.process.run(["touch", marker("good")]);
    expect(existsSync(marker("good"))).toBe(true);
  });

  test("the pointer does not move for an unauthenticated Input call", async () => {
    const before = await good.mouse.move({ x: 10, y: 10 });
    await expect(none.mouse.move({ x: 500, y: 400 })).rejects.toBeInstanceOf(UnauthenticatedError);
    await expect(wrong.mouse.move({ x: 500, y: 400 })).rejects.toBeInstanceOf(UnauthenticatedError);
    expect(await good.mouse.position()).toEqual(before);
  });
});

/** A raw gRPC call with no Pincer code in between: bytes in, bytes and status out. */
function rawCall(
  address: string,
  path: string,
  request: Buffer,
  opts: { token?: string; stream?: boolean } = {},
): Promise<{ code: grpc.status; details: string; response: Buffer }> {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  const md = new grpc.Metadata();
  if (opts.token) md.set("authorization", `Bearer ${opts.token}`);
  const id = (b: Buffer) => b;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const done = (code: grpc.status, details: string) => {
      client.close();
      resolve({ code, details, response: Buffer.concat(chunks) });
    };
    if (opts.stream) {
      const call = client.makeBidiStreamRequest(path, id, id, md, { deadline: Date.now() + 10_000 });
      call.on("data", (b: Buffer) => chunks.push(b));
      call.on("error", () => undefined);
      call.on("status", (s: grpc.StatusObject) => done(s.code, s.details));
      call.write(request);
      call.end();
    } else {
      client.makeUnaryRequest(path, id, id, request, md, { deadline: Date.now() + 10_000 }, (err, res) => {
        if (res) chunks.push(res);
        done(err ? err.code : grpc.status.OK, err ? err.details : "");
      });
    }
  });
}

describe("standard services", () => {
  // ServerReflectionRequest { list_services: "" } — field 7, length-delimited, empty.
  const LIST_SERVICES = Buffer.from([0x3a, 0x00]);
  const REFLECTION = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo";

  test("reflection needs the token", async () => {
    const noToken = await rawCall(daemon.address, REFLECTION, LIST_SERVICES, { stream: true });
    expect(noToken.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(noToken.response.length).toBe(0);
    const wrongToken = await rawCall(daemon.address, REFLECTION, LIST_SERVICES, { stream: true, token: WRONG });
    expect(wrongToken.code).toBe(grpc.status.UNAUTHENTICATED);
    const ok = await rawCall(daemon.address, REFLECTION, LIST_SERVICES, { stream: true, token: TOKEN });
    expect(ok.code).toBe(grpc.status.OK);
    expect(ok.response.toString("latin1")).toContain("pincer.v1.Process");
  });

  test("health checks answer without a token by default", async () => {
    // HealthCheckRequest { service: "" } is empty; the reply { status: SERVING } is 08 01.
    const r = await rawCall(daemon.address, "/grpc.health.v1.Health/Check", Buffer.alloc(0));
    expect(r.code).toBe(grpc.status.OK);
    expect([...r.response]).toEqual([0x08, 0x01]);
  });
});

describe("a second authorization header", () => {
  // Node's HTTP/2 keeps only the first of duplicate `authorization` headers and its client refuses
  // to send two; Python's grpcio (Debian's python3-grpcio) sends them as asked.
  const script = `
import grpc, sys
channel = grpc.insecure_channel(sys.argv[1])
call = channel.unary_unary("/pincer.v1.System/GetInfo", request_serializer=lambda b: b, response_deserializer=lambda b: b)
try:
    call(b"", metadata=[("authorization", "Bearer " + sys.argv[2]), ("authorization", "Bearer " + sys.argv[3])], timeout=10)
    print("OK")
except grpc.RpcError as e:
    print(e.code().name, e.details())
`;
  const twoHeaders = async (first: string, second: string) =>
    (await run("/usr/bin/python3", ["-c", script, daemon.address, first, second], { timeout: 30_000 })).stdout.trim();

  test("is refused even when the first one is right", async () => {
    expect(await twoHeaders(TOKEN, WRONG)).toBe("UNAUTHENTICATED the call carried several authorization values; send exactly one 'Bearer <token>'");
    expect(await twoHeaders(TOKEN, TOKEN)).toMatch(/^UNAUTHENTICATED/);
    expect(await twoHeaders(WRONG, TOKEN)).toMatch(/^UNAUTHENTICATED/);
  });
});

describe("the token stays secret", () => {
  test("commands the daemon runs do not inherit PINCER_TOKEN", async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, run by the machine's shell
    const r = await good.process.run("echo ${PINCER_TOKEN:-unset}");
    expect(r.stdout.trim()).toBe("unset");
  });

  test("/proc/<pid>/environ of the daemon does not show PINCER_TOKEN", async () => {
    const environ = readFileSync(`/proc/${daemon.process.pid}/environ`);
    expect(environ.includes(Buffer.from(TOKEN))).toBe(false);
    // The variable is still named there, with its value erased; the rest of the block is intact.
    expect(environ.toString("latin1").split("\0")).toContain("PINCER_TOKEN=");
    expect(environ.toString("latin1")).toContain("PATH=");
    expect(daemon.log()).not.toContain("could not be erased");
  });

  test("the daemon's log and audit lines never contain a token", async () => {
    await good.system.info();
    await wrong.system.info().catch(() => undefined);
    // Audit lines follow the reply (within 20 ms), through another pipe: wait for them.
    await eventually(() => /GetInfo","code":"UNAUTHENTICATED/.test(daemon.log()), 10_000, 20);
    const log = daemon.log();
    expect(log).not.toContain(TOKEN);
    expect(log).not.toContain(WRONG);
    const audit = log
      .split("\n")
      .filter((l) => l.includes('"type":"audit"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(audit.some((a) => a.method === "/pincer.v1.System/GetInfo" && a.code === "UNAUTHENTICATED")).toBe(true);
    expect(audit.some((a) => a.method === "/pincer.v1.System/GetInfo" && a.code === "OK")).toBe(true);
  });
});
