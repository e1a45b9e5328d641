// Original file: pincer/v1/process.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { LaunchRequest as _pincer_v1_LaunchRequest, LaunchRequest__Output as _pincer_v1_LaunchRequest__Output } from '../../pincer/v1/LaunchRequest.js';
import type { LaunchResponse as _pincer_v1_LaunchResponse, LaunchResponse__Output as _pincer_v1_LaunchResponse__Output } from '../../pincer/v1/LaunchResponse.js';
import type { ProcessListRequest as _pincer_v1_ProcessListRequest, ProcessListRequest__Output as _pincer_v1_ProcessListRequest__Output } from '../../pincer/v1/ProcessListRequest.js';
import type { ProcessListResponse as _pincer_v1_ProcessListResponse, ProcessListResponse__Output as _pincer_v1_ProcessListResponse__Output } from '../../pincer/v1/ProcessListResponse.js';
import type { RunRequest as _pincer_v1_RunRequest, RunRequest__Output as _pincer_v1_RunRequest__Output } from '../../pincer/v1/RunRequest.js';
import type { RunResponse as _pincer_v1_RunResponse, RunResponse__Output as _pincer_v1_RunResponse__Output } from '../../pincer/v1/RunResponse.js';
import type { SignalRequest as _pincer_v1_SignalRequest, SignalRequest__Output as _pincer_v1_SignalRequest__Output } from '../../pincer/v1/SignalRequest.js';
import type { SignalResponse as _pincer_v1_SignalResponse, SignalResponse__Output as _pincer_v1_SignalResponse__Output } from '../../pincer/v1/SignalResponse.js';
import type { StartRequest as _pincer_v1_StartRequest, StartRequest__Output as _pincer_v1_StartRequest__Output } from '../../pincer/v1/StartRequest.js';
import type { StartResponse as _pincer_v1_StartResponse, StartResponse__Output as _pincer_v1_StartResponse__Output } from '../../pincer/v1/StartResponse.js';

/**
 * Commands on the machine. Every command runs in its own process group and, where the daemon can
 * create cgroups (cgroup v2, writable), its own cgroup. A timeout or a cancelled call sends SIGTERM
 * to the group, then SIGKILL to everything the command started, after a grace period or as soon as
 * the command has exited: grandchildren die too, also those that called setsid, forked twice or
 * called daemon(3) (without cgroups, those survive until the daemon stops). A command that exits on
 * its own leaves what it started in the background running. When the daemon stops, everything its
 * commands started is killed.
 */
