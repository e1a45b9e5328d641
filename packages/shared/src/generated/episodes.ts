import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { Action as _pincer_v1_Action, Action__Output as _pincer_v1_Action__Output } from './pincer/v1/Action.js';
import type { CloseEpisodeRequest as _pincer_v1_CloseEpisodeRequest, CloseEpisodeRequest__Output as _pincer_v1_CloseEpisodeRequest__Output } from './pincer/v1/CloseEpisodeRequest.js';
import type { CloseEpisodeResponse as _pincer_v1_CloseEpisodeResponse, CloseEpisodeResponse__Output as _pincer_v1_CloseEpisodeResponse__Output } from './pincer/v1/CloseEpisodeResponse.js';
import type { EndRecordingRequest as _pincer_v1_EndRecordingRequest, EndRecordingRequest__Output as _pincer_v1_EndRecordingRequest__Output } from './pincer/v1/EndRecordingRequest.js';
import type { EndRecordingResponse as _pincer_v1_EndRecordingResponse, EndRecordingResponse__Output as _pincer_v1_EndRecordingResponse__Output } from './pincer/v1/EndRecordingResponse.js';
import type { EnvironmentObservation as _pincer_v1_EnvironmentObservation, EnvironmentObservation__Output as _pincer_v1_EnvironmentObservation__Output } from './pincer/v1/EnvironmentObservation.js';
import type { EpisodesClient as _pincer_v1_EpisodesClient, EpisodesDefinition as _pincer_v1_EpisodesDefinition } from './pincer/v1/Episodes.js';
import type { EvaluateRequest as _pincer_v1_EvaluateRequest, EvaluateRequest__Output as _pincer_v1_EvaluateRequest__Output } from './pincer/v1/EvaluateRequest.js';
import type { EvaluateResponse as _pincer_v1_EvaluateResponse, EvaluateResponse__Output as _pincer_v1_EvaluateResponse__Output } from './pincer/v1/EvaluateResponse.js';
import type { GetScreenSizeRequest as _pincer_v1_GetScreenSizeRequest, GetScreenSizeRequest__Output as _pincer_v1_GetScreenSizeRequest__Output } from './pincer/v1/GetScreenSizeRequest.js';
import type { GetScreenSizeResponse as _pincer_v1_GetScreenSizeResponse, GetScreenSizeResponse__Output as _pincer_v1_GetScreenSizeResponse__Output } from './pincer/v1/GetScreenSizeResponse.js';
import type { ListTasksRequest as _pincer_v1_ListTasksRequest, ListTasksRequest__Output as _pincer_v1_ListTasksRequest__Output } from './pincer/v1/ListTasksRequest.js';
import type { ListTasksResponse as _pincer_v1_ListTasksResponse, ListTasksResponse__Output as _pincer_v1_ListTasksResponse__Output } from './pincer/v1/ListTasksResponse.js';
import type { MachineGrant as _pincer_v1_MachineGrant, MachineGrant__Output as _pincer_v1_MachineGrant__Output } from './pincer/v1/MachineGrant.js';
import type { Mark as _pincer_v1_Mark, Mark__Output as _pincer_v1_Mark__Output } from './pincer/v1/Mark.js';
import type { NodeVerdict as _pincer_v1_NodeVerdict, NodeVerdict__Output as _pincer_v1_NodeVerdict__Output } from './pincer/v1/NodeVerdict.js';
import type { Observation as _pincer_v1_Observation, Observation__Output as _pincer_v1_Observation__Output } from './pincer/v1/Observation.js';
import type { ObservationOptions as _pincer_v1_ObservationOptions, ObservationOptions__Output as _pincer_v1_ObservationOptions__Output } from './pincer/v1/ObservationOptions.js';
import type { ObserveRequest as _pincer_v1_ObserveRequest, ObserveRequest__Output as _pincer_v1_ObserveRequest__Output } from './pincer/v1/ObserveRequest.js';
import type { ObserveResponse as _pincer_v1_ObserveResponse, ObserveResponse__Output as _pincer_v1_ObserveResponse__Output } from './pincer/v1/ObserveResponse.js';
import type { Point as _pincer_v1_Point, Point__Output as _pincer_v1_Point__Output } from './pincer/v1/Point.js';
import type { Region as _pincer_v1_Region, Region__Output as _pincer_v1_Region__Output } from './pincer/v1/Region.js';
import type { RenewLeaseRequest as _pincer_v1_RenewLeaseRequest, RenewLeaseRequest__Output as _pincer_v1_RenewLeaseRequest__Output } from './pincer/v1/RenewLeaseRequest.js';
import type { RenewLeaseResponse as _pincer_v1_RenewLeaseResponse, RenewLeaseResponse__Output as _pincer_v1_RenewLeaseResponse__Output } from './pincer/v1/RenewLeaseResponse.js';
import type { ScreenClient as _pincer_v1_ScreenClient, ScreenDefinition as _pincer_v1_ScreenDefinition } from './pincer/v1/Screen.js';
import type { ScreenshotRequest as _pincer_v1_ScreenshotRequest, ScreenshotRequest__Output as _pincer_v1_ScreenshotRequest__Output } from './pincer/v1/ScreenshotRequest.js';
import type { ScreenshotResponse as _pincer_v1_ScreenshotResponse, ScreenshotResponse__Output as _pincer_v1_ScreenshotResponse__Output } from './pincer/v1/ScreenshotResponse.js';
import type { Size as _pincer_v1_Size, Size__Output as _pincer_v1_Size__Output } from './pincer/v1/Size.js';
import type { StartEpisodeRequest as _pincer_v1_StartEpisodeRequest, StartEpisodeRequest__Output as _pincer_v1_StartEpisodeRequest__Output } from './pincer/v1/StartEpisodeRequest.js';
import type { StartEpisodeResponse as _pincer_v1_StartEpisodeResponse, StartEpisodeResponse__Output as _pincer_v1_StartEpisodeResponse__Output } from './pincer/v1/StartEpisodeResponse.js';
import type { StartGroupRequest as _pincer_v1_StartGroupRequest, StartGroupRequest__Output as _pincer_v1_StartGroupRequest__Output } from './pincer/v1/StartGroupRequest.js';
import type { StartGroupResponse as _pincer_v1_StartGroupResponse, StartGroupResponse__Output as _pincer_v1_StartGroupResponse__Output } from './pincer/v1/StartGroupResponse.js';
import type { StartRecordingRequest as _pincer_v1_StartRecordingRequest, StartRecordingRequest__Output as _pincer_v1_StartRecordingRequest__Output } from './pincer/v1/StartRecordingRequest.js';
import type { StartRecordingResponse as _pincer_v1_StartRecordingResponse, StartRecordingResponse__Output as _pincer_v1_StartRecordingResponse__Output } from './pincer/v1/StartRecordingResponse.js';
import type { StepRequest as _pincer_v1_StepRequest, StepRequest__Output as _pincer_v1_StepRequest__Output } from './pincer/v1/StepRequest.js';
import type { StepResponse as _pincer_v1_StepResponse, StepResponse__Output as _pincer_v1_StepResponse__Output } from './pincer/v1/StepResponse.js';
import type { TaskInfo as _pincer_v1_TaskInfo, TaskInfo__Output as _pincer_v1_TaskInfo__Output } from './pincer/v1/TaskInfo.js';
import type { ToolCall as _pincer_v1_ToolCall, ToolCall__Output as _pincer_v1_ToolCall__Output } from './pincer/v1/ToolCall.js';
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
      AccessibilityForm: EnumTypeDefinition
      Action: MessageTypeDefinition<_pincer_v1_Action, _pincer_v1_Action__Output>
      CloseEpisodeRequest: MessageTypeDefinition<_pincer_v1_CloseEpisodeRequest, _pincer_v1_CloseEpisodeRequest__Output>
      CloseEpisodeResponse: MessageTypeDefinition<_pincer_v1_CloseEpisodeResponse, _pincer_v1_CloseEpisodeResponse__Output>
      EndRecordingRequest: MessageTypeDefinition<_pincer_v1_EndRecordingRequest, _pincer_v1_EndRecordingRequest__Output>
      EndRecordingResponse: MessageTypeDefinition<_pincer_v1_EndRecordingResponse, _pincer_v1_EndRecordingResponse__Output>
      EnvironmentObservation: MessageTypeDefinition<_pincer_v1_EnvironmentObservation, _pincer_v1_EnvironmentObservation__Output>
      /**
       * Episodes of a dataset's tasks on clean machines, for agents and trainers in any language. Served
       * by the controller (`pincer serve DATASET`), not by the daemon. An episode is an attempt: it starts
       * on freshly reset machines from the server's pool, is stepped with actions, gets observations and
       * rewards (the task's evaluator so far), and writes an attempt folder in the server's run folder
       * when it closes.
       * 
       * Every episode holds a lease: any call naming the episode renews it, and so does RenewLease. When
       * a lease expires the server closes the episode and its machines go back to the pool. Beyond
       * loopback the server requires the metadata `authorization: Bearer <token>`.
       */
      Episodes: SubtypeConstructor<typeof grpc.Client, _pincer_v1_EpisodesClient> & { service: _pincer_v1_EpisodesDefinition }
      EvaluateRequest: MessageTypeDefinition<_pincer_v1_EvaluateRequest, _pincer_v1_EvaluateRequest__Output>
      EvaluateResponse: MessageTypeDefinition<_pincer_v1_EvaluateResponse, _pincer_v1_EvaluateResponse__Output>
      GetScreenSizeRequest: MessageTypeDefinition<_pincer_v1_GetScreenSizeRequest, _pincer_v1_GetScreenSizeRequest__Output>
      GetScreenSizeResponse: MessageTypeDefinition<_pincer_v1_GetScreenSizeResponse, _pincer_v1_GetScreenSizeResponse__Output>
      ImageFormat: EnumTypeDefinition
      ListTasksRequest: MessageTypeDefinition<_pincer_v1_ListTasksRequest, _pincer_v1_ListTasksRequest__Output>
      ListTasksResponse: MessageTypeDefinition<_pincer_v1_ListTasksResponse, _pincer_v1_ListTasksResponse__Output>
      MachineGrant: MessageTypeDefinition<_pincer_v1_MachineGrant, _pincer_v1_MachineGrant__Output>
      Mark: MessageTypeDefinition<_pincer_v1_Mark, _pincer_v1_Mark__Output>
      NodeVerdict: MessageTypeDefinition<_pincer_v1_NodeVerdict, _pincer_v1_NodeVerdict__Output>
      Observation: MessageTypeDefinition<_pincer_v1_Observation, _pincer_v1_Observation__Output>
      ObservationOptions: MessageTypeDefinition<_pincer_v1_ObservationOptions, _pincer_v1_ObservationOptions__Output>
      ObserveRequest: MessageTypeDefinition<_pincer_v1_ObserveRequest, _pincer_v1_ObserveRequest__Output>
      ObserveResponse: MessageTypeDefinition<_pincer_v1_ObserveResponse, _pincer_v1_ObserveResponse__Output>
      Point: MessageTypeDefinition<_pincer_v1_Point, _pincer_v1_Point__Output>
      Region: MessageTypeDefinition<_pincer_v1_Region, _pincer_v1_Region__Output>
      RenewLeaseRequest: MessageTypeDefinition<_pincer_v1_RenewLeaseRequest, _pincer_v1_RenewLeaseRequest__Output>
      RenewLeaseResponse: MessageTypeDefinition<_pincer_v1_RenewLeaseResponse, _pincer_v1_RenewLeaseResponse__Output>
      /**
       * Screenshots of the machine's display, captured in-process and encoded with sharp.
       */
      Screen: SubtypeConstructor<typeof grpc.Client, _pincer_v1_ScreenClient> & { service: _pincer_v1_ScreenDefinition }
      ScreenshotRequest: MessageTypeDefinition<_pincer_v1_ScreenshotRequest, _pincer_v1_ScreenshotRequest__Output>
      ScreenshotResponse: MessageTypeDefinition<_pincer_v1_ScreenshotResponse, _pincer_v1_ScreenshotResponse__Output>
      Size: MessageTypeDefinition<_pincer_v1_Size, _pincer_v1_Size__Output>
      StartEpisodeRequest: MessageTypeDefinition<_pincer_v1_StartEpisodeRequest, _pincer_v1_StartEpisodeRequest__Output>
      StartEpisodeResponse: MessageTypeDefinition<_pincer_v1_StartEpisodeResponse, _pincer_v1_StartEpisodeResponse__Output>
      StartGroupRequest: MessageTypeDefinition<_pincer_v1_StartGroupRequest, _pincer_v1_StartGroupRequest__Output>
      StartGroupResponse: MessageTypeDefinition<_pincer_v1_StartGroupResponse, _pincer_v1_StartGroupResponse__Output>
      StartRecordingRequest: MessageTypeDefinition<_pincer_v1_StartRecordingRequest, _pincer_v1_StartRecordingRequest__Output>
      StartRecordingResponse: MessageTypeDefinition<_pincer_v1_StartRecordingResponse, _pincer_v1_StartRecordingResponse__Output>
      StepRequest: MessageTypeDefinition<_pincer_v1_StepRequest, _pincer_v1_StepRequest__Output>
      StepResponse: MessageTypeDefinition<_pincer_v1_StepResponse, _pincer_v1_StepResponse__Output>
      TaskInfo: MessageTypeDefinition<_pincer_v1_TaskInfo, _pincer_v1_TaskInfo__Output>
      ToolCall: MessageTypeDefinition<_pincer_v1_ToolCall, _pincer_v1_ToolCall__Output>
      WaitForSettleRequest: MessageTypeDefinition<_pincer_v1_WaitForSettleRequest, _pincer_v1_WaitForSettleRequest__Output>
      WaitForSettleResponse: MessageTypeDefinition<_pincer_v1_WaitForSettleResponse, _pincer_v1_WaitForSettleResponse__Output>
      WatchRequest: MessageTypeDefinition<_pincer_v1_WatchRequest, _pincer_v1_WatchRequest__Output>
      WatchResponse: MessageTypeDefinition<_pincer_v1_WatchResponse, _pincer_v1_WatchResponse__Output>
    }
  }
}

