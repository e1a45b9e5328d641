export { LOADER_OPTIONS, PROTO_FILES } from "./contract.js";
export { loadProtocol } from "./protoLoader.js";
export type { PincerProto } from "./protoLoader.js";
export { DESCRIPTOR_SET_BASE64 } from "./generated/descriptorSet.js";
export * from "./errors.js";
export { MAX_ECHO_BYTES, MAX_STATUS_MESSAGE_BYTES, capText, echo, quoted } from "./echo.js";
export { didYouMean, editDistance, nearNames } from "./nearNames.js";
export { STATUS_DETAILS_KEY, decodeFieldViolations, encodeBadRequestStatus } from "./statusDetails.js";
export { ChunkReader, encodeLargeMessagesFramed, FRAMED_ENCODING_FROM, framedBytes, framedChunk } from "./chunks.js";
export type { EncodedChunk, ReadChunk } from "./chunks.js";
export { DIRECT_IO_MIN_BYTES, openDirect } from "./directIo.js";
export { FileSink } from "./fileSink.js";
export { decodeIntoPool, pooledBytes } from "./receivePool.js";
export type { FileSinkOptions } from "./fileSink.js";
export { DAEMON_MALLOC_ENV, DAEMON_NODE_FLAGS, hasMallocEnv, hasNodeFlags } from "./nodeFlags.js";
export { processAlive } from "./processes.js";
export { ENCODED_IMAGE_FORMATS, IMAGE_FORMATS, imageFormatOfMime, imageFormatOfWire, imageMimeType } from "./imageFormats.js";
export type { ImageFormat, ImageFormatInfo } from "./imageFormats.js";
export { pause, sleep } from "./sleep.js";
export { ensureInsideRoot, FileRoot, fileRoot, unanchored } from "./fileRoot.js";
export type { Anchored, AnchorOptions, FileRootOptions, Jail } from "./fileRoot.js";
export { fsError } from "./fsErrors.js";
export {
  KeyNameError,
  keyVocabulary,
  keysymForChar,
  parseChord,
  resolveKey,
  resolveKeyOrThrow,
} from "./keys.js";
export type { KeySpec } from "./keys.js";
export { PINCER_VERSION, PROTOCOL_VERSION } from "./version.js";
export type * as wire from "./wire.js";
export { parseScreenSpec, startXvfb } from "./xvfb.js";
export type { XvfbOptions, XvfbServer } from "./xvfb.js";
export { fullServiceName, methodKind, methodLabel, serviceDefinition, serviceNames } from "./services.js";
export type {
  KindOf,
  MethodKind,
  MethodName,
  RequestOf,
  RequestOutputOf,
  ResponseOf,
  ResponseOutputOf,
  RuntimeMethod,
  ServiceClient,
  ServiceDefinitionOf,
  ServiceName,
} from "./services.js";
export { loadTlsFiles, serverCredentials, type TlsFiles, type TlsOptions } from "./tls.js";
export { authProblem, bearerOf, bearerToken, MIN_TOKEN_LENGTH, readTokenFile, tokenChecker, validToken } from "./tokens.js";
