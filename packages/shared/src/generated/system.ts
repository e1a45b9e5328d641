import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { CloseWindowRequest as _pincer_v1_CloseWindowRequest, CloseWindowRequest__Output as _pincer_v1_CloseWindowRequest__Output } from './pincer/v1/CloseWindowRequest.js';
import type { CloseWindowResponse as _pincer_v1_CloseWindowResponse, CloseWindowResponse__Output as _pincer_v1_CloseWindowResponse__Output } from './pincer/v1/CloseWindowResponse.js';
import type { Drivers as _pincer_v1_Drivers, Drivers__Output as _pincer_v1_Drivers__Output } from './pincer/v1/Drivers.js';
import type { FocusWindowRequest as _pincer_v1_FocusWindowRequest, FocusWindowRequest__Output as _pincer_v1_FocusWindowRequest__Output } from './pincer/v1/FocusWindowRequest.js';
import type { FocusWindowResponse as _pincer_v1_FocusWindowResponse, FocusWindowResponse__Output as _pincer_v1_FocusWindowResponse__Output } from './pincer/v1/FocusWindowResponse.js';
import type { GetClipboardRequest as _pincer_v1_GetClipboardRequest, GetClipboardRequest__Output as _pincer_v1_GetClipboardRequest__Output } from './pincer/v1/GetClipboardRequest.js';
import type { GetClipboardResponse as _pincer_v1_GetClipboardResponse, GetClipboardResponse__Output as _pincer_v1_GetClipboardResponse__Output } from './pincer/v1/GetClipboardResponse.js';
import type { GetInfoRequest as _pincer_v1_GetInfoRequest, GetInfoRequest__Output as _pincer_v1_GetInfoRequest__Output } from './pincer/v1/GetInfoRequest.js';
import type { GetInfoResponse as _pincer_v1_GetInfoResponse, GetInfoResponse__Output as _pincer_v1_GetInfoResponse__Output } from './pincer/v1/GetInfoResponse.js';
import type { ListWindowsRequest as _pincer_v1_ListWindowsRequest, ListWindowsRequest__Output as _pincer_v1_ListWindowsRequest__Output } from './pincer/v1/ListWindowsRequest.js';
import type { ListWindowsResponse as _pincer_v1_ListWindowsResponse, ListWindowsResponse__Output as _pincer_v1_ListWindowsResponse__Output } from './pincer/v1/ListWindowsResponse.js';
import type { Point as _pincer_v1_Point, Point__Output as _pincer_v1_Point__Output } from './pincer/v1/Point.js';
import type { Region as _pincer_v1_Region, Region__Output as _pincer_v1_Region__Output } from './pincer/v1/Region.js';
import type { SetClipboardRequest as _pincer_v1_SetClipboardRequest, SetClipboardRequest__Output as _pincer_v1_SetClipboardRequest__Output } from './pincer/v1/SetClipboardRequest.js';
import type { SetClipboardResponse as _pincer_v1_SetClipboardResponse, SetClipboardResponse__Output as _pincer_v1_SetClipboardResponse__Output } from './pincer/v1/SetClipboardResponse.js';
import type { Size as _pincer_v1_Size, Size__Output as _pincer_v1_Size__Output } from './pincer/v1/Size.js';
import type { SystemClient as _pincer_v1_SystemClient, SystemDefinition as _pincer_v1_SystemDefinition } from './pincer/v1/System.js';
import type { Window as _pincer_v1_Window, Window__Output as _pincer_v1_Window__Output } from './pincer/v1/Window.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  pincer: {
    v1: {
      CloseWindowRequest: MessageTypeDefinition<_pincer_v1_CloseWindowRequest, _pincer_v1_CloseWindowRequest__Output>
      CloseWindowResponse: MessageTypeDefinition<_pincer_v1_CloseWindowResponse, _pincer_v1_CloseWindowResponse__Output>
      Drivers: MessageTypeDefinition<_pincer_v1_Drivers, _pincer_v1_Drivers__Output>
      FocusWindowRequest: MessageTypeDefinition<_pincer_v1_FocusWindowRequest, _pincer_v1_FocusWindowRequest__Output>
      FocusWindowResponse: MessageTypeDefinition<_pincer_v1_FocusWindowResponse, _pincer_v1_FocusWindowResponse__Output>
      GetClipboardRequest: MessageTypeDefinition<_pincer_v1_GetClipboardRequest, _pincer_v1_GetClipboardRequest__Output>
      GetClipboardResponse: MessageTypeDefinition<_pincer_v1_GetClipboardResponse, _pincer_v1_GetClipboardResponse__Output>
      GetInfoRequest: MessageTypeDefinition<_pincer_v1_GetInfoRequest, _pincer_v1_GetInfoRequest__Output>
      GetInfoResponse: MessageTypeDefinition<_pincer_v1_GetInfoResponse, _pincer_v1_GetInfoResponse__Output>
      ListWindowsRequest: MessageTypeDefinition<_pincer_v1_ListWindowsRequest, _pincer_v1_ListWindowsRequest__Output>
      ListWindowsResponse: MessageTypeDefinition<_pincer_v1_ListWindowsResponse, _pincer_v1_ListWindowsResponse__Output>
      Point: MessageTypeDefinition<_pincer_v1_Point, _pincer_v1_Point__Output>
      Region: MessageTypeDefinition<_pincer_v1_Region, _pincer_v1_Region__Output>
      SetClipboardRequest: MessageTypeDefinition<_pincer_v1_SetClipboardRequest, _pincer_v1_SetClipboardRequest__Output>
      SetClipboardResponse: MessageTypeDefinition<_pincer_v1_SetClipboardResponse, _pincer_v1_SetClipboardResponse__Output>
      Size: MessageTypeDefinition<_pincer_v1_Size, _pincer_v1_Size__Output>
      /**
       * What this machine and daemon are, and what they can do.
       */
      System: SubtypeConstructor<typeof grpc.Client, _pincer_v1_SystemClient> & { service: _pincer_v1_SystemDefinition }
      Window: MessageTypeDefinition<_pincer_v1_Window, _pincer_v1_Window__Output>
    }
  }
}

