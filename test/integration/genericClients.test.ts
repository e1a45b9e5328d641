import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { spawnDaemon, type RunningDaemon } from "../fixtures/daemon.js";
import { startXvfb, type XServer } from "../fixtures/xvfb.js";

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "../..");

let xs: XServer;
let daemon: RunningDaemon;

beforeAll(async () => {
  xs = await startXvfb({ width: 1024, height: 768 });
  daemon = await spawnDaemon({ display: xs.display });
  await daemon.env.waitUntilReady({ timeoutMs: 20_000 });
});

afterAll(async () => {
  await daemon?.close();
  await xs?.close();
});

describe("clients that are not Pincer's", () => {
  test("Python grpcio with protoc-generated stubs calls System/GetInfo and Screen/Screenshot", async () => {
    const out = mkdtempSync(join(tmpdir(), "pincer-py-"));
    try {
      const protos = readdirSync(join(ROOT, "proto/pincer/v1")).map((f) => `proto/pincer/v1/${f}`);
      await run("protoc", ["-I", "proto", `--python_out=${out}`, `--grpc_out=${out}`, "--plugin=protoc-gen-grpc=/usr/bin/grpc_python_plugin", ...protos], {
        cwd: ROOT,
      });
      await run("protoc", ["-I", "test/fixtures", `--python_out=${out}`, "rich_error.proto"], { cwd: ROOT });
      // Debian's python3 with python3-grpcio, not a virtualenv's.
      const { stdout } = await run("/usr/bin/python3", [join(ROOT, "test/fixtures/pythonClient.py"), out, daemon.address], { timeout: 30_000 });
      const got = JSON.parse(stdout);
      expect(got).toMatchObject({
        protocol_version: "pincer.v1",
        display: xs.display,
        screen: [1024, 768],
        shot: { width: 320, height: 240, scale: 0.3125, jpeg_magic: "ffd8ff" },
        // INVALID_ARGUMENT's field violations, read from the standard trailer.
        bad_request: { code: "INVALID_ARGUMENT", status_code: 3, fields: ["quality"] },
      });
      expect(got.capabilities).toContain("screen.capture");
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  test("a client with no .proto of Pincer's learns it by reflection, compiles it with protoc and calls it with snake_case JSON", async () => {
    const out = mkdtempSync(join(tmpdir(), "pincer-reflect-"));
    try {
      // The client brings only the standard reflection schema, compiled to a top-level module.
      await run("protoc", ["-I", "packages/daemon/proto/grpc/reflection/v1", `--python_out=${out}`, "reflection.proto"], { cwd: ROOT });
      const { stdout } = await run("/usr/bin/python3", [join(ROOT, "test/fixtures/reflectionClient.py"), out, daemon.address, out], { timeout: 60_000 });
      const got = JSON.parse(stdout);
      expect(got.services).toEqual(
        expect.arrayContaining([
          "pincer.v1.Screen",
          "pincer.v1.Process",
          "grpc.health.v1.Health",
          "grpc.reflection.v1.ServerReflection",
          "grpc.reflection.v1alpha.ServerReflection",
        ]),
      );
      // One file per .proto, named as in proto/, imports included.
      expect(got.files).toEqual(expect.arrayContaining(["pincer/v1/common.proto", "pincer/v1/screen.proto", "pincer/v1/process.proto"]));
      expect(got.unknown_symbol_error).toBe(grpc.status.NOT_FOUND);
      // protoc accepts what reflection served (no .proto on the path) and compiles it.
      await run("protoc", [`--descriptor_set_in=${join(out, "reflected.pb")}`, `--python_out=${out}`, "pincer/v1/screen.proto", "pincer/v1/process.proto"], {
        cwd: out,
      });
      // Field names as the .proto writes them; map entries as protoc makes them; comments kept.
      expect(got.screenshot_request_fields).toContain("max_width");
      expect(got.run_request_fields).toEqual(expect.arrayContaining(["timeout_ms", "max_output_bytes", "env"]));
      expect(got.run_request_nested).toEqual([["EnvEntry", true]]);
      expect(got.screen_comment).toContain("Screenshots of the machine's display");
      expect(got.max_width_comment).toContain("Downscale (never upscale)");
      // The two calls, made with JSON bodies in the .proto's own field names.
      expect(got.shot).toMatchObject({ format: "IMAGE_FORMAT_PNG", width: 640, height: 480 });
      expect(got.shot.data).toBe("iVBORw0K");
      expect(got.ran).toMatchObject({ exit_code: 0 });
      expect(Buffer.from(got.ran.stdout, "base64").toString()).toBe("hello from reflection");
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  test("the standard health service answers SERVING", async () => {
    const { service } = await import("grpc-health-check");
    const Health = grpc.makeGenericClientConstructor(service as any, "Health");
    const client = new Health(daemon.address, grpc.credentials.createInsecure()) as any;
    try {
      for (const name of ["", "pincer.v1.Input"]) {
        const reply = await new Promise<any>((res, rej) => client.check({ service: name }, (e: Error | null, r: any) => (e ? rej(e) : res(r))));
        expect(reply.status).toBe("SERVING");
      }
    } finally {
      client.close();
    }
  });
});
