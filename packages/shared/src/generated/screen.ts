import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { GetScreenSizeRequest as _pincer_v1_GetScreenSizeRequest, GetScreenSizeRequest__Output as _pincer_v1_GetScreenSizeRequest__Output } from './pincer/v1/GetScreenSizeRequest.js';
import type { GetScreenSizeResponse as _pincer_v1_GetScreenSizeResponse, GetScreenSizeResponse__Output as _pincer_v1_GetScreenSizeResponse__Output } from './pincer/v1/GetScreenSizeResponse.js';
import type { Point as _pincer_v1_Point, Point__Output as _pincer_v1_Point__Output } from './pincer/v1/Point.js';
import type { Region as _pincer_v1_Region, Region__Output as _pincer_v1_Region__Output } from './pincer/v1/Region.js';
import type { ScreenClient as _pincer_v1_ScreenClient, ScreenDefinition as _pincer_v1_ScreenDefinition } from './pincer/v1/Screen.js';
import type { ScreenshotRequest as _pincer_v1_ScreenshotRequest, ScreenshotRequest__Output as _pincer_v1_ScreenshotRequest__Output } from './pincer/v1/ScreenshotRequest.js';
import type { ScreenshotResponse as _pincer_v1_ScreenshotResponse, ScreenshotResponse__Output as _pincer_v1_ScreenshotResponse__Output } from './pincer/v1/ScreenshotResponse.js';
import type { Size as _pincer_v1_Size, Size__Output as _pincer_v1_Size__Output } from './pincer/v1/Size.js';
import type { WaitForSettleRequest as _pincer_v1_WaitForSettleRequest, WaitForSettleRequest__Output as _pincer_v1_WaitForSettleRequest__Output } from './pincer/v1/WaitForSettleRequest.js';
import type { WaitForSettleResponse as _pincer_v1_WaitForSettleResponse, WaitForSettleResponse__Output as _pincer_v1_WaitForSettleResponse__Output } from './pincer/v1/WaitForSettleResponse.js';
import type { WatchRequest as _pincer_v1_WatchRequest, WatchRequest__Output as _pincer_v1_WatchRequest__Output } from './pincer/v1/WatchRequest.js';
import type { WatchResponse as _pincer_v1_WatchResponse, WatchResponse__Output as _pincer_v1_WatchResponse__Output } from './pincer/v1/WatchResponse.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  pincer: {
    v1: {
      GetScreenSizeRequest: MessageTypeDefinition<_pincer_v1_GetScreenSizeRequest, _pincer_v1_GetScreenSizeRequest__Output>
      GetScreenSizeResponse: MessageTypeDefinition<_pincer_v1_GetScreenSizeResponse, _pincer_v1_GetScreenSizeResponse__Output>
      ImageFormat: EnumTypeDefinition
      Point: MessageTypeDefinition<_pincer_v1_Point, _pincer_v1_Point__Output>
      Region: MessageTypeDefinition<_pincer_v1_Region, _pincer_v1_Region__Output>
      /**
       * Screenshots of the machine's display, captured in-process and encoded with sharp.
       */
      Screen: SubtypeConstructor<typeof grpc.Client, _pincer_v1_ScreenClient> & { service: _pincer_v1_ScreenDefinition }
      ScreenshotRequest: MessageTypeDefinition<_pincer_v1_ScreenshotRequest, _pincer_v1_ScreenshotRequest__Output>
      ScreenshotResponse: MessageTypeDefinition<_pincer_v1_ScreenshotResponse, _pincer_v1_ScreenshotResponse__Output>
      Size: MessageTypeDefinition<_pincer_v1_Size, _pincer_v1_Size__Output>
      WaitForSettleRequest: MessageTypeDefinition<_pincer_v1_WaitForSettleRequest, _pincer_v1_WaitForSettleRequest__Output>
      WaitForSettleResponse: MessageTypeDefinition<_pincer_v1_WaitForSettleResponse, _pincer_v1_WaitForSettleResponse__Output>
      WatchRequest: MessageTypeDefinition<_pincer_v1_WatchRequest, _pincer_v1_WatchRequest__Output>
      WatchResponse: MessageTypeDefinition<_pincer_v1_WatchResponse, _pincer_v1_WatchResponse__Output>
    }
  }
}

