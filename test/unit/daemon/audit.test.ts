import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterAll, afterEach, describe, expect, test } from "vitest";
import { auditInterceptor, createAuditSink, type AuditSink } from "../../../packages/daemon/src/security/audit.js";

// The audit interceptor in a real grpc-js server on loopback: which statuses it sees, where it
// sees them, and how its sink writes lines.

const ROOT = resolve(import.meta.dirname, "../../..");
const id = (b: Buffer) => b;
const method = (path: string) => ({
  path,
  requestStream: false,
  responseStream: false,
  requestSerialize: id,
  requestDeserialize: id,
  responseSerialize: id,
  responseDeserialize: id,
});
const service: grpc.ServiceDefinition = { Echo: method("/t.Audit/Echo"), Fail: method("/t.Audit/Fail"), Hang: method("/t.Audit/Hang") };

const servers: grpc.Server[] = [];
const clients: grpc.Client[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) s.forceShutdown();
});

/** A sink that keeps its records. */
function memorySink(): AuditSink & { records: Record<string, unknown>[] } {
  const records: Record<string, unknown>[] = [];
  return { records, write: (r) => void records.push(r), close: async () => undefined };
}

/** A server whose interceptors are `interceptors` and a client of it. */
async function serve(interceptors: grpc.ServerInterceptor[], maxMessageBytes = 1024) {
  const server = new grpc.Server({ interceptors, "grpc.max_receive_message_length": maxMessageBytes });
  servers.push(server);
  server.addService(service, {
    Echo: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => done(null, call.request),
    Fail: (_call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => done({ code: grpc.status.NOT_FOUND, details: "no such thing" }),
    Hang: () => undefined,
  });
  const port = await new Promise<number>((res, rej) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? rej(e) : res(p))),
  );
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  clients.push(client);
  const call = (name: keyof typeof service & string, body = Buffer.alloc(0), deadlineMs = 5_000) =>
    new Promise<grpc.StatusObject | undefined>((res) => {
      const m = service[name]!;
      client.makeUnaryRequest(m.path, id, id, body, new grpc.Metadata(), { deadline: Date.now() + deadlineMs }, (err) => res(err ?? undefined));
    });
  return { call };
}

/** Waits until `sink` has `n` records (a call's line may follow its answer by a tick). */
async function records(sink: ReturnType<typeof memorySink>, n: number) {
  for (let i = 0; i < 100 && sink.records.length < n; i++) await new Promise((r) => setTimeout(r, 10));
  return sink.records.map((r) => `${r.method} ${r.code}`);
}

describe("the audit interceptor", () => {
  test("logs handlers' statuses and those grpc-js sends by itself (a deadline, a message over the limit, with the flag named)", async () => {
    const sink = memorySink();
    const { call } = await serve([auditInterceptor(sink)]);
    expect(await call("Echo", Buffer.from("hi"))).toBeUndefined();
    expect((await call("Fail"))?.code).toBe(grpc.status.NOT_FOUND);
    expect((await call("Hang", Buffer.alloc(0), 200))?.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    const tooLarge = await call("Echo", Buffer.alloc(4096));
    expect(tooLarge?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(tooLarge?.details).toMatch(/larger than.*; this daemon's message limit is set with --max-message-bytes$/);
    expect(await records(sink, 4)).toEqual([
      "/t.Audit/Echo OK",
      "/t.Audit/Fail NOT_FOUND",
      "/t.Audit/Hang DEADLINE_EXCEEDED",
      "/t.Audit/Echo RESOURCE_EXHAUSTED",
    ]);
    expect(sink.records[0]).toMatchObject({ type: "audit", peer: expect.stringMatching(/^127\.0\.0\.1:\d+$/), duration_ms: expect.any(Number) });
    expect(sink.records[0]!.time).toBeInstanceOf(Date);
  });

  test("replaces no method of grpc-js's own call object: the status hook sits on its class", async () => {
    const sink = memorySink();
    const seen: boolean[] = [];
    // Sees the audit interceptor's call; grpc-js's own call is behind it (`nextCall`).
    const probe: grpc.ServerInterceptor = (_m, call) => {
      const base = (call as unknown as { nextCall?: object }).nextCall;
      expect(base?.constructor.name).toBe("BaseServerInterceptingCall");
      seen.push(Object.hasOwn(base!, "sendStatus"));
      return new grpc.ServerInterceptingCall(call);
    };
    const { call } = await serve([auditInterceptor(sink), probe]);
    expect(await call("Echo")).toBeUndefined();
    expect(seen).toEqual([false]);
    expect(await records(sink, 1)).toEqual(["/t.Audit/Echo OK"]);
  });

  test("behind another interceptor it wraps the call it gets, and still logs every handler's status", async () => {
    const sink = memorySink();
    const first: grpc.ServerInterceptor = (_m, call) => new grpc.ServerInterceptingCall(call);
    const { call } = await serve([first, auditInterceptor(sink)]);
    await call("Echo");
    await call("Fail");
    expect(await records(sink, 2)).toEqual(["/t.Audit/Echo OK", "/t.Audit/Fail NOT_FOUND"]);
  });
});

describe("the audit sink", () => {
  const dir = mkdtempSync(join(tmpdir(), "pincer-audit-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("queues lines and writes them together soon after, as JSON with ISO times, 512 at most at once; the file is 0600", async () => {
    const path = join(dir, "turn.log");
    const sink = createAuditSink(path);
    sink.write({ time: new Date(0), type: "audit", n: 1 });
    sink.write({ time: new Date(0), type: "audit", n: 2 });
    // Nothing is written on the call's path.
    expect(readFileSync(path, "utf8")).toBe("");
    for (let i = 0; i < 200 && readFileSync(path, "utf8") === ""; i++) await new Promise((r) => setTimeout(r, 5));
    expect(readFileSync(path, "utf8")).toBe(
      '{"time":"1970-01-01T00:00:00.000Z","type":"audit","n":1}\n{"time":"1970-01-01T00:00:00.000Z","type":"audit","n":2}\n',
    );
    expect(statSync(path).mode & 0o777).toBe(0o600);
    // A burst: the 512th line writes the queue at once.
    for (let n = 1; n <= 511; n++) sink.write({ n });
    expect(readFileSync(path, "utf8").split("\n").length).toBe(3);
    sink.write({ n: 512 });
    expect(readFileSync(path, "utf8").trimEnd().split("\n").slice(-1)).toEqual(['{"n":512}']);
    await sink.close();
  });

  test.each([
    ["exits", "process.exit(3)", 3],
    ["dies of an uncaught exception", "throw new Error('boom')", 1],
  ])("a process that %s right after a call ended still writes its line", (_what, end, code) => {
    const path = join(dir, `exit-${code}.log`);
    const script = `import { createAuditSink } from ${JSON.stringify(join(ROOT, "packages/daemon/src/security/audit.ts"))};
      const sink = createAuditSink(${JSON.stringify(path)}); sink.write({ type: "audit", last: true }); ${end};`;
    const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8", timeout: 30_000 });
    expect(run.status, run.stderr).toBe(code);
    expect(readFileSync(path, "utf8")).toBe('{"type":"audit","last":true}\n');
  });

  test("a file that cannot be opened stops the daemon at start with the flag named", () => {
    expect(() => createAuditSink(join(dir, "missing", "audit.log"))).toThrow(/--audit-file .*missing\/audit\.log: ENOENT/);
  });
});
