import type * as protoLoader from "@grpc/proto-loader";

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

/** The proto files of the wire contract, relative to the repository's `proto/`. */
export const PROTO_FILES = [
  "pincer/v1/common.proto",
  "pincer/v1/input.proto",
  "pincer/v1/screen.proto",
  "pincer/v1/system.proto",
  "pincer/v1/files.proto",
  "pincer/v1/process.proto",
  "pincer/v1/accessibility.proto",
  "pincer/v1/episodes.proto",
] as const;
