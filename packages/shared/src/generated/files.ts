import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { DownloadHeader as _pincer_v1_DownloadHeader, DownloadHeader__Output as _pincer_v1_DownloadHeader__Output } from './pincer/v1/DownloadHeader.js';
import type { DownloadRequest as _pincer_v1_DownloadRequest, DownloadRequest__Output as _pincer_v1_DownloadRequest__Output } from './pincer/v1/DownloadRequest.js';
import type { DownloadResponse as _pincer_v1_DownloadResponse, DownloadResponse__Output as _pincer_v1_DownloadResponse__Output } from './pincer/v1/DownloadResponse.js';
import type { DownloadTrailer as _pincer_v1_DownloadTrailer, DownloadTrailer__Output as _pincer_v1_DownloadTrailer__Output } from './pincer/v1/DownloadTrailer.js';
import type { FileInfo as _pincer_v1_FileInfo, FileInfo__Output as _pincer_v1_FileInfo__Output } from './pincer/v1/FileInfo.js';
import type { FilesClient as _pincer_v1_FilesClient, FilesDefinition as _pincer_v1_FilesDefinition } from './pincer/v1/Files.js';
import type { FilesMoveRequest as _pincer_v1_FilesMoveRequest, FilesMoveRequest__Output as _pincer_v1_FilesMoveRequest__Output } from './pincer/v1/FilesMoveRequest.js';
import type { FilesMoveResponse as _pincer_v1_FilesMoveResponse, FilesMoveResponse__Output as _pincer_v1_FilesMoveResponse__Output } from './pincer/v1/FilesMoveResponse.js';
import type { ListRequest as _pincer_v1_ListRequest, ListRequest__Output as _pincer_v1_ListRequest__Output } from './pincer/v1/ListRequest.js';
import type { ListResponse as _pincer_v1_ListResponse, ListResponse__Output as _pincer_v1_ListResponse__Output } from './pincer/v1/ListResponse.js';
import type { MakeDirRequest as _pincer_v1_MakeDirRequest, MakeDirRequest__Output as _pincer_v1_MakeDirRequest__Output } from './pincer/v1/MakeDirRequest.js';
import type { MakeDirResponse as _pincer_v1_MakeDirResponse, MakeDirResponse__Output as _pincer_v1_MakeDirResponse__Output } from './pincer/v1/MakeDirResponse.js';
import type { RemoveRequest as _pincer_v1_RemoveRequest, RemoveRequest__Output as _pincer_v1_RemoveRequest__Output } from './pincer/v1/RemoveRequest.js';
import type { RemoveResponse as _pincer_v1_RemoveResponse, RemoveResponse__Output as _pincer_v1_RemoveResponse__Output } from './pincer/v1/RemoveResponse.js';
import type { StatRequest as _pincer_v1_StatRequest, StatRequest__Output as _pincer_v1_StatRequest__Output } from './pincer/v1/StatRequest.js';
import type { StatResponse as _pincer_v1_StatResponse, StatResponse__Output as _pincer_v1_StatResponse__Output } from './pincer/v1/StatResponse.js';
import type { UploadHeader as _pincer_v1_UploadHeader, UploadHeader__Output as _pincer_v1_UploadHeader__Output } from './pincer/v1/UploadHeader.js';
import type { UploadRequest as _pincer_v1_UploadRequest, UploadRequest__Output as _pincer_v1_UploadRequest__Output } from './pincer/v1/UploadRequest.js';
import type { UploadResponse as _pincer_v1_UploadResponse, UploadResponse__Output as _pincer_v1_UploadResponse__Output } from './pincer/v1/UploadResponse.js';
import type { UploadTrailer as _pincer_v1_UploadTrailer, UploadTrailer__Output as _pincer_v1_UploadTrailer__Output } from './pincer/v1/UploadTrailer.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  pincer: {
    v1: {
      DownloadHeader: MessageTypeDefinition<_pincer_v1_DownloadHeader, _pincer_v1_DownloadHeader__Output>
      DownloadRequest: MessageTypeDefinition<_pincer_v1_DownloadRequest, _pincer_v1_DownloadRequest__Output>
      DownloadResponse: MessageTypeDefinition<_pincer_v1_DownloadResponse, _pincer_v1_DownloadResponse__Output>
      DownloadTrailer: MessageTypeDefinition<_pincer_v1_DownloadTrailer, _pincer_v1_DownloadTrailer__Output>
      FileInfo: MessageTypeDefinition<_pincer_v1_FileInfo, _pincer_v1_FileInfo__Output>
      FileType: EnumTypeDefinition
      /**
       * Files on the machine: streamed, verified uploads and downloads, and the usual directory operations.
       * Every path is absolute. Errors: a missing path is NOT_FOUND, an existing target without
       * overwrite is ALREADY_EXISTS, the OS refusing is PERMISSION_DENIED, a bad path INVALID_ARGUMENT;
       * each message names the path.
       */
      Files: SubtypeConstructor<typeof grpc.Client, _pincer_v1_FilesClient> & { service: _pincer_v1_FilesDefinition }
      FilesMoveRequest: MessageTypeDefinition<_pincer_v1_FilesMoveRequest, _pincer_v1_FilesMoveRequest__Output>
      FilesMoveResponse: MessageTypeDefinition<_pincer_v1_FilesMoveResponse, _pincer_v1_FilesMoveResponse__Output>
      ListRequest: MessageTypeDefinition<_pincer_v1_ListRequest, _pincer_v1_ListRequest__Output>
      ListResponse: MessageTypeDefinition<_pincer_v1_ListResponse, _pincer_v1_ListResponse__Output>
      MakeDirRequest: MessageTypeDefinition<_pincer_v1_MakeDirRequest, _pincer_v1_MakeDirRequest__Output>
      MakeDirResponse: MessageTypeDefinition<_pincer_v1_MakeDirResponse, _pincer_v1_MakeDirResponse__Output>
      RemoveRequest: MessageTypeDefinition<_pincer_v1_RemoveRequest, _pincer_v1_RemoveRequest__Output>
      RemoveResponse: MessageTypeDefinition<_pincer_v1_RemoveResponse, _pincer_v1_RemoveResponse__Output>
      StatRequest: MessageTypeDefinition<_pincer_v1_StatRequest, _pincer_v1_StatRequest__Output>
      StatResponse: MessageTypeDefinition<_pincer_v1_StatResponse, _pincer_v1_StatResponse__Output>
      UploadHeader: MessageTypeDefinition<_pincer_v1_UploadHeader, _pincer_v1_UploadHeader__Output>
      UploadRequest: MessageTypeDefinition<_pincer_v1_UploadRequest, _pincer_v1_UploadRequest__Output>
      UploadResponse: MessageTypeDefinition<_pincer_v1_UploadResponse, _pincer_v1_UploadResponse__Output>
      UploadTrailer: MessageTypeDefinition<_pincer_v1_UploadTrailer, _pincer_v1_UploadTrailer__Output>
    }
  }
}

