import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { MAX_STATUS_MESSAGE_BYTES, serviceDefinition, type RuntimeMethod, type ServiceName } from "@pincer/shared";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

// Hostile clients, part 3: request strings of any length. A status message travels in a trailer,
// and a client drops its whole connection when trailers pass its limit (about 8 KiB in grpcio, a
// few hundred KiB in grpc-js), failing every other call on it. Messages repeat at most the first
// 256 bytes of what a request said, with its size; and the cases that used to answer INTERNAL
// answer the code that says what was wrong.

const LONG = 300_000;
const long = (prefix = "/") => `${prefix}${"x".repeat(LONG - prefix.length)}`;
/** The longest message allowed, plus room for the "… (N bytes)" a cut message ends with. */
const MAX_DETAILS = MAX_STATUS_MESSAGE_BYTES + 32;

let xs: XServer;
let daemon: RunningDaemon;
let root: string;
let client: grpc.Client;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "pincer-long-"));
  mkdirSync(join(root, "dir"));
  xs = await startXvfb({ width: 320, height: 240 });
  daemon = await spawnDaemon({ display: xs.display, args: ["--file-root", root] });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
  // One client, one connection: what one call's status does to it, the others see.
  client = new grpc.Client(daemon.address, grpc.credentials.createInsecure());
});

