import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  CancelledError,
  connect,
  NotFoundError,
  PermissionDeniedError,
  PincerError,
  TimeoutError,
  UnauthenticatedError,
  UnavailableError,
  type RemoteEnv,
  type RpcInterceptor,
} from "@pincer/controller";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

// The daemon asks for a token, so that metadata an interceptor adds is seen to reach it: only the
// interceptor sends it here.
const TOKEN = randomBytes(32).toString("hex");

let xs: XServer;
let daemon: RunningDaemon;
const opened: RemoteEnv[] = [];

beforeAll(async () => {
  xs = await startXvfb({ width: 800, height: 600 });
  daemon = await spawnDaemon({ display: xs.display, env: { PINCER_TOKEN: TOKEN } });
}, 60_000);

afterAll(async () => {
  for (const env of opened) env.close();
  await daemon?.close();
  await xs?.close();
});

/** Adds the daemon's token to every call, as metadata. */
const auth: RpcInterceptor = (next) => (call) => {
  call.metadata.set("authorization", `Bearer ${TOKEN}`);
  return next(call);
};

/** An env of the test daemon with `interceptors`, the token added by the last one. */
function envWith(...interceptors: RpcInterceptor[]): RemoteEnv {
  const env = connect(daemon.address, { interceptors: [...interceptors, auth] });
  opened.push(env);
  return env;
}

interface Seen {
  call: string;
  kind: string;
  outcome: string;
  ms: number;
}

/** An interceptor that notes each call: its name, kind, how it ended (the error's class) and how long it took. */
function recorder(): { interceptor: RpcInterceptor; seen: Seen[] } {
  const seen: Seen[] = [];
  const interceptor: RpcInterceptor = (next) => async (call) => {
    const started = performance.now();
    const note = (outcome: string) => seen.push({ call: `${call.service}/${call.method}`, kind: call.kind, outcome, ms: performance.now() - started });
    try {
      const result = await next(call);
      note("ok");
      return result;
    } catch (err) {
      note((err as Error).constructor.name);
      throw err;
    }
  };
  return { interceptor, seen };
}

async function drain(it: AsyncIterable<unknown>): Promise<unknown[]> {
  const all: unknown[] = [];
  for await (const m of it) all.push(m);
  return all;
}

describe("a user interceptor", () => {
  test("sees every call, unary and streaming, with its method and outcome, errors and deadlines included", async () => {
    const { interceptor, seen } = recorder();
    const env = envWith(interceptor);
    await env.system.info();
    await expect(env.files.stat("/no/such/file")).rejects.toThrow(NotFoundError);
    await expect(env.process.run(["sleep", "10"], { timeoutMs: 400 })).rejects.toThrow(TimeoutError);
    const events = await drain(env.process.start(["echo", "hi"]));
    expect(events.length).toBeGreaterThan(1);
    const path = `/tmp/pincer-interceptors-${process.pid}`;
    await env.files.write(path, "hello");
    expect(await env.files.read(path)).toBe("hello");
    expect(seen.map(({ call, kind, outcome }) => ({ call, kind, outcome }))).toEqual([
      { call: "System/GetInfo", kind: "unary", outcome: "ok" },
      { call: "Files/Stat", kind: "unary", outcome: "NotFoundError" },
      { call: "Process/Run", kind: "unary", outcome: "TimeoutError" },
      { call: "Process/Start", kind: "serverStream", outcome: "ok" },
      { call: "Files/Upload", kind: "clientStream", outcome: "ok" },
      { call: "Files/Download", kind: "serverStream", outcome: "ok" },
    ]);
    // The deadline's call took about its deadline.
    expect(seen[2]!.ms).toBeGreaterThan(350);
    expect(seen[2]!.ms).toBeLessThan(5_000);
  });

  test("adds metadata the daemon receives: the token an interceptor sets authenticates unary and streaming calls", async () => {
    const env = envWith();
    expect((await env.system.info()).hostname).toBeTruthy();
    expect((await env.process.run(["true"])).exitCode).toBe(0);
    expect((await drain(env.process.start(["true"]))).length).toBeGreaterThan(0);
    // Without it the same daemon refuses the call: the metadata was what let it through.
    const bare = connect(daemon.address);
    opened.push(bare);
    await expect(bare.system.info()).rejects.toThrow(UnauthenticatedError);
  });

  test("times calls: a command of 300 ms takes at least that long from the interceptor's view", async () => {
    const { interceptor, seen } = recorder();
    const env = envWith(interceptor);
    await env.process.run(["sleep", "0.3"]);
    expect(seen).toEqual([expect.objectContaining({ call: "Process/Run", outcome: "ok" })]);
    expect(seen[0]!.ms).toBeGreaterThanOrEqual(280);
  });

  test("several run in order, the first outermost: each sees the call before the next and its outcome after", async () => {
    const order: string[] = [];
    const step =
      (name: string): RpcInterceptor =>
      (next) =>
      async (call) => {
        order.push(`${name}> ${call.method}`);
        try {
          return await next(call);
        } finally {
          order.push(`${name}< ${call.method}`);
        }
      };
    const env = envWith(step("a"), step("b"), step("c"));
    await env.system.info();
    expect(order).toEqual(["a> GetInfo", "b> GetInfo", "c> GetInfo", "c< GetInfo", "b< GetInfo", "a< GetInfo"]);
  });

  test("can change the call: a shorter deadline, and a reply of its own", async () => {
    const short: RpcInterceptor = (next) => (call) => next(call.method === "Run" ? { ...call, deadline: Date.now() + 300 } : call);
    const env = envWith(short);
    const started = Date.now();
    await expect(env.process.run(["sleep", "10"])).rejects.toThrow(TimeoutError);
    expect(Date.now() - started).toBeLessThan(5_000);
    const cached: RpcInterceptor = (next) => (call) => (call.method === "GetInfo" ? Promise.reject(new PermissionDeniedError("no info today")) : next(call));
    await expect(envWith(cached).system.info()).rejects.toThrow(new PermissionDeniedError("no info today"));
  });

  test("that throws gives a clear error naming it and the call, for unary and streaming calls, and the env still works", async () => {
    let fail = true;
    const broken: RpcInterceptor = (next) => (call) => {
      if (fail) throw new Error("the metrics backend is down");
      return next(call);
    };
    const env = envWith(broken);
    const unary = await env.system.info().catch((err: unknown) => err);
    expect(unary).toBeInstanceOf(PincerError);
    expect((unary as Error).message).toMatch(/^System\/GetInfo: interceptor 1 \(broken\) of the connection to \S+ threw: the metrics backend is down$/);
    expect(((unary as Error).cause as Error).message).toBe("the metrics backend is down");
    await expect(drain(env.process.start(["true"]))).rejects.toThrow(/^Process\/Start: interceptor 1 \(broken\) .* threw: the metrics backend is down/);
    await expect(env.files.write("/tmp/pincer-interceptor-broken", "x")).rejects.toThrow(/^Files\/Upload: interceptor 1 \(broken\)/);
    fail = false;
    expect((await env.system.info()).hostname).toBeTruthy();
  });

  test("that throws after the call, or rethrows its error, is told apart from the call's own error", async () => {
    const after: RpcInterceptor = (next) => async (call) => {
      await next(call);
      throw new TypeError("cannot read the reply");
    };
    await expect(envWith(after).system.info()).rejects.toThrow(/^System\/GetInfo: interceptor 1 \(after\) .* threw: cannot read the reply$/);
    const passing: RpcInterceptor = (next) => (call) => next(call).catch((err: unknown) => Promise.reject(err));
    await expect(envWith(passing).files.stat("/no/such/file")).rejects.toThrow(NotFoundError);
  });
});