export interface ProcessClient extends grpc.Client {
  /**
   * Starts a GUI program detached from the call, with DISPLAY set, and optionally waits for its window.
   */
  Launch(argument: _pincer_v1_LaunchRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_LaunchResponse__Output>): grpc.ClientUnaryCall;
  Launch(argument: _pincer_v1_LaunchRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_LaunchResponse__Output>): grpc.ClientUnaryCall;
  Launch(argument: _pincer_v1_LaunchRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_LaunchResponse__Output>): grpc.ClientUnaryCall;
  Launch(argument: _pincer_v1_LaunchRequest, callback: grpc.requestCallback<_pincer_v1_LaunchResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Starts a GUI program detached from the call, with DISPLAY set, and optionally waits for its window.
   */
  launch(argument: _pincer_v1_LaunchRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_LaunchResponse__Output>): grpc.ClientUnaryCall;
  launch(argument: _pincer_v1_LaunchRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_LaunchResponse__Output>): grpc.ClientUnaryCall;
  launch(argument: _pincer_v1_LaunchRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_LaunchResponse__Output>): grpc.ClientUnaryCall;
  launch(argument: _pincer_v1_LaunchRequest, callback: grpc.requestCallback<_pincer_v1_LaunchResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Processes this daemon started that are still running.
   */
  List(argument: _pincer_v1_ProcessListRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ProcessListResponse__Output>): grpc.ClientUnaryCall;
  List(argument: _pincer_v1_ProcessListRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_ProcessListResponse__Output>): grpc.ClientUnaryCall;
  List(argument: _pincer_v1_ProcessListRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ProcessListResponse__Output>): grpc.ClientUnaryCall;
  List(argument: _pincer_v1_ProcessListRequest, callback: grpc.requestCallback<_pincer_v1_ProcessListResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Processes this daemon started that are still running.
   */
  list(argument: _pincer_v1_ProcessListRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ProcessListResponse__Output>): grpc.ClientUnaryCall;
  list(argument: _pincer_v1_ProcessListRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_ProcessListResponse__Output>): grpc.ClientUnaryCall;
  list(argument: _pincer_v1_ProcessListRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ProcessListResponse__Output>): grpc.ClientUnaryCall;
  list(argument: _pincer_v1_ProcessListRequest, callback: grpc.requestCallback<_pincer_v1_ProcessListResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Runs a command to completion. A non-zero exit is a result, not an RPC error.
   */
  Run(argument: _pincer_v1_RunRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_RunResponse__Output>): grpc.ClientUnaryCall;
  Run(argument: _pincer_v1_RunRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_RunResponse__Output>): grpc.ClientUnaryCall;
  Run(argument: _pincer_v1_RunRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_RunResponse__Output>): grpc.ClientUnaryCall;
  Run(argument: _pincer_v1_RunRequest, callback: grpc.requestCallback<_pincer_v1_RunResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Runs a command to completion. A non-zero exit is a result, not an RPC error.
   */
  run(argument: _pincer_v1_RunRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_RunResponse__Output>): grpc.ClientUnaryCall;
  run(argument: _pincer_v1_RunRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_RunResponse__Output>): grpc.ClientUnaryCall;
  run(argument: _pincer_v1_RunRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_RunResponse__Output>): grpc.ClientUnaryCall;
  run(argument: _pincer_v1_RunRequest, callback: grpc.requestCallback<_pincer_v1_RunResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Sends a signal to a process this daemon started (and its group).
   */
  Signal(argument: _pincer_v1_SignalRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_SignalResponse__Output>): grpc.ClientUnaryCall;
  Signal(argument: _pincer_v1_SignalRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_SignalResponse__Output>): grpc.ClientUnaryCall;
  Signal(argument: _pincer_v1_SignalRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_SignalResponse__Output>): grpc.ClientUnaryCall;
  Signal(argument: _pincer_v1_SignalRequest, callback: grpc.requestCallback<_pincer_v1_SignalResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Sends a signal to a process this daemon started (and its group).
   */
  signal(argument: _pincer_v1_SignalRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_SignalResponse__Output>): grpc.ClientUnaryCall;
  signal(argument: _pincer_v1_SignalRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_SignalResponse__Output>): grpc.ClientUnaryCall;
  signal(argument: _pincer_v1_SignalRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_SignalResponse__Output>): grpc.ClientUnaryCall;
  signal(argument: _pincer_v1_SignalRequest, callback: grpc.requestCallback<_pincer_v1_SignalResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Runs a command and streams its events: started, output chunks in order, exited.
   * Cancelling the call kills the command and what it started. Output is read as fast as the
   * client reads it: a client that stops reading makes the command block on its next write.
   */
  Start(argument: _pincer_v1_StartRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_pincer_v1_StartResponse__Output>;
  Start(argument: _pincer_v1_StartRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_pincer_v1_StartResponse__Output>;
  /**
   * Runs a command and streams its events: started, output chunks in order, exited.
   * Cancelling the call kills the command and what it started. Output is read as fast as the
   * client reads it: a client that stops reading makes the command block on its next write.
   */
  start(argument: _pincer_v1_StartRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_pincer_v1_StartResponse__Output>;
  start(argument: _pincer_v1_StartRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_pincer_v1_StartResponse__Output>;
  
}

/**
 * Commands on the machine. Every command runs in its own process group and, where the daemon can
 * create cgroups (cgroup v2, writable), its own cgroup. A timeout or a cancelled call sends SIGTERM
 * to the group, then SIGKILL to everything the command started, after a grace period or as soon as
 * the command has exited: grandchildren die too, also those that called setsid, forked twice or
 * called daemon(3) (without cgroups, those survive until the daemon stops). A command that exits on
 * its own leaves what it started in the background running. When the daemon stops, everything its
 * commands started is killed.
 */
export interface ProcessHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Starts a GUI program detached from the call, with DISPLAY set, and optionally waits for its window.
   */
  Launch: grpc.handleUnaryCall<_pincer_v1_LaunchRequest__Output, _pincer_v1_LaunchResponse>;
  
  /**
   * Processes this daemon started that are still running.
   */
  List: grpc.handleUnaryCall<_pincer_v1_ProcessListRequest__Output, _pincer_v1_ProcessListResponse>;
  
  /**
   * Runs a command to completion. A non-zero exit is a result, not an RPC error.
   */
  Run: grpc.handleUnaryCall<_pincer_v1_RunRequest__Output, _pincer_v1_RunResponse>;
  
  /**
   * Sends a signal to a process this daemon started (and its group).
   */
  Signal: grpc.handleUnaryCall<_pincer_v1_SignalRequest__Output, _pincer_v1_SignalResponse>;
  
  /**
   * Runs a command and streams its events: started, output chunks in order, exited.
   * Cancelling the call kills the command and what it started. Output is read as fast as the
   * client reads it: a client that stops reading makes the command block on its next write.
   */
  Start: grpc.handleServerStreamingCall<_pincer_v1_StartRequest__Output, _pincer_v1_StartResponse>;
  
}

export interface ProcessDefinition extends grpc.ServiceDefinition {
  Launch: MethodDefinition<_pincer_v1_LaunchRequest, _pincer_v1_LaunchResponse, _pincer_v1_LaunchRequest__Output, _pincer_v1_LaunchResponse__Output>
  List: MethodDefinition<_pincer_v1_ProcessListRequest, _pincer_v1_ProcessListResponse, _pincer_v1_ProcessListRequest__Output, _pincer_v1_ProcessListResponse__Output>
  Run: MethodDefinition<_pincer_v1_RunRequest, _pincer_v1_RunResponse, _pincer_v1_RunRequest__Output, _pincer_v1_RunResponse__Output>
  Signal: MethodDefinition<_pincer_v1_SignalRequest, _pincer_v1_SignalResponse, _pincer_v1_SignalRequest__Output, _pincer_v1_SignalResponse__Output>
  Start: MethodDefinition<_pincer_v1_StartRequest, _pincer_v1_StartResponse, _pincer_v1_StartRequest__Output, _pincer_v1_StartResponse__Output>
}
