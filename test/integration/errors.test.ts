import { createServer } from "node:net";
import * as grpc from "@grpc/grpc-js";
import protobuf from "protobufjs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { serviceDefinition, type RuntimeMethod } from "@pincer/shared";
import { CancelledError, connect, FailedPreconditionError, InvalidArgumentError, TimeoutError, UnavailableError } from "@pincer/controller";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { openWitnessWindow } from "../fixtures/xwitness.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

let xs: XServer;
let daemon: RunningDaemon;

beforeAll(async () => {
  xs = await startXvfb({ width: 800, height: 600 });
  daemon = await spawnDaemon({ display: xs.display });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
});

afterAll(async () => {
  await daemon?.close();
  await xs?.close();
});

describe("bad input is INVALID_ARGUMENT with a message naming the field", () => {
  const cases: Array<[string, () => Promise<unknown>, RegExp]> = [
    ["point off screen", () => daemon.env.mouse.move({ x: 800, y: 10 }), /to\.x: 800 is off the screen; it must be in 0\.\.799/],
    ["negative y", () => daemon.env.mouse.click({ at: { x: 1, y: -5 } }), /at\.y: -5 is off the screen/],
    ["click count 4", () => daemon.env.mouse.click({ count: 4 }), /count: 4 is out of range/],
    ["unknown key", () => daemon.env.keyboard.press("ctrl+frobnicate"), /chord\[1\]: unknown key name "frobnicate"/],
    ["empty chord", () => daemon.env.keyboard.press(""), /chord: empty chord/],
    ["empty key list", () => daemon.env.keyboard.press([]), /chord: empty chord/],
    ["unknown modifier", () => daemon.env.mouse.click({ modifiers: ["hyperspace"] }), /modifiers\[0\]: unknown key name/],
    ["one-point drag", () => daemon.env.mouse.drag([{ x: 1, y: 1 }]), /path: a drag needs at least 2 points, got 1/],
    ["scroll of nothing", () => daemon.env.mouse.scroll({}), /dx, dy: both are 0/],
    ["key down of unknown key", () => daemon.env.keyboard.down("nokey"), /key: unknown key name "nokey"/],
    ["absurd type delay", () => daemon.env.keyboard.type("a", { charDelayMs: 5000 }), /char_delay_ms: 5000 is out of range/],
  ];
  test.each(cases)("%s", async (_name, act, message) => {
    const err = await act().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as Error).message).toMatch(message);
  });
});

describe("no display", () => {
  test("input and screen fail with FAILED_PRECONDITION saying how to fix it; GetInfo still answers", async () => {
    // A display number no X server listens on.
    const noX = await spawnDaemon({ display: ":4093" });
    try {
      const err = await noX.env.mouse.move({ x: 1, y: 1 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FailedPreconditionError);
      expect((err as Error).message).toMatch(/cannot open X display :4093/);
      expect((err as Error).message).toMatch(/Xvfb :4093 .* -noreset/);
      expect((err as Error).message).toMatch(/--display :4093/);
      await expect(noX.env.screen.screenshot()).rejects.toBeInstanceOf(FailedPreconditionError);
      const info = await noX.env.system.info();
      expect(info.capabilities).toEqual(["files", "process"]);
      expect(info.warnings.join()).toMatch(/cannot open X display :4093/);
    } finally {
      await noX.close();
    }
  });

  test("no DISPLAY at all says to set one, and mentions Wayland when that is what runs", async () => {
    const env = { ...process.env, DISPLAY: "", WAYLAND_DISPLAY: "wayland-0" };
    const noX = await spawnDaemon({ env });
    try {
      const err = await noX.env.keyboard.type("x").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FailedPreconditionError);
      expect((err as Error).message).toMatch(/no X display configured \(WAYLAND_DISPLAY=wayland-0 is set, but Wayland is not supported\)/);
    } finally {
      await noX.close();
    }
  });
});

