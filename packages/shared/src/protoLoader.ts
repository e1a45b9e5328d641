import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { passEncodedChunks } from "./chunks.js";
import type { ProtoGrpcType as InputProto } from "./generated/input.js";
import type { ProtoGrpcType as ScreenProto } from "./generated/screen.js";
import type { ProtoGrpcType as SystemProto } from "./generated/system.js";
import type { ProtoGrpcType as FilesProto } from "./generated/files.js";
import type { ProtoGrpcType as ProcessProto } from "./generated/process.js";
import type { ProtoGrpcType as AccessibilityProto } from "./generated/accessibility.js";

/** The typed gRPC object of the whole `pincer.v1` package. */
export type PincerProto = {
  pincer: {
    v1: InputProto["pincer"]["v1"] &
      ScreenProto["pincer"]["v1"] &
      SystemProto["pincer"]["v1"] &
      FilesProto["pincer"]["v1"] &
      ProcessProto["pincer"]["v1"] &
      AccessibilityProto["pincer"]["v1"];
  };
};

/**
 * The one set of proto-loader options. `scripts/gen.ts` turns the same object into
 * `proto-loader-gen-types` flags, so the generated types always describe what `loadSync` returns.
 */
export const LOADER_OPTIONS = {
  keepCase: false,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
} as const satisfies protoLoader.Options;

/** The proto files of the wire contract, relative to {@link PROTO_ROOT}. */
export const PROTO_FILES = [
  "pincer/v1/common.proto",
  "pincer/v1/input.proto",
  "pincer/v1/screen.proto",
  "pincer/v1/system.proto",
  "pincer/v1/files.proto",
  "pincer/v1/process.proto",
  "pincer/v1/accessibility.proto",
] as const;

function findProtoRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  // src/ or dist/ inside packages/shared in the repository, or a packaged copy beside dist/.
  const candidates = [resolve(here, "../../../proto"), resolve(here, "../proto")];
  const found = candidates.find((dir) => existsSync(join(dir, PROTO_FILES[0])));
  if (!found) throw new Error(`pincer proto files not found (looked in ${candidates.join(", ")})`);
  return found;
}

/** Directory holding `pincer/v1/*.proto`. */
export const PROTO_ROOT = findProtoRoot();

let cached: { definition: protoLoader.PackageDefinition; grpcObject: PincerProto } | undefined;

/** Loads the wire contract once per process. */
export function loadProtocol(): { definition: protoLoader.PackageDefinition; grpcObject: PincerProto } {
  if (!cached) {
    const definition = protoLoader.loadSync([...PROTO_FILES], { ...LOADER_OPTIONS, includeDirs: [PROTO_ROOT] });
    // File data may be written as pre-encoded chunk messages (chunks.ts), on both ends.
    const files = definition["pincer.v1.Files"] as protoLoader.ServiceDefinition;
    files.Upload!.requestSerialize = passEncodedChunks(files.Upload!.requestSerialize);
    files.Download!.responseSerialize = passEncodedChunks(files.Download!.responseSerialize);
    // The single place where the loader's untyped object meets the generated types.
    const grpcObject = grpc.loadPackageDefinition(definition) as unknown as PincerProto;
    cached = { definition, grpcObject };
  }
  return cached;
}
