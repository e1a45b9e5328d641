// Original file: pincer/v1/files.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { DownloadRequest as _pincer_v1_DownloadRequest, DownloadRequest__Output as _pincer_v1_DownloadRequest__Output } from '../../pincer/v1/DownloadRequest.js';
import type { DownloadResponse as _pincer_v1_DownloadResponse, DownloadResponse__Output as _pincer_v1_DownloadResponse__Output } from '../../pincer/v1/DownloadResponse.js';
import type { FilesMoveRequest as _pincer_v1_FilesMoveRequest, FilesMoveRequest__Output as _pincer_v1_FilesMoveRequest__Output } from '../../pincer/v1/FilesMoveRequest.js';
import type { FilesMoveResponse as _pincer_v1_FilesMoveResponse, FilesMoveResponse__Output as _pincer_v1_FilesMoveResponse__Output } from '../../pincer/v1/FilesMoveResponse.js';
import type { ListRequest as _pincer_v1_ListRequest, ListRequest__Output as _pincer_v1_ListRequest__Output } from '../../pincer/v1/ListRequest.js';
import type { ListResponse as _pincer_v1_ListResponse, ListResponse__Output as _pincer_v1_ListResponse__Output } from '../../pincer/v1/ListResponse.js';
import type { MakeDirRequest as _pincer_v1_MakeDirRequest, MakeDirRequest__Output as _pincer_v1_MakeDirRequest__Output } from '../../pincer/v1/MakeDirRequest.js';
import type { MakeDirResponse as _pincer_v1_MakeDirResponse, MakeDirResponse__Output as _pincer_v1_MakeDirResponse__Output } from '../../pincer/v1/MakeDirResponse.js';
import type { RemoveRequest as _pincer_v1_RemoveRequest, RemoveRequest__Output as _pincer_v1_RemoveRequest__Output } from '../../pincer/v1/RemoveRequest.js';
import type { RemoveResponse as _pincer_v1_RemoveResponse, RemoveResponse__Output as _pincer_v1_RemoveResponse__Output } from '../../pincer/v1/RemoveResponse.js';
import type { StatRequest as _pincer_v1_StatRequest, StatRequest__Output as _pincer_v1_StatRequest__Output } from '../../pincer/v1/StatRequest.js';
import type { StatResponse as _pincer_v1_StatResponse, StatResponse__Output as _pincer_v1_StatResponse__Output } from '../../pincer/v1/StatResponse.js';
import type { UploadRequest as _pincer_v1_UploadRequest, UploadRequest__Output as _pincer_v1_UploadRequest__Output } from '../../pincer/v1/UploadRequest.js';
import type { UploadResponse as _pincer_v1_UploadResponse, UploadResponse__Output as _pincer_v1_UploadResponse__Output } from '../../pincer/v1/UploadResponse.js';

/**
 * Files on the machine: streamed, verified uploads and downloads, and the usual directory operations.
 * Every path is absolute. Errors: a missing path is NOT_FOUND, an existing target without
 * overwrite is ALREADY_EXISTS, the OS refusing is PERMISSION_DENIED, a bad path INVALID_ARGUMENT;
 * each message names the path.
 */
