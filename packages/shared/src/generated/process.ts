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
import type { LaunchRequest as _pincer_v1_LaunchRequest, LaunchRequest__Output as _pincer_v1_LaunchRequest__Output } from './pincer/v1/LaunchRequest.js';
import type { LaunchResponse as _pincer_v1_LaunchResponse, LaunchResponse__Output as _pincer_v1_LaunchResponse__Output } from './pincer/v1/LaunchResponse.js';
import type { ListWindowsRequest as _pincer_v1_ListWindowsRequest, ListWindowsRequest__Output as _pincer_v1_ListWindowsRequest__Output } from './pincer/v1/ListWindowsRequest.js';
import type { ListWindowsResponse as _pincer_v1_ListWindowsResponse, ListWindowsResponse__Output as _pincer_v1_ListWindowsResponse__Output } from './pincer/v1/ListWindowsResponse.js';
import type { Point as _pincer_v1_Point, Point__Output as _pincer_v1_Point__Output } from './pincer/v1/Point.js';
import type { ProcessClient as _pincer_v1_ProcessClient, ProcessDefinition as _pincer_v1_ProcessDefinition } from './pincer/v1/Process.js';
import type { ProcessExited as _pincer_v1_ProcessExited, ProcessExited__Output as _pincer_v1_ProcessExited__Output } from './pincer/v1/ProcessExited.js';
import type { ProcessInfo as _pincer_v1_ProcessInfo, ProcessInfo__Output as _pincer_v1_ProcessInfo__Output } from './pincer/v1/ProcessInfo.js';
import type { ProcessListRequest as _pincer_v1_ProcessListRequest, ProcessListRequest__Output as _pincer_v1_ProcessListRequest__Output } from './pincer/v1/ProcessListRequest.js';
import type { ProcessListResponse as _pincer_v1_ProcessListResponse, ProcessListResponse__Output as _pincer_v1_ProcessListResponse__Output } from './pincer/v1/ProcessListResponse.js';
import type { ProcessStarted as _pincer_v1_ProcessStarted, ProcessStarted__Output as _pincer_v1_ProcessStarted__Output } from './pincer/v1/ProcessStarted.js';
import type { Region as _pincer_v1_Region, Region__Output as _pincer_v1_Region__Output } from './pincer/v1/Region.js';
import type { RunRequest as _pincer_v1_RunRequest, RunRequest__Output as _pincer_v1_RunRequest__Output } from './pincer/v1/RunRequest.js';
import type { RunResponse as _pincer_v1_RunResponse, RunResponse__Output as _pincer_v1_RunResponse__Output } from './pincer/v1/RunResponse.js';
import type { SetClipboardRequest as _pincer_v1_SetClipboardRequest, SetClipboardRequest__Output as _pincer_v1_SetClipboardRequest__Output } from './pincer/v1/SetClipboardRequest.js';
import type { SetClipboardResponse as _pincer_v1_SetClipboardResponse, SetClipboardResponse__Output as _pincer_v1_SetClipboardResponse__Output } from './pincer/v1/SetClipboardResponse.js';
import type { SignalRequest as _pincer_v1_SignalRequest, SignalRequest__Output as _pincer_v1_SignalRequest__Output } from './pincer/v1/SignalRequest.js';
import type { SignalResponse as _pincer_v1_SignalResponse, SignalResponse__Output as _pincer_v1_SignalResponse__Output } from './pincer/v1/SignalResponse.js';
import type { Size as _pincer_v1_Size, Size__Output as _pincer_v1_Size__Output } from './pincer/v1/Size.js';
import type { StartRequest as _pincer_v1_StartRequest, StartRequest__Output as _pincer_v1_StartRequest__Output } from './pincer/v1/StartRequest.js';
import type { StartResponse as _pincer_v1_StartResponse, StartResponse__Output as _pincer_v1_StartResponse__Output } from './pincer/v1/StartResponse.js';
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
      LaunchRequest: MessageTypeDefinition<_pincer_v1_LaunchRequest, _pincer_v1_LaunchRequest__Output>
      LaunchResponse: MessageTypeDefinition<_pincer_v1_LaunchResponse, _pincer_v1_LaunchResponse__Output>
      ListWindowsRequest: MessageTypeDefinition<_pincer_v1_ListWindowsRequest, _pincer_v1_ListWindowsRequest__Output>
      ListWindowsResponse: MessageTypeDefinition<_pincer_v1_ListWindowsResponse, _pincer_v1_ListWindowsResponse__Output>
      Point: MessageTypeDefinition<_pincer_v1_Point, _pincer_v1_Point__Output>
      /**
       * Commands on the machine. Every command runs in its own process group and, where the daemon can
       * create cgroups (cgroup v2, writable), its own cgroup. A timeout or a cancelled call sends SIGTERM
       * to the group, then SIGKILL to everything the command started, after a grace period or as soon as
       * the command has exited: grandchildren die too, also those that called setsid, forked twice or
       * called daemon(3) (without cgroups, those survive until the daemon stops). A command that exits on
       * its own leaves what it started in the background running. When the daemon stops, everything its
       * commands started is killed.
       */
      Process: SubtypeConstructor<typeof grpc.Client, _pincer_v1_ProcessClient> & { service: _pincer_v1_ProcessDefinition }
      ProcessExited: MessageTypeDefinition<_pincer_v1_ProcessExited, _pincer_v1_ProcessExited__Output>
      ProcessInfo: MessageTypeDefinition<_pincer_v1_ProcessInfo, _pincer_v1_ProcessInfo__Output>
      ProcessListRequest: MessageTypeDefinition<_pincer_v1_ProcessListRequest, _pincer_v1_ProcessListRequest__Output>
      ProcessListResponse: MessageTypeDefinition<_pincer_v1_ProcessListResponse, _pincer_v1_ProcessListResponse__Output>
      ProcessStarted: MessageTypeDefinition<_pincer_v1_ProcessStarted, _pincer_v1_ProcessStarted__Output>
      Region: MessageTypeDefinition<_pincer_v1_Region, _pincer_v1_Region__Output>
      RunRequest: MessageTypeDefinition<_pincer_v1_RunRequest, _pincer_v1_RunRequest__Output>
      RunResponse: MessageTypeDefinition<_pincer_v1_RunResponse, _pincer_v1_RunResponse__Output>
      SetClipboardRequest: MessageTypeDefinition<_pincer_v1_SetClipboardRequest, _pincer_v1_SetClipboardRequest__Output>
      SetClipboardResponse: MessageTypeDefinition<_pincer_v1_SetClipboardResponse, _pincer_v1_SetClipboardResponse__Output>
      SignalRequest: MessageTypeDefinition<_pincer_v1_SignalRequest, _pincer_v1_SignalRequest__Output>
      SignalResponse: MessageTypeDefinition<_pincer_v1_SignalResponse, _pincer_v1_SignalResponse__Output>
      Size: MessageTypeDefinition<_pincer_v1_Size, _pincer_v1_Size__Output>
      StartRequest: MessageTypeDefinition<_pincer_v1_StartRequest, _pincer_v1_StartRequest__Output>
      StartResponse: MessageTypeDefinition<_pincer_v1_StartResponse, _pincer_v1_StartResponse__Output>
      /**
       * What this machine and daemon are, and what they can do.
       */
      System: SubtypeConstructor<typeof grpc.Client, _pincer_v1_SystemClient> & { service: _pincer_v1_SystemDefinition }
      Window: MessageTypeDefinition<_pincer_v1_Window, _pincer_v1_Window__Output>
    }
  }
}

