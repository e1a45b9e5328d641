// Original file: pincer/v1/screen.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { GetScreenSizeRequest as _pincer_v1_GetScreenSizeRequest, GetScreenSizeRequest__Output as _pincer_v1_GetScreenSizeRequest__Output } from '../../pincer/v1/GetScreenSizeRequest.js';
import type { GetScreenSizeResponse as _pincer_v1_GetScreenSizeResponse, GetScreenSizeResponse__Output as _pincer_v1_GetScreenSizeResponse__Output } from '../../pincer/v1/GetScreenSizeResponse.js';
import type { ScreenshotRequest as _pincer_v1_ScreenshotRequest, ScreenshotRequest__Output as _pincer_v1_ScreenshotRequest__Output } from '../../pincer/v1/ScreenshotRequest.js';
import type { ScreenshotResponse as _pincer_v1_ScreenshotResponse, ScreenshotResponse__Output as _pincer_v1_ScreenshotResponse__Output } from '../../pincer/v1/ScreenshotResponse.js';
import type { WaitForSettleRequest as _pincer_v1_WaitForSettleRequest, WaitForSettleRequest__Output as _pincer_v1_WaitForSettleRequest__Output } from '../../pincer/v1/WaitForSettleRequest.js';
import type { WaitForSettleResponse as _pincer_v1_WaitForSettleResponse, WaitForSettleResponse__Output as _pincer_v1_WaitForSettleResponse__Output } from '../../pincer/v1/WaitForSettleResponse.js';
import type { WatchRequest as _pincer_v1_WatchRequest, WatchRequest__Output as _pincer_v1_WatchRequest__Output } from '../../pincer/v1/WatchRequest.js';
import type { WatchResponse as _pincer_v1_WatchResponse, WatchResponse__Output as _pincer_v1_WatchResponse__Output } from '../../pincer/v1/WatchResponse.js';

/**
 * Screenshots of the machine's display, captured in-process and encoded with sharp.
 */
export interface ScreenClient extends grpc.Client {
  GetScreenSize(argument: _pincer_v1_GetScreenSizeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_GetScreenSizeResponse__Output>): grpc.ClientUnaryCall;
  GetScreenSize(argument: _pincer_v1_GetScreenSizeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_GetScreenSizeResponse__Output>): grpc.ClientUnaryCall;
  GetScreenSize(argument: _pincer_v1_GetScreenSizeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_GetScreenSizeResponse__Output>): grpc.ClientUnaryCall;
  GetScreenSize(argument: _pincer_v1_GetScreenSizeRequest, callback: grpc.requestCallback<_pincer_v1_GetScreenSizeResponse__Output>): grpc.ClientUnaryCall;
  getScreenSize(argument: _pincer_v1_GetScreenSizeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_GetScreenSizeResponse__Output>): grpc.ClientUnaryCall;
  getScreenSize(argument: _pincer_v1_GetScreenSizeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_GetScreenSizeResponse__Output>): grpc.ClientUnaryCall;
  getScreenSize(argument: _pincer_v1_GetScreenSizeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_GetScreenSizeResponse__Output>): grpc.ClientUnaryCall;
  getScreenSize(argument: _pincer_v1_GetScreenSizeRequest, callback: grpc.requestCallback<_pincer_v1_GetScreenSizeResponse__Output>): grpc.ClientUnaryCall;
  
