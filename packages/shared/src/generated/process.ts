import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { ClipboardContent as _pincer_v1_ClipboardContent, ClipboardContent__Output as _pincer_v1_ClipboardContent__Output } from './pincer/v1/ClipboardContent.js';
import type { CloseWindowRequest as _pincer_v1_CloseWindowRequest, CloseWindowRequest__Output as _pincer_v1_CloseWindowRequest__Output } from './pincer/v1/CloseWindowRequest.js';
import type { CloseWindowResponse as _pincer_v1_CloseWindowResponse, CloseWindowResponse__Output as _pincer_v1_CloseWindowResponse__Output } from './pincer/v1/CloseWindowResponse.js';
import type { GetClipboardRequest as _pincer_v1_GetClipboardRequest, GetClipboardRequest__Output as _pincer_v1_GetClipboardRequest__Output } from './pincer/v1/GetClipboardRequest.js';
import type { GetInfoRequest as _pincer_v1_GetInfoRequest, GetInfoRequest__Output as _pincer_v1_GetInfoRequest__Output } from './pincer/v1/GetInfoRequest.js';
import type { LaunchRequest as _pincer_v1_LaunchRequest, LaunchRequest__Output as _pincer_v1_LaunchRequest__Output } from './pincer/v1/LaunchRequest.js';
import type { LaunchResponse as _pincer_v1_LaunchResponse, LaunchResponse__Output as _pincer_v1_LaunchResponse__Output } from './pincer/v1/LaunchResponse.js';
import type { ListProcessesRequest as _pincer_v1_ListProcessesRequest, ListProcessesRequest__Output as _pincer_v1_ListProcessesRequest__Output } from './pincer/v1/ListProcessesRequest.js';
import type { ListProcessesResponse as _pincer_v1_ListProcessesResponse, ListProcessesResponse__Output as _pincer_v1_ListProcessesResponse__Output } from './pincer/v1/ListProcessesResponse.js';
import type { ListWindowsRequest as _pincer_v1_ListWindowsRequest, ListWindowsRequest__Output as _pincer_v1_ListWindowsRequest__Output } from './pincer/v1/ListWindowsRequest.js';
import type { ListWindowsResponse as _pincer_v1_ListWindowsResponse, ListWindowsResponse__Output as _pincer_v1_ListWindowsResponse__Output } from './pincer/v1/ListWindowsResponse.js';
import type { Point as _pincer_v1_Point, Point__Output as _pincer_v1_Point__Output } from './pincer/v1/Point.js';
import type { ProcessClient as _pincer_v1_ProcessClient, ProcessDefinition as _pincer_v1_ProcessDefinition } from './pincer/v1/Process.js';
import type { ProcessEvent as _pincer_v1_ProcessEvent, ProcessEvent__Output as _pincer_v1_ProcessEvent__Output } from './pincer/v1/ProcessEvent.js';
import type { ProcessExited as _pincer_v1_ProcessExited, ProcessExited__Output as _pincer_v1_ProcessExited__Output } from './pincer/v1/ProcessExited.js';
import type { ProcessInfo as _pincer_v1_ProcessInfo, ProcessInfo__Output as _pincer_v1_ProcessInfo__Output } from './pincer/v1/ProcessInfo.js';
import type { ProcessStarted as _pincer_v1_ProcessStarted, ProcessStarted__Output as _pincer_v1_ProcessStarted__Output } from './pincer/v1/ProcessStarted.js';
import type { Region as _pincer_v1_Region, Region__Output as _pincer_v1_Region__Output } from './pincer/v1/Region.js';
import type { RunRequest as _pincer_v1_RunRequest, RunRequest__Output as _pincer_v1_RunRequest__Output } from './pincer/v1/RunRequest.js';
import type { RunResponse as _pincer_v1_RunResponse, RunResponse__Output as _pincer_v1_RunResponse__Output } from './pincer/v1/RunResponse.js';
import type { SetClipboardResponse as _pincer_v1_SetClipboardResponse, SetClipboardResponse__Output as _pincer_v1_SetClipboardResponse__Output } from './pincer/v1/SetClipboardResponse.js';
import type { SignalRequest as _pincer_v1_SignalRequest, SignalRequest__Output as _pincer_v1_SignalRequest__Output } from './pincer/v1/SignalRequest.js';
import type { SignalResponse as _pincer_v1_SignalResponse, SignalResponse__Output as _pincer_v1_SignalResponse__Output } from './pincer/v1/SignalResponse.js';
import type { Size as _pincer_v1_Size, Size__Output as _pincer_v1_Size__Output } from './pincer/v1/Size.js';
import type { SystemClient as _pincer_v1_SystemClient, SystemDefinition as _pincer_v1_SystemDefinition } from './pincer/v1/System.js';
import type { SystemInfo as _pincer_v1_SystemInfo, SystemInfo__Output as _pincer_v1_SystemInfo__Output } from './pincer/v1/SystemInfo.js';
import type { Window as _pincer_v1_Window, Window__Output as _pincer_v1_Window__Output } from './pincer/v1/Window.js';
import type { WindowRequest as _pincer_v1_WindowRequest, WindowRequest__Output as _pincer_v1_WindowRequest__Output } from './pincer/v1/WindowRequest.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  pincer: {
    v1: {
      ClipboardContent: MessageTypeDefinition<_pincer_v1_ClipboardContent, _pincer_v1_ClipboardContent__Output>
      CloseWindowRequest: MessageTypeDefinition<_pincer_v1_CloseWindowRequest, _pincer_v1_CloseWindowRequest__Output>
      CloseWindowResponse: MessageTypeDefinition<_pincer_v1_CloseWindowResponse, _pincer_v1_CloseWindowResponse__Output>
      GetClipboardRequest: MessageTypeDefinition<_pincer_v1_GetClipboardRequest, _pincer_v1_GetClipboardRequest__Output>
      GetInfoRequest: MessageTypeDefinition<_pincer_v1_GetInfoRequest, _pincer_v1_GetInfoRequest__Output>
      LaunchRequest: MessageTypeDefinition<_pincer_v1_LaunchRequest, _pincer_v1_LaunchRequest__Output>
      LaunchResponse: MessageTypeDefinition<_pincer_v1_LaunchResponse, _pincer_v1_LaunchResponse__Output>
      ListProcessesRequest: MessageTypeDefinition<_pincer_v1_ListProcessesRequest, _pincer_v1_ListProcessesRequest__Output>
      ListProcessesResponse: MessageTypeDefinition<_pincer_v1_ListProcessesResponse, _pincer_v1_ListProcessesResponse__Output>
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
      ProcessEvent: MessageTypeDefinition<_pincer_v1_ProcessEvent, _pincer_v1_ProcessEvent__Output>
      ProcessExited: MessageTypeDefinition<_pincer_v1_ProcessExited, _pincer_v1_ProcessExited__Output>
      ProcessInfo: MessageTypeDefinition<_pincer_v1_ProcessInfo, _pincer_v1_ProcessInfo__Output>
      ProcessStarted: MessageTypeDefinition<_pincer_v1_ProcessStarted, _pincer_v1_ProcessStarted__Output>
      Region: MessageTypeDefinition<_pincer_v1_Region, _pincer_v1_Region__Output>
      RunRequest: MessageTypeDefinition<_pincer_v1_RunRequest, _pincer_v1_RunRequest__Output>
      RunResponse: MessageTypeDefinition<_pincer_v1_RunResponse, _pincer_v1_RunResponse__Output>
      SetClipboardResponse: MessageTypeDefinition<_pincer_v1_SetClipboardResponse, _pincer_v1_SetClipboardResponse__Output>
      SignalRequest: MessageTypeDefinition<_pincer_v1_SignalRequest, _pincer_v1_SignalRequest__Output>
      SignalResponse: MessageTypeDefinition<_pincer_v1_SignalResponse, _pincer_v1_SignalResponse__Output>
      Size: MessageTypeDefinition<_pincer_v1_Size, _pincer_v1_Size__Output>
      /**
       * What this machine and daemon are, and what they can do.
       */
      System: SubtypeConstructor<typeof grpc.Client, _pincer_v1_SystemClient> & { service: _pincer_v1_SystemDefinition }
      SystemInfo: MessageTypeDefinition<_pincer_v1_SystemInfo, _pincer_v1_SystemInfo__Output>
      Window: MessageTypeDefinition<_pincer_v1_Window, _pincer_v1_Window__Output>
      WindowRequest: MessageTypeDefinition<_pincer_v1_WindowRequest, _pincer_v1_WindowRequest__Output>
    }
  }
}