export interface FilesClient extends grpc.Client {
  /**
   * Server stream: a header (size), data chunks from the offset, a trailer with the sha256 of
   * the bytes sent.
   */
  Download(argument: _pincer_v1_DownloadRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_pincer_v1_DownloadResponse__Output>;
  Download(argument: _pincer_v1_DownloadRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_pincer_v1_DownloadResponse__Output>;
  /**
   * Server stream: a header (size), data chunks from the offset, a trailer with the sha256 of
   * the bytes sent.
   */
  download(argument: _pincer_v1_DownloadRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_pincer_v1_DownloadResponse__Output>;
  download(argument: _pincer_v1_DownloadRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_pincer_v1_DownloadResponse__Output>;
  
  List(argument: _pincer_v1_ListRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ListResponse__Output>): grpc.ClientUnaryCall;
  List(argument: _pincer_v1_ListRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_ListResponse__Output>): grpc.ClientUnaryCall;
  List(argument: _pincer_v1_ListRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ListResponse__Output>): grpc.ClientUnaryCall;
  List(argument: _pincer_v1_ListRequest, callback: grpc.requestCallback<_pincer_v1_ListResponse__Output>): grpc.ClientUnaryCall;
  list(argument: _pincer_v1_ListRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ListResponse__Output>): grpc.ClientUnaryCall;
  list(argument: _pincer_v1_ListRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_ListResponse__Output>): grpc.ClientUnaryCall;
  list(argument: _pincer_v1_ListRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ListResponse__Output>): grpc.ClientUnaryCall;
  list(argument: _pincer_v1_ListRequest, callback: grpc.requestCallback<_pincer_v1_ListResponse__Output>): grpc.ClientUnaryCall;
  
  MakeDir(argument: _pincer_v1_MakeDirRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_MakeDirResponse__Output>): grpc.ClientUnaryCall;
  MakeDir(argument: _pincer_v1_MakeDirRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_MakeDirResponse__Output>): grpc.ClientUnaryCall;
  MakeDir(argument: _pincer_v1_MakeDirRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_MakeDirResponse__Output>): grpc.ClientUnaryCall;
  MakeDir(argument: _pincer_v1_MakeDirRequest, callback: grpc.requestCallback<_pincer_v1_MakeDirResponse__Output>): grpc.ClientUnaryCall;
  makeDir(argument: _pincer_v1_MakeDirRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_MakeDirResponse__Output>): grpc.ClientUnaryCall;
  makeDir(argument: _pincer_v1_MakeDirRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_MakeDirResponse__Output>): grpc.ClientUnaryCall;
  makeDir(argument: _pincer_v1_MakeDirRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_MakeDirResponse__Output>): grpc.ClientUnaryCall;
  makeDir(argument: _pincer_v1_MakeDirRequest, callback: grpc.requestCallback<_pincer_v1_MakeDirResponse__Output>): grpc.ClientUnaryCall;
  
  Move(argument: _pincer_v1_FilesMoveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_FilesMoveResponse__Output>): grpc.ClientUnaryCall;
  Move(argument: _pincer_v1_FilesMoveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_FilesMoveResponse__Output>): grpc.ClientUnaryCall;
  Move(argument: _pincer_v1_FilesMoveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_FilesMoveResponse__Output>): grpc.ClientUnaryCall;
  Move(argument: _pincer_v1_FilesMoveRequest, callback: grpc.requestCallback<_pincer_v1_FilesMoveResponse__Output>): grpc.ClientUnaryCall;
  move(argument: _pincer_v1_FilesMoveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_FilesMoveResponse__Output>): grpc.ClientUnaryCall;
  move(argument: _pincer_v1_FilesMoveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_FilesMoveResponse__Output>): grpc.ClientUnaryCall;
  move(argument: _pincer_v1_FilesMoveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_FilesMoveResponse__Output>): grpc.ClientUnaryCall;
  move(argument: _pincer_v1_FilesMoveRequest, callback: grpc.requestCallback<_pincer_v1_FilesMoveResponse__Output>): grpc.ClientUnaryCall;
  
  Remove(argument: _pincer_v1_RemoveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_RemoveResponse__Output>): grpc.ClientUnaryCall;
  Remove(argument: _pincer_v1_RemoveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_RemoveResponse__Output>): grpc.ClientUnaryCall;
  Remove(argument: _pincer_v1_RemoveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_RemoveResponse__Output>): grpc.ClientUnaryCall;
  Remove(argument: _pincer_v1_RemoveRequest, callback: grpc.requestCallback<_pincer_v1_RemoveResponse__Output>): grpc.ClientUnaryCall;
  remove(argument: _pincer_v1_RemoveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_RemoveResponse__Output>): grpc.ClientUnaryCall;
  remove(argument: _pincer_v1_RemoveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_RemoveResponse__Output>): grpc.ClientUnaryCall;
  remove(argument: _pincer_v1_RemoveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_RemoveResponse__Output>): grpc.ClientUnaryCall;
  remove(argument: _pincer_v1_RemoveRequest, callback: grpc.requestCallback<_pincer_v1_RemoveResponse__Output>): grpc.ClientUnaryCall;
  
  Stat(argument: _pincer_v1_StatRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  Stat(argument: _pincer_v1_StatRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  Stat(argument: _pincer_v1_StatRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  Stat(argument: _pincer_v1_StatRequest, callback: grpc.requestCallback<_pincer_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  stat(argument: _pincer_v1_StatRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  stat(argument: _pincer_v1_StatRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  stat(argument: _pincer_v1_StatRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  stat(argument: _pincer_v1_StatRequest, callback: grpc.requestCallback<_pincer_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Client stream: one header, data chunks of at most 1 MiB, optionally a trailer. The daemon
   * writes a temporary file beside the destination, verifies size and sha256 (from the header or
   * the trailer), fsyncs and renames it into place. A broken or cancelled stream, a mismatch or a
   * full disk leaves nothing at the destination.
   */
  Upload(metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_UploadResponse__Output>): grpc.ClientWritableStream<_pincer_v1_UploadRequest>;
  Upload(metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_UploadResponse__Output>): grpc.ClientWritableStream<_pincer_v1_UploadRequest>;
  Upload(options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_UploadResponse__Output>): grpc.ClientWritableStream<_pincer_v1_UploadRequest>;
  Upload(callback: grpc.requestCallback<_pincer_v1_UploadResponse__Output>): grpc.ClientWritableStream<_pincer_v1_UploadRequest>;
  /**
   * Client stream: one header, data chunks of at most 1 MiB, optionally a trailer. The daemon
   * writes a temporary file beside the destination, verifies size and sha256 (from the header or
   * the trailer), fsyncs and renames it into place. A broken or cancelled stream, a mismatch or a
   * full disk leaves nothing at the destination.
   */
  upload(metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_UploadResponse__Output>): grpc.ClientWritableStream<_pincer_v1_UploadRequest>;
  upload(metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_UploadResponse__Output>): grpc.ClientWritableStream<_pincer_v1_UploadRequest>;
  upload(options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_UploadResponse__Output>): grpc.ClientWritableStream<_pincer_v1_UploadRequest>;
  upload(callback: grpc.requestCallback<_pincer_v1_UploadResponse__Output>): grpc.ClientWritableStream<_pincer_v1_UploadRequest>;
  
}

/**
 * Files on the machine: streamed, verified uploads and downloads, and the usual directory operations.
 * Every path is absolute. Errors: a missing path is NOT_FOUND, an existing target without
 * overwrite is ALREADY_EXISTS, the OS refusing is PERMISSION_DENIED, a bad path INVALID_ARGUMENT;
 * each message names the path.
 */
export interface FilesHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Server stream: a header (size), data chunks from the offset, a trailer with the sha256 of
   * the bytes sent.
   */
  Download: grpc.handleServerStreamingCall<_pincer_v1_DownloadRequest__Output, _pincer_v1_DownloadResponse>;
  
  List: grpc.handleUnaryCall<_pincer_v1_ListRequest__Output, _pincer_v1_ListResponse>;
  
  MakeDir: grpc.handleUnaryCall<_pincer_v1_MakeDirRequest__Output, _pincer_v1_MakeDirResponse>;
  
  Move: grpc.handleUnaryCall<_pincer_v1_FilesMoveRequest__Output, _pincer_v1_FilesMoveResponse>;
  
  Remove: grpc.handleUnaryCall<_pincer_v1_RemoveRequest__Output, _pincer_v1_RemoveResponse>;
  
  Stat: grpc.handleUnaryCall<_pincer_v1_StatRequest__Output, _pincer_v1_StatResponse>;
  
  /**
   * Client stream: one header, data chunks of at most 1 MiB, optionally a trailer. The daemon
   * writes a temporary file beside the destination, verifies size and sha256 (from the header or
   * the trailer), fsyncs and renames it into place. A broken or cancelled stream, a mismatch or a
   * full disk leaves nothing at the destination.
   */
  Upload: grpc.handleClientStreamingCall<_pincer_v1_UploadRequest__Output, _pincer_v1_UploadResponse>;
  
}

export interface FilesDefinition extends grpc.ServiceDefinition {
  Download: MethodDefinition<_pincer_v1_DownloadRequest, _pincer_v1_DownloadResponse, _pincer_v1_DownloadRequest__Output, _pincer_v1_DownloadResponse__Output>
  List: MethodDefinition<_pincer_v1_ListRequest, _pincer_v1_ListResponse, _pincer_v1_ListRequest__Output, _pincer_v1_ListResponse__Output>
  MakeDir: MethodDefinition<_pincer_v1_MakeDirRequest, _pincer_v1_MakeDirResponse, _pincer_v1_MakeDirRequest__Output, _pincer_v1_MakeDirResponse__Output>
  Move: MethodDefinition<_pincer_v1_FilesMoveRequest, _pincer_v1_FilesMoveResponse, _pincer_v1_FilesMoveRequest__Output, _pincer_v1_FilesMoveResponse__Output>
  Remove: MethodDefinition<_pincer_v1_RemoveRequest, _pincer_v1_RemoveResponse, _pincer_v1_RemoveRequest__Output, _pincer_v1_RemoveResponse__Output>
  Stat: MethodDefinition<_pincer_v1_StatRequest, _pincer_v1_StatResponse, _pincer_v1_StatRequest__Output, _pincer_v1_StatResponse__Output>
  Upload: MethodDefinition<_pincer_v1_UploadRequest, _pincer_v1_UploadResponse, _pincer_v1_UploadRequest__Output, _pincer_v1_UploadResponse__Output>
}
