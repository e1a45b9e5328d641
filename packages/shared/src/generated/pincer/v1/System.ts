// Original file: pincer/v1/system.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CloseWindowRequest as _pincer_v1_CloseWindowRequest, CloseWindowRequest__Output as _pincer_v1_CloseWindowRequest__Output } from '../../pincer/v1/CloseWindowRequest.js';
import type { CloseWindowResponse as _pincer_v1_CloseWindowResponse, CloseWindowResponse__Output as _pincer_v1_CloseWindowResponse__Output } from '../../pincer/v1/CloseWindowResponse.js';
import type { FocusWindowRequest as _pincer_v1_FocusWindowRequest, FocusWindowRequest__Output as _pincer_v1_FocusWindowRequest__Output } from '../../pincer/v1/FocusWindowRequest.js';
import type { FocusWindowResponse as _pincer_v1_FocusWindowResponse, FocusWindowResponse__Output as _pincer_v1_FocusWindowResponse__Output } from '../../pincer/v1/FocusWindowResponse.js';
import type { GetClipboardRequest as _pincer_v1_GetClipboardRequest, GetClipboardRequest__Output as _pincer_v1_GetClipboardRequest__Output } from '../../pincer/v1/GetClipboardRequest.js';
import type { GetClipboardResponse as _pincer_v1_GetClipboardResponse, GetClipboardResponse__Output as _pincer_v1_GetClipboardResponse__Output } from '../../pincer/v1/GetClipboardResponse.js';
import type { GetInfoRequest as _pincer_v1_GetInfoRequest, GetInfoRequest__Output as _pincer_v1_GetInfoRequest__Output } from '../../pincer/v1/GetInfoRequest.js';
import type { GetInfoResponse as _pincer_v1_GetInfoResponse, GetInfoResponse__Output as _pincer_v1_GetInfoResponse__Output } from '../../pincer/v1/GetInfoResponse.js';
import type { ListWindowsRequest as _pincer_v1_ListWindowsRequest, ListWindowsRequest__Output as _pincer_v1_ListWindowsRequest__Output } from '../../pincer/v1/ListWindowsRequest.js';
import type { ListWindowsResponse as _pincer_v1_ListWindowsResponse, ListWindowsResponse__Output as _pincer_v1_ListWindowsResponse__Output } from '../../pincer/v1/ListWindowsResponse.js';
import type { SetClipboardRequest as _pincer_v1_SetClipboardRequest, SetClipboardRequest__Output as _pincer_v1_SetClipboardRequest__Output } from '../../pincer/v1/SetClipboardRequest.js';
import type { SetClipboardResponse as _pincer_v1_SetClipboardResponse, SetClipboardResponse__Output as _pincer_v1_SetClipboardResponse__Output } from '../../pincer/v1/SetClipboardResponse.js';

/**
 * What this machine and daemon are, and what they can do.
 */
