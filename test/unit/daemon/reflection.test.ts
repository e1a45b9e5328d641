import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DESCRIPTOR_SET_BASE64 } from "../../../packages/shared/src/generated/descriptorSet.js";
import { addReflection, answer, DescriptorIndex } from "../../../packages/daemon/src/services/reflection.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const SET = Buffer.from(DESCRIPTOR_SET_BASE64, "base64");
const index = new DescriptorIndex(SET);
/** The names of the files in a file_descriptor_response. */
const fileNames = (reply: Record<string, unknown>) =>
  (reply.file_descriptor_response as { file_descriptor_proto: Buffer[] }).file_descriptor_proto.map(
    (b) => new DescriptorIndex(wrap([b])).files.keys().next().value,
  );

/** A FileDescriptorSet holding the given serialized files (each under 128 KiB, so two length bytes at most). */
function wrap(files: Buffer[]): Buffer {
  return Buffer.concat(
    files.flatMap((f) => [Buffer.from([0x0a]), f.length < 128 ? Buffer.from([f.length]) : Buffer.from([(f.length & 0x7f) | 0x80, f.length >> 7]), f]),
  );
}

describe("server reflection over the generated descriptor set", () => {
  test("one file per .proto, as protoc wrote it, every served service listed", () => {
    expect([...index.files.keys()]).toEqual(expect.arrayContaining(["pincer/v1/screen.proto", "grpc/health/v1/health.proto"]));
    const reply = answer(index, { message_request: "list_services", list_services: "" });
    const names = (reply.list_services_response as { service: { name: string }[] }).service.map((s) => s.name);
    expect(names).toEqual(
      expect.arrayContaining(["pincer.v1.Screen", "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"]),
    );
  });

  test("files by name and by symbol come with their imports", () => {
    expect(fileNames(answer(index, { message_request: "file_by_filename", file_by_filename: "pincer/v1/screen.proto" }))).toEqual([
      "pincer/v1/screen.proto",
      "pincer/v1/common.proto",
    ]);
    for (const symbol of [
      "pincer.v1.Screen",
      "pincer.v1.Screen.Screenshot",
      ".pincer.v1.ScreenshotRequest",
      "pincer.v1.ImageFormat",
      "pincer.v1.IMAGE_FORMAT_PNG",
    ]) {
      expect(fileNames(answer(index, { message_request: "file_containing_symbol", file_containing_symbol: symbol }))[0], symbol).toBe("pincer/v1/screen.proto");
    }
    expect(fileNames(answer(index, { message_request: "file_containing_symbol", file_containing_symbol: "pincer.v1.RunRequest.EnvEntry" }))[0]).toBe(
      "pincer/v1/process.proto",
    );
  });

  test("unknown names and absent extensions are NOT_FOUND; a message without extensions has none", () => {
    const notFound = { error_response: expect.objectContaining({ error_code: grpc.status.NOT_FOUND }) };
    expect(answer(index, { message_request: "file_by_filename", file_by_filename: "nope.proto" })).toEqual(notFound);
    expect(answer(index, { message_request: "file_containing_symbol", file_containing_symbol: "pincer.v1.Nope" })).toEqual(notFound);
    expect(answer(index, { message_request: "all_extension_numbers_of_type", all_extension_numbers_of_type: "pincer.v1.Nope" })).toEqual(notFound);
    const ext = { containing_type: "pincer.v1.ScreenshotRequest", extension_number: 100 };
    expect(answer(index, { message_request: "file_containing_extension", file_containing_extension: ext })).toEqual(notFound);
    expect(answer(index, { message_request: "all_extension_numbers_of_type", all_extension_numbers_of_type: "pincer.v1.ScreenshotRequest" })).toEqual({
      all_extension_numbers_response: { base_type_name: "pincer.v1.ScreenshotRequest", extension_number: [] },
    });
  });

  test("extensions are found by their extendee and number", () => {
    const dir = mkdtempSync(join(tmpdir(), "pincer-ext-"));
    try {
      writeFileSync(join(dir, "base.proto"), 'syntax = "proto2";\npackage t;\nmessage Base { extensions 100 to 200; }\n');
      writeFileSync(
        join(dir, "ext.proto"),
        [
          'syntax = "proto2";',
          "package t;",
          'import "base.proto";',
          "extend Base { optional string note = 150; }",
          "message Holder { extend Base { optional int32 n = 120; } }",
          "",
        ].join("\n"),
      );
      execFileSync("protoc", ["-I", dir, "--include_imports", `--descriptor_set_out=${join(dir, "set.pb")}`, "ext.proto"]);
      const ext = new DescriptorIndex(readFileSync(join(dir, "set.pb")));
      expect(answer(ext, { message_request: "all_extension_numbers_of_type", all_extension_numbers_of_type: "t.Base" })).toEqual({
        all_extension_numbers_response: { base_type_name: "t.Base", extension_number: [120, 150] },
      });
      for (const extension_number of [120, 150]) {
        const req = { containing_type: ".t.Base", extension_number };
        expect(fileNames(answer(ext, { message_request: "file_containing_extension", file_containing_extension: req }))).toEqual(["ext.proto", "base.proto"]);
      }
      expect(fileNames(answer(ext, { message_request: "file_containing_symbol", file_containing_symbol: "t.Holder.n" }))).toEqual(["ext.proto", "base.proto"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the reflection service on a server", () => {
  let server: grpc.Server;
  let address: string;
  beforeAll(async () => {
    server = new grpc.Server();
    addReflection(server, SET);
    const port = await new Promise<number>((res, rej) =>
      server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? rej(e) : res(p))),
    );
    address = `127.0.0.1:${port}`;
  });
  afterAll(() => server.forceShutdown());

  test.each(["v1", "v1alpha"])("grpc.reflection.%s answers each request on the stream", async (version) => {
    const proto = join(ROOT, `packages/daemon/proto/grpc/reflection/${version}/reflection.proto`);
    const pkg = grpc.loadPackageDefinition(protoLoader.loadSync(proto, { keepCase: true, oneofs: true })) as any;
    const client = new pkg.grpc.reflection[version].ServerReflection(address, grpc.credentials.createInsecure());
    try {
      const call = client.ServerReflectionInfo();
      const replies: any[] = [];
      const done = new Promise<void>((res, rej) => {
        call.on("data", (d: any) => replies.push(d));
        call.on("end", res);
        call.on("error", rej);
      });
      call.write({ host: "h", file_containing_symbol: "grpc.health.v1.Health.Check" });
      call.write({ list_services: "" });
      call.end();
      await done;
      expect(replies.map((r) => r.message_response)).toEqual(["file_descriptor_response", "list_services_response"]);
      expect(replies[0]).toMatchObject({ valid_host: "h", original_request: { file_containing_symbol: "grpc.health.v1.Health.Check" } });
      expect(replies[0].file_descriptor_response.file_descriptor_proto[0].toString("latin1")).toContain("grpc/health/v1/health.proto");
    } finally {
      client.close();
    }
  });
});
