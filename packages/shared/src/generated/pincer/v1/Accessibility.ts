// Original file: pincer/v1/accessibility.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { GetTreeRequest as _pincer_v1_GetTreeRequest, GetTreeRequest__Output as _pincer_v1_GetTreeRequest__Output } from '../../pincer/v1/GetTreeRequest.js';
import type { GetTreeResponse as _pincer_v1_GetTreeResponse, GetTreeResponse__Output as _pincer_v1_GetTreeResponse__Output } from '../../pincer/v1/GetTreeResponse.js';

/**
 * The desktop's accessibility tree, read from AT-SPI over D-Bus: the widgets GTK, Qt, Firefox,
 * Chromium and LibreOffice publish, with their roles, names, states, bounds and text. Needs the
 * accessibility bus (at-spi2-core's at-spi-bus-launcher) on the daemon's session bus; programs
 * started before the bus existed do not appear.
 */
export interface AccessibilityClient extends grpc.Client {
  GetTree(argument: _pincer_v1_GetTreeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_GetTreeResponse__Output>): grpc.ClientUnaryCall;
  GetTree(argument: _pincer_v1_GetTreeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_GetTreeResponse__Output>): grpc.ClientUnaryCall;
  GetTree(argument: _pincer_v1_GetTreeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_GetTreeResponse__Output>): grpc.ClientUnaryCall;
  GetTree(argument: _pincer_v1_GetTreeRequest, callback: grpc.requestCallback<_pincer_v1_GetTreeResponse__Output>): grpc.ClientUnaryCall;
  getTree(argument: _pincer_v1_GetTreeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_GetTreeResponse__Output>): grpc.ClientUnaryCall;
  getTree(argument: _pincer_v1_GetTreeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_GetTreeResponse__Output>): grpc.ClientUnaryCall;
  getTree(argument: _pincer_v1_GetTreeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_GetTreeResponse__Output>): grpc.ClientUnaryCall;
  getTree(argument: _pincer_v1_GetTreeRequest, callback: grpc.requestCallback<_pincer_v1_GetTreeResponse__Output>): grpc.ClientUnaryCall;
  
}

/**
 * The desktop's accessibility tree, read from AT-SPI over D-Bus: the widgets GTK, Qt, Firefox,
 * Chromium and LibreOffice publish, with their roles, names, states, bounds and text. Needs the
 * accessibility bus (at-spi2-core's at-spi-bus-launcher) on the daemon's session bus; programs
 * started before the bus existed do not appear.
 */
export interface AccessibilityHandlers extends grpc.UntypedServiceImplementation {
  GetTree: grpc.handleUnaryCall<_pincer_v1_GetTreeRequest__Output, _pincer_v1_GetTreeResponse>;
  
}

export interface AccessibilityDefinition extends grpc.ServiceDefinition {
  GetTree: MethodDefinition<_pincer_v1_GetTreeRequest, _pincer_v1_GetTreeResponse, _pincer_v1_GetTreeRequest__Output, _pincer_v1_GetTreeResponse__Output>
}