describe("connection errors and deadlines", () => {
  async function closedPort(): Promise<number> {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const port = (srv.address() as { port: number }).port;
    await new Promise((r) => srv.close(r));
    return port;
  }

  test("a daemon that is not there is UnavailableError with advice", async () => {
    const env = connect(`127.0.0.1:${await closedPort()}`);
    try {
      const err = await env.system.info({ timeoutMs: 3_000 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnavailableError);
      expect((err as Error).message).toMatch(/is unreachable .*Check that it is running/);
    } finally {
      env.close();
    }
  });

  test("waitUntilReady has its own deadline", async () => {
    const env = connect(`127.0.0.1:${await closedPort()}`);
    try {
      const started = Date.now();
      await expect(env.waitUntilReady({ timeoutMs: 500 })).rejects.toBeInstanceOf(TimeoutError);
      // Its own 500 ms, with room for a loaded machine, not the 30 s default deadline.
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      env.close();
    }
  });

  test("waitUntilReady waits for a daemon that starts later", async () => {
    const port = await closedPort();
    const env = connect(`127.0.0.1:${port}`);
    let d: RunningDaemon | undefined;
    try {
      const ready = env.waitUntilReady({ timeoutMs: 20_000 });
      await new Promise((r) => setTimeout(r, 300));
      d = await spawnDaemon({ display: xs.display, args: ["--port", String(port)] });
      const info = await ready;
      expect(info.screen).toEqual({ width: 800, height: 600 });
      expect(info.protocolVersion).toBe("pincer.v1");
    } finally {
      env.close();
      await d?.close();
    }
  });

  test("cancelling a call stops the work on the daemon", async () => {
    const w = await openWitnessWindow(xs.display, { x: 0, y: 0, width: 400, height: 300, color: 0x0000ff });
    try {
      await daemon.env.mouse.move({ x: 100, y: 100 });
      const controller = new AbortController();
      const typing = daemon.env.keyboard.type("a".repeat(200), { charDelayMs: 20, signal: controller.signal });
      await w.waitFor((ev) => ev.filter((e) => e.name === "KeyPress").length >= 5);
      controller.abort();
      await expect(typing).rejects.toBeInstanceOf(CancelledError);
      // Keys typed before the daemon saw the cancel may still be on their way to the window: wait
      // until none has come for 1 s. Had the daemon kept typing, one would come every 20 ms until
      // all 200 were in, 4 s after the first; a cancel seen late would let tens more through.
      const presses = () => w.events.filter((e) => e.name === "KeyPress").length;
      let seen = presses();
      for (let quietSince = Date.now(); Date.now() - quietSince < 1_000; ) {
        await new Promise((r) => setTimeout(r, 50));
        if (presses() !== seen) [seen, quietSince] = [presses(), Date.now()];
      }
      expect(seen).toBeLessThan(50);
    } finally {
      w.close();
    }
  });

  test("a deadline shorter than the work is TimeoutError", async () => {
    const err = await daemon.env.keyboard.type("b".repeat(100), { charDelayMs: 20, timeoutMs: 100 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
  });
});

/**
 * The standard messages of the gRPC richer error model, written here from google/rpc/status.proto,
 * google/rpc/error_details.proto and google/protobuf/any.proto, so the trailer is checked the way
 * a client in another language would read it, not with the daemon's own encoder.
 */
const RICH_ERROR_PROTO = [
  'syntax = "proto3";',
  "package google.rpc;",
  "message Any { string type_url = 1; bytes value = 2; }",
  "message Status { int32 code = 1; string message = 2; repeated Any details = 3; }",
  "message BadRequest {",
  "  message FieldViolation { string field = 1; string description = 2; string reason = 3; }",
  "  repeated FieldViolation field_violations = 1;",
  "}",
].join("\n");

describe("INVALID_ARGUMENT carries google.rpc.BadRequest field violations", () => {
  const rich = protobuf.parse(RICH_ERROR_PROTO, { keepCase: true }).root;
  const Status = rich.lookupType("google.rpc.Status");
  const BadRequest = rich.lookupType("google.rpc.BadRequest");

  /** A Screenshot call through a bare grpc-js client: the status and trailers as any gRPC client gets them. */
  function rawScreenshot(request: Record<string, unknown>): Promise<grpc.ServiceError> {
    const def = serviceDefinition("Screen").Screenshot as RuntimeMethod;
    const client = new grpc.Client(daemon.address, grpc.credentials.createInsecure());
    return new Promise<grpc.ServiceError>((resolve, reject) => {
      client.makeUnaryRequest(def.path, def.requestSerialize, def.responseDeserialize, request, { deadline: Date.now() + 10_000 }, (err) => {
        client.close();
        if (err) resolve(err);
        else reject(new Error("the screenshot succeeded"));
      });
    });
  }

  test("a bad quality comes back with the grpc-status-details-bin trailer naming the field", async () => {
    const err = await rawScreenshot({ quality: 500 });
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    const [bin] = err.metadata.get("grpc-status-details-bin");
    expect(Buffer.isBuffer(bin)).toBe(true);
    const st = Status.toObject(Status.decode(bin as Buffer), { defaults: true }) as {
      code: number;
      message: string;
      details: Array<{ type_url: string; value: Uint8Array }>;
    };
    expect(st.code).toBe(3);
    expect(st.message).toBe(err.details);
    expect(st.message).toMatch(/^quality: 500 is out of range/);
    expect(st.details.map((d) => d.type_url)).toEqual(["type.googleapis.com/google.rpc.BadRequest"]);
    const br = BadRequest.toObject(BadRequest.decode(st.details[0]!.value), { defaults: true }) as { field_violations: Array<{ field: string }> };
    expect(br.field_violations).toEqual([{ field: "quality", description: "500 is out of range; it must be an integer in 1..100", reason: "" }]);
  });

  test("the controller's typed error has the field violations and keeps its message", async () => {
    const err = await daemon.env.screen.screenshot({ maxWidth: 20_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as Error).message).toMatch(/max_width: 20000 is out of range/);
    expect((err as InvalidArgumentError).fieldViolations).toEqual([
      { field: "max_width", description: "20000 is out of range; it must be an integer in 0..16384" },
    ]);
    const key = await daemon.env.keyboard.press("ctrl+frobnicate").catch((e: unknown) => e);
    expect((key as InvalidArgumentError).fieldViolations.map((v) => v.field)).toEqual(["chord[1]"]);
    const point = await daemon.env.mouse.move({ x: 800, y: 10 }).catch((e: unknown) => e);
    expect((point as InvalidArgumentError).fieldViolations.map((v) => v.field)).toEqual(["to.x"]);
    const cwd = await daemon.env.process.run(["true"], { cwd: "relative/dir" }).catch((e: unknown) => e);
    expect((cwd as InvalidArgumentError).fieldViolations.map((v) => v.field)).toEqual(["cwd"]);
    const signal = await daemon.env.process.signal(1, "SIGNOPE").catch((e: unknown) => e);
    expect((signal as InvalidArgumentError).fieldViolations.map((v) => v.field)).toEqual(["signal"]);
  });

  test("a region off the screen names region", async () => {
    const err = await rawScreenshot({ region: { x: 0, y: 0, width: 900, height: 10 } });
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    const [bin] = err.metadata.get("grpc-status-details-bin");
    const st = Status.decode(bin as Buffer) as unknown as { details: Array<{ value: Uint8Array }> };
    const br = BadRequest.decode(st.details[0]!.value) as unknown as { field_violations: Array<{ field: string }> };
    expect(br.field_violations.map((v) => v.field)).toEqual(["region"]);
  });
});