  Screenshot(argument: _pincer_v1_ScreenshotRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ScreenshotResponse__Output>): grpc.ClientUnaryCall;
  Screenshot(argument: _pincer_v1_ScreenshotRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_ScreenshotResponse__Output>): grpc.ClientUnaryCall;
  Screenshot(argument: _pincer_v1_ScreenshotRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ScreenshotResponse__Output>): grpc.ClientUnaryCall;
  Screenshot(argument: _pincer_v1_ScreenshotRequest, callback: grpc.requestCallback<_pincer_v1_ScreenshotResponse__Output>): grpc.ClientUnaryCall;
  screenshot(argument: _pincer_v1_ScreenshotRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ScreenshotResponse__Output>): grpc.ClientUnaryCall;
  screenshot(argument: _pincer_v1_ScreenshotRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_ScreenshotResponse__Output>): grpc.ClientUnaryCall;
  screenshot(argument: _pincer_v1_ScreenshotRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ScreenshotResponse__Output>): grpc.ClientUnaryCall;
  screenshot(argument: _pincer_v1_ScreenshotRequest, callback: grpc.requestCallback<_pincer_v1_ScreenshotResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Returns once the screen (or a region) has stopped changing for quiet_ms, or when timeout_ms
   * has passed, and says which and how long it waited. Frames are compared in the daemon.
   */
  WaitForSettle(argument: _pincer_v1_WaitForSettleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_WaitForSettleResponse__Output>): grpc.ClientUnaryCall;
  WaitForSettle(argument: _pincer_v1_WaitForSettleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_WaitForSettleResponse__Output>): grpc.ClientUnaryCall;
  WaitForSettle(argument: _pincer_v1_WaitForSettleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_WaitForSettleResponse__Output>): grpc.ClientUnaryCall;
  WaitForSettle(argument: _pincer_v1_WaitForSettleRequest, callback: grpc.requestCallback<_pincer_v1_WaitForSettleResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Returns once the screen (or a region) has stopped changing for quiet_ms, or when timeout_ms
   * has passed, and says which and how long it waited. Frames are compared in the daemon.
   */
  waitForSettle(argument: _pincer_v1_WaitForSettleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_WaitForSettleResponse__Output>): grpc.ClientUnaryCall;
  waitForSettle(argument: _pincer_v1_WaitForSettleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_WaitForSettleResponse__Output>): grpc.ClientUnaryCall;
  waitForSettle(argument: _pincer_v1_WaitForSettleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_WaitForSettleResponse__Output>): grpc.ClientUnaryCall;
  waitForSettle(argument: _pincer_v1_WaitForSettleRequest, callback: grpc.requestCallback<_pincer_v1_WaitForSettleResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Streams the screen: a frame at once, then a frame whenever the screen changed, at most max_fps a
   * second. Whole frames only. A viewer that reads slowly gets fewer frames: the daemon captures the
   * next frame only once the last one was written out, so the newest screen is sent and nothing
   * queues. Ends when the client cancels it (or its deadline passes). At most 8 at once per daemon.
   */
  Watch(argument: _pincer_v1_WatchRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_pincer_v1_WatchResponse__Output>;
  Watch(argument: _pincer_v1_WatchRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_pincer_v1_WatchResponse__Output>;
  /**
   * Streams the screen: a frame at once, then a frame whenever the screen changed, at most max_fps a
   * second. Whole frames only. A viewer that reads slowly gets fewer frames: the daemon captures the
   * next frame only once the last one was written out, so the newest screen is sent and nothing
   * queues. Ends when the client cancels it (or its deadline passes). At most 8 at once per daemon.
   */
  watch(argument: _pincer_v1_WatchRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_pincer_v1_WatchResponse__Output>;
  watch(argument: _pincer_v1_WatchRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_pincer_v1_WatchResponse__Output>;
  
}

/**
 * Screenshots of the machine's display, captured in-process and encoded with sharp.
 */
export interface ScreenHandlers extends grpc.UntypedServiceImplementation {
  GetScreenSize: grpc.handleUnaryCall<_pincer_v1_GetScreenSizeRequest__Output, _pincer_v1_GetScreenSizeResponse>;
  
  Screenshot: grpc.handleUnaryCall<_pincer_v1_ScreenshotRequest__Output, _pincer_v1_ScreenshotResponse>;
  
  /**
   * Returns once the screen (or a region) has stopped changing for quiet_ms, or when timeout_ms
   * has passed, and says which and how long it waited. Frames are compared in the daemon.
   */
  WaitForSettle: grpc.handleUnaryCall<_pincer_v1_WaitForSettleRequest__Output, _pincer_v1_WaitForSettleResponse>;
  
  /**
   * Streams the screen: a frame at once, then a frame whenever the screen changed, at most max_fps a
   * second. Whole frames only. A viewer that reads slowly gets fewer frames: the daemon captures the
   * next frame only once the last one was written out, so the newest screen is sent and nothing
   * queues. Ends when the client cancels it (or its deadline passes). At most 8 at once per daemon.
   */
  Watch: grpc.handleServerStreamingCall<_pincer_v1_WatchRequest__Output, _pincer_v1_WatchResponse>;
  
}

export interface ScreenDefinition extends grpc.ServiceDefinition {
  GetScreenSize: MethodDefinition<_pincer_v1_GetScreenSizeRequest, _pincer_v1_GetScreenSizeResponse, _pincer_v1_GetScreenSizeRequest__Output, _pincer_v1_GetScreenSizeResponse__Output>
  Screenshot: MethodDefinition<_pincer_v1_ScreenshotRequest, _pincer_v1_ScreenshotResponse, _pincer_v1_ScreenshotRequest__Output, _pincer_v1_ScreenshotResponse__Output>
  WaitForSettle: MethodDefinition<_pincer_v1_WaitForSettleRequest, _pincer_v1_WaitForSettleResponse, _pincer_v1_WaitForSettleRequest__Output, _pincer_v1_WaitForSettleResponse__Output>
  Watch: MethodDefinition<_pincer_v1_WatchRequest, _pincer_v1_WatchResponse, _pincer_v1_WatchRequest__Output, _pincer_v1_WatchResponse__Output>
}