describe("the built-in steps through the chain", () => {
  /** An interceptor that waits before sending each call, as one fetching a credential would. */
  const slow: RpcInterceptor = (next) => async (call) => {
    await new Promise((r) => setTimeout(r, 20));
    return next(call);
  };

  test("an aborted signal cancels a long call; the interceptors see the CancelledError", async () => {
    const { interceptor, seen } = recorder();
    const env = envWith(interceptor, slow);
    const ac = new AbortController();
    const started = Date.now();
    setTimeout(() => ac.abort(), 300);
    const err = await env.process.run(["sleep", "10"], { signal: ac.signal }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CancelledError);
    expect((err as Error).message).toBe("Process/Run: cancelled by the caller");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(seen).toEqual([expect.objectContaining({ call: "Process/Run", outcome: "CancelledError" })]);
  });

  test("a signal aborted before the call refuses it; a stream is cancelled by its signal", async () => {
    const env = envWith(slow);
    await expect(env.system.info({ signal: AbortSignal.abort() })).rejects.toThrow(new CancelledError("System/GetInfo: cancelled before it started"));
    const ac = new AbortController();
    const handle = env.process.start(["sleep", "10"], { signal: ac.signal });
    setTimeout(() => ac.abort(), 300);
    const started = Date.now();
    await expect(drain(handle)).rejects.toThrow(CancelledError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test("a deadline passes through the chain as a TimeoutError, for a unary call and a stream", async () => {
    const env = envWith(slow);
    await expect(env.process.run(["sleep", "10"], { timeoutMs: 400 })).rejects.toThrow(/^Process\/Run: no answer from .* before the deadline/);
    await expect(drain(env.process.start(["sleep", "10"], { timeoutMs: 400 }))).rejects.toThrow(TimeoutError);
  });

  test("a closed env refuses every call with UnavailableError, and the interceptors see it", async () => {
    const { interceptor, seen } = recorder();
    const env = envWith(interceptor);
    await env.system.info();
    env.close();
    await expect(env.system.info()).rejects.toThrow(UnavailableError);
    await expect(drain(env.process.start(["true"]))).rejects.toThrow(/^Process\/Start: the connection to .* is closed$/);
    expect(seen.map((s) => s.outcome)).toEqual(["ok", "UnavailableError", "UnavailableError"]);
  });
});
