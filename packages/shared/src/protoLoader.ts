import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { passEncodedChunks } from "./chunks.js";
import { LOADER_OPTIONS } from "./contract.js";
import { CONTRACT_JSON } from "./generated/contractJson.js";
import type { ProtoGrpcType as InputProto } from "./generated/input.js";
import type { ProtoGrpcType as ScreenProto } from "./generated/screen.js";
import type { ProtoGrpcType as SystemProto } from "./generated/system.js";
import type { ProtoGrpcType as FilesProto } from "./generated/files.js";
import type { ProtoGrpcType as ProcessProto } from "./generated/process.js";
import type { ProtoGrpcType as AccessibilityProto } from "./generated/accessibility.js";
import type { ProtoGrpcType as EpisodesProto } from "./generated/episodes.js";

/** The typed gRPC object of the whole `pincer.v1` package. */
export type PincerProto = {
  pincer: {
    v1: InputProto["pincer"]["v1"] &
      ScreenProto["pincer"]["v1"] &
      SystemProto["pincer"]["v1"] &
      FilesProto["pincer"]["v1"] &
      ProcessProto["pincer"]["v1"] &
      AccessibilityProto["pincer"]["v1"] &
      EpisodesProto["pincer"]["v1"];
  };
};

let cached: { definition: protoLoader.PackageDefinition; grpcObject: PincerProto } | undefined;

/**
 * Loads the wire contract once per process, from the copy embedded in this package (`npm run gen`
 * builds it from proto/): no file is read at run time.
 */
export function loadProtocol(): { definition: protoLoader.PackageDefinition; grpcObject: PincerProto } {
  if (!cached) {
    const definition = protoLoader.fromJSON(JSON.parse(CONTRACT_JSON), LOADER_OPTIONS);
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