afterAll(async () => {
  client?.close();
  await daemon?.close();
  await xs?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

interface Outcome {
  code: grpc.status;
  details: string;
  value?: Record<string, unknown>;
}

/** A unary call of `service`/`method` with `request` on the shared connection. */
function call(service: ServiceName, method: string, request: Record<string, unknown>, timeoutMs = 10_000): Promise<Outcome> {
  const def = (serviceDefinition(service) as unknown as Record<string, RuntimeMethod>)[method]!;
  return new Promise((resolve) =>
    client.makeUnaryRequest(
      def.path,
      def.requestSerialize,
      def.responseDeserialize,
      request,
      { deadline: Date.now() + timeoutMs },
      (err: grpc.ServiceError | null, value?: unknown) =>
        resolve(err ? { code: err.code, details: err.details } : { code: grpc.status.OK, details: "", value: value as Record<string, unknown> }),
    ),
  );
}

/** A call to a method path no service has. */
function unknownMethod(path: string): Promise<Outcome> {
  return new Promise((resolve) =>
    client.makeUnaryRequest(
      path,
      (b: Buffer) => b,
      (b: Buffer) => b,
      Buffer.alloc(0),
      { deadline: Date.now() + 10_000 },
      (err: grpc.ServiceError | null) => resolve({ code: err?.code ?? grpc.status.OK, details: err?.details ?? "" }),
    ),
  );
}

describe("request strings of any length", () => {
  test("come back cut to their first bytes and size, and the other calls on the connection go on", async () => {
    // A call that is still running while the long ones fail around it.
    const running = call("Process", "Run", { argv: ["sh", "-c", "sleep 1; echo still here"] });
    const cases: Array<[string, Promise<Outcome>, grpc.status]> = [
      ["Files/Stat path", call("Files", "Stat", { path: join(root, long("")) }), grpc.status.INVALID_ARGUMENT],
      ["Files/Move destination", call("Files", "Move", { source: join(root, "dir"), destination: long() }), grpc.status.PERMISSION_DENIED],
      ["Input/KeyDown key", call("Input", "KeyDown", { key: long("k") }), grpc.status.INVALID_ARGUMENT],
      ["Input/PressKeys chord", call("Input", "PressKeys", { chord: `ctrl+${long("k")}` }), grpc.status.INVALID_ARGUMENT],
      ["Process/Run argv[0]", call("Process", "Run", { argv: [long()] }), grpc.status.INVALID_ARGUMENT],
      ["Process/Run cwd", call("Process", "Run", { argv: ["true"], cwd: join(root, long("")) }), grpc.status.INVALID_ARGUMENT],
      ["Process/Signal signal", call("Process", "Signal", { pid: 1, signal: long("SIG") }), grpc.status.INVALID_ARGUMENT],
      // grpc-js answers this one itself, naming the method; 60 KB is what an HTTP/2 header block takes.
      ["unknown method", unknownMethod(`/pincer.v1.Nothing/${"y".repeat(60_000)}`), grpc.status.UNIMPLEMENTED],
    ];
    // One table, so that a failure shows every case: its code, and whether its message was cut.
    const table = async (outcomes: Array<[string, Promise<Outcome>, grpc.status]>) =>
      Promise.all(
        outcomes.map(async ([name, outcome]) => {
          const { code, details } = await outcome;
          const cut = Buffer.byteLength(details) <= MAX_DETAILS && /(…|\.\.\.) \((300\d{3}|60\d{3}) bytes\)/.test(details);
          return `${name}: ${grpc.status[code]}${cut ? ", cut" : ` (${details.length} characters: ${details.slice(0, 80)})`}`;
        }),
      );
    expect(await table(cases)).toEqual(cases.map(([name, , code]) => `${name}: ${grpc.status[code]}, cut`));
    const ran = await running;
    expect(grpc.status[ran.code], ran.details).toBe("OK");
    expect(String(ran.value?.stdout)).toBe("still here\n");
    expect((await call("System", "GetInfo", {})).code).toBe(grpc.status.OK);
  });
});

describe("precise codes where INTERNAL was", () => {
  test("a path component or a program name over 255 bytes, arguments over the kernel's limit", async () => {
    const component = "c".repeat(300);
    const stat = await call("Files", "Stat", { path: join(root, "dir", component, "x") });
    expect(grpc.status[stat.code], stat.details).toBe("INVALID_ARGUMENT");
    expect(stat.details).toMatch(/name too long \(Linux allows 255 bytes per name/);
    const program = await call("Process", "Run", { argv: [join(root, component)] });
    expect(grpc.status[program.code], program.details).toBe("INVALID_ARGUMENT");
    expect(program.details).toMatch(/^argv\[0\]: ".*": name too long/);
    // One argument over MAX_ARG_STRLEN (128 KiB): execve says E2BIG.
    const shell = await call("Process", "Run", { shell: `echo ${"a".repeat(200_000)}` });
    expect(grpc.status[shell.code], shell.details).toBe("INVALID_ARGUMENT");
    expect(shell.details).toMatch(/^shell: the arguments and environment are too large for one command/);
  });

  test("a reflection request that does not decode is INVALID_ARGUMENT", async () => {
    const status = await new Promise<grpc.ServiceError>((resolve) => {
      const stream = client.makeBidiStreamRequest(
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        (b: Buffer) => b,
        (b: Buffer) => b,
        new grpc.Metadata(),
        { deadline: Date.now() + 10_000 },
      );
      stream.on("data", () => undefined);
      stream.on("error", resolve);
      // A field tag whose varint never ends.
      stream.write(Buffer.alloc(11, 0xff));
      stream.end();
    });
    expect(grpc.status[status.code], status.details).toBe("INVALID_ARGUMENT");
    expect(status.details).toMatch(/not a valid grpc\.reflection\.v1\.ServerReflectionRequest/);
  });

  test("calls the client cancels or lets time out are logged as cancellations, not internal errors", async () => {
    // A wait that would take 5 s on a still screen: cut short by the deadline, then by a cancel.
    const wait = { quietMs: 5_000, timeoutMs: 10_000 };
    expect(grpc.status[(await call("Screen", "WaitForSettle", wait, 300)).code]).toBe("DEADLINE_EXCEEDED");
    const def = serviceDefinition("Screen").WaitForSettle as RuntimeMethod;
    const cancelled = await new Promise<grpc.status>((resolve) => {
      const c = client.makeUnaryRequest(def.path, def.requestSerialize, def.responseDeserialize, wait, (err: grpc.ServiceError | null) =>
        resolve(err?.code ?? grpc.status.OK),
      );
      setTimeout(() => c.cancel(), 300);
    });
    expect(grpc.status[cancelled]).toBe("CANCELLED");
    const logged = async () =>
      daemon
        .log()
        .split("\n")
        .filter((l) => l.includes('"call cancelled"') && l.includes("Screen/WaitForSettle"));
    for (const until = Date.now() + 10_000; (await logged()).length < 2 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 50));
    // Each with its reason (a client cancels at its deadline; on a busy machine the two may look alike).
    const reasons = (await logged()).map((l) => (JSON.parse(l) as { reason: string }).reason);
    expect(reasons).toHaveLength(2);
    for (const reason of reasons) expect(["the call's deadline passed", "the client cancelled the call"]).toContain(reason);
    expect(daemon.log()).not.toMatch(/"internal error"/);
  });
});