export interface SystemClient extends grpc.Client {
  /**
   * Asks the window to close (WM_DELETE_WINDOW); with force, disconnects its client.
   */
  CloseWindow(argument: _pincer_v1_CloseWindowRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_CloseWindowResponse__Output>): grpc.ClientUnaryCall;
  CloseWindow(argument: _pincer_v1_CloseWindowRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_CloseWindowResponse__Output>): grpc.ClientUnaryCall;
  CloseWindow(argument: _pincer_v1_CloseWindowRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_CloseWindowResponse__Output>): grpc.ClientUnaryCall;
  CloseWindow(argument: _pincer_v1_CloseWindowRequest, callback: grpc.requestCallback<_pincer_v1_CloseWindowResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Asks the window to close (WM_DELETE_WINDOW); with force, disconnects its client.
   */
  closeWindow(argument: _pincer_v1_CloseWindowRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_CloseWindowResponse__Output>): grpc.ClientUnaryCall;
  closeWindow(argument: _pincer_v1_CloseWindowRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_CloseWindowResponse__Output>): grpc.ClientUnaryCall;
  closeWindow(argument: _pincer_v1_CloseWindowRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_CloseWindowResponse__Output>): grpc.ClientUnaryCall;
  closeWindow(argument: _pincer_v1_CloseWindowRequest, callback: grpc.requestCallback<_pincer_v1_CloseWindowResponse__Output>): grpc.ClientUnaryCall;
  
  FocusWindow(argument: _pincer_v1_FocusWindowRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_FocusWindowResponse__Output>): grpc.ClientUnaryCall;
  FocusWindow(argument: _pincer_v1_FocusWindowRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_FocusWindowResponse__Output>): grpc.ClientUnaryCall;
  FocusWindow(argument: _pincer_v1_FocusWindowRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_FocusWindowResponse__Output>): grpc.ClientUnaryCall;
  FocusWindow(argument: _pincer_v1_FocusWindowRequest, callback: grpc.requestCallback<_pincer_v1_FocusWindowResponse__Output>): grpc.ClientUnaryCall;
  focusWindow(argument: _pincer_v1_FocusWindowRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_FocusWindowResponse__Output>): grpc.ClientUnaryCall;
  focusWindow(argument: _pincer_v1_FocusWindowRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_FocusWindowResponse__Output>): grpc.ClientUnaryCall;
  focusWindow(argument: _pincer_v1_FocusWindowRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_FocusWindowResponse__Output>): grpc.ClientUnaryCall;
  focusWindow(argument: _pincer_v1_FocusWindowRequest, callback: grpc.requestCallback<_pincer_v1_FocusWindowResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Text of the CLIPBOARD selection (UTF-8); empty when nobody owns it.
   */
  GetClipboard(argument: _pincer_v1_GetClipboardRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_GetClipboardResponse__Output>): grpc.ClientUnaryCall;
  GetClipboard(argument: _pincer_v1_GetClipboardRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_GetClipboardResponse__Output>): grpc.ClientUnaryCall;
  GetClipboard(argument: _pincer_v1_GetClipboardRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_GetClipboardResponse__Output>): grpc.ClientUnaryCall;
  GetClipboard(argument: _pincer_v1_GetClipboardRequest, callback: grpc.requestCallback<_pincer_v1_GetClipboardResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Text of the CLIPBOARD selection (UTF-8); empty when nobody owns it.
   */
  getClipboard(argument: _pincer_v1_GetClipboardRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_GetClipboardResponse__Output>): grpc.ClientUnaryCall;
  getClipboard(argument: _pincer_v1_GetClipboardRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_GetClipboardResponse__Output>): grpc.ClientUnaryCall;
  getClipboard(argument: _pincer_v1_GetClipboardRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_GetClipboardResponse__Output>): grpc.ClientUnaryCall;
  getClipboard(argument: _pincer_v1_GetClipboardRequest, callback: grpc.requestCallback<_pincer_v1_GetClipboardResponse__Output>): grpc.ClientUnaryCall;
  
  GetInfo(argument: _pincer_v1_GetInfoRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_GetInfoResponse__Output>): grpc.ClientUnaryCall;
  GetInfo(argument: _pincer_v1_GetInfoRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_GetInfoResponse__Output>): grpc.ClientUnaryCall;
  GetInfo(argument: _pincer_v1_GetInfoRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_GetInfoResponse__Output>): grpc.ClientUnaryCall;
  GetInfo(argument: _pincer_v1_GetInfoRequest, callback: grpc.requestCallback<_pincer_v1_GetInfoResponse__Output>): grpc.ClientUnaryCall;
  getInfo(argument: _pincer_v1_GetInfoRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_GetInfoResponse__Output>): grpc.ClientUnaryCall;
  getInfo(argument: _pincer_v1_GetInfoRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_GetInfoResponse__Output>): grpc.ClientUnaryCall;
  getInfo(argument: _pincer_v1_GetInfoRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_GetInfoResponse__Output>): grpc.ClientUnaryCall;
  getInfo(argument: _pincer_v1_GetInfoRequest, callback: grpc.requestCallback<_pincer_v1_GetInfoResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Top-level application windows.
   */
  ListWindows(argument: _pincer_v1_ListWindowsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ListWindowsResponse__Output>): grpc.ClientUnaryCall;
  ListWindows(argument: _pincer_v1_ListWindowsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_ListWindowsResponse__Output>): grpc.ClientUnaryCall;
  ListWindows(argument: _pincer_v1_ListWindowsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ListWindowsResponse__Output>): grpc.ClientUnaryCall;
  ListWindows(argument: _pincer_v1_ListWindowsRequest, callback: grpc.requestCallback<_pincer_v1_ListWindowsResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Top-level application windows.
   */
  listWindows(argument: _pincer_v1_ListWindowsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ListWindowsResponse__Output>): grpc.ClientUnaryCall;
  listWindows(argument: _pincer_v1_ListWindowsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_ListWindowsResponse__Output>): grpc.ClientUnaryCall;
  listWindows(argument: _pincer_v1_ListWindowsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ListWindowsResponse__Output>): grpc.ClientUnaryCall;
  listWindows(argument: _pincer_v1_ListWindowsRequest, callback: grpc.requestCallback<_pincer_v1_ListWindowsResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Makes the daemon the owner of CLIPBOARD (and PRIMARY) with this text until someone else copies.
   */
  SetClipboard(argument: _pincer_v1_SetClipboardRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_SetClipboardResponse__Output>): grpc.ClientUnaryCall;
  SetClipboard(argument: _pincer_v1_SetClipboardRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_SetClipboardResponse__Output>): grpc.ClientUnaryCall;
  SetClipboard(argument: _pincer_v1_SetClipboardRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_SetClipboardResponse__Output>): grpc.ClientUnaryCall;
  SetClipboard(argument: _pincer_v1_SetClipboardRequest, callback: grpc.requestCallback<_pincer_v1_SetClipboardResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Makes the daemon the owner of CLIPBOARD (and PRIMARY) with this text until someone else copies.
   */
  setClipboard(argument: _pincer_v1_SetClipboardRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_SetClipboardResponse__Output>): grpc.ClientUnaryCall;
  setClipboard(argument: _pincer_v1_SetClipboardRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_SetClipboardResponse__Output>): grpc.ClientUnaryCall;
  setClipboard(argument: _pincer_v1_SetClipboardRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_SetClipboardResponse__Output>): grpc.ClientUnaryCall;
  setClipboard(argument: _pincer_v1_SetClipboardRequest, callback: grpc.requestCallback<_pincer_v1_SetClipboardResponse__Output>): grpc.ClientUnaryCall;
  
}

/**
 * What this machine and daemon are, and what they can do.
 */
export interface SystemHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Asks the window to close (WM_DELETE_WINDOW); with force, disconnects its client.
   */
  CloseWindow: grpc.handleUnaryCall<_pincer_v1_CloseWindowRequest__Output, _pincer_v1_CloseWindowResponse>;
  
  FocusWindow: grpc.handleUnaryCall<_pincer_v1_FocusWindowRequest__Output, _pincer_v1_FocusWindowResponse>;
  
  /**
   * Text of the CLIPBOARD selection (UTF-8); empty when nobody owns it.
   */
  GetClipboard: grpc.handleUnaryCall<_pincer_v1_GetClipboardRequest__Output, _pincer_v1_GetClipboardResponse>;
  
  GetInfo: grpc.handleUnaryCall<_pincer_v1_GetInfoRequest__Output, _pincer_v1_GetInfoResponse>;
  
  /**
   * Top-level application windows.
   */
  ListWindows: grpc.handleUnaryCall<_pincer_v1_ListWindowsRequest__Output, _pincer_v1_ListWindowsResponse>;
  
  /**
   * Makes the daemon the owner of CLIPBOARD (and PRIMARY) with this text until someone else copies.
   */
  SetClipboard: grpc.handleUnaryCall<_pincer_v1_SetClipboardRequest__Output, _pincer_v1_SetClipboardResponse>;
  
}

export interface SystemDefinition extends grpc.ServiceDefinition {
  CloseWindow: MethodDefinition<_pincer_v1_CloseWindowRequest, _pincer_v1_CloseWindowResponse, _pincer_v1_CloseWindowRequest__Output, _pincer_v1_CloseWindowResponse__Output>
  FocusWindow: MethodDefinition<_pincer_v1_FocusWindowRequest, _pincer_v1_FocusWindowResponse, _pincer_v1_FocusWindowRequest__Output, _pincer_v1_FocusWindowResponse__Output>
  GetClipboard: MethodDefinition<_pincer_v1_GetClipboardRequest, _pincer_v1_GetClipboardResponse, _pincer_v1_GetClipboardRequest__Output, _pincer_v1_GetClipboardResponse__Output>
  GetInfo: MethodDefinition<_pincer_v1_GetInfoRequest, _pincer_v1_GetInfoResponse, _pincer_v1_GetInfoRequest__Output, _pincer_v1_GetInfoResponse__Output>
  ListWindows: MethodDefinition<_pincer_v1_ListWindowsRequest, _pincer_v1_ListWindowsResponse, _pincer_v1_ListWindowsRequest__Output, _pincer_v1_ListWindowsResponse__Output>
  SetClipboard: MethodDefinition<_pincer_v1_SetClipboardRequest, _pincer_v1_SetClipboardResponse, _pincer_v1_SetClipboardRequest__Output, _pincer_v1_SetClipboardResponse__Output>
}
