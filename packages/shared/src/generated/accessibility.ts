import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AccessibilityClient as _pincer_v1_AccessibilityClient, AccessibilityDefinition as _pincer_v1_AccessibilityDefinition } from './pincer/v1/Accessibility.js';
import type { AccessibleNode as _pincer_v1_AccessibleNode, AccessibleNode__Output as _pincer_v1_AccessibleNode__Output } from './pincer/v1/AccessibleNode.js';
import type { Bounds as _pincer_v1_Bounds, Bounds__Output as _pincer_v1_Bounds__Output } from './pincer/v1/Bounds.js';
import type { GetTreeRequest as _pincer_v1_GetTreeRequest, GetTreeRequest__Output as _pincer_v1_GetTreeRequest__Output } from './pincer/v1/GetTreeRequest.js';
import type { GetTreeResponse as _pincer_v1_GetTreeResponse, GetTreeResponse__Output as _pincer_v1_GetTreeResponse__Output } from './pincer/v1/GetTreeResponse.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  pincer: {
    v1: {
      /**
       * The desktop's accessibility tree, read from AT-SPI over D-Bus: the widgets GTK, Qt, Firefox,
       * Chromium and LibreOffice publish, with their roles, names, states, bounds and text. Needs the
       * accessibility bus (at-spi2-core's at-spi-bus-launcher) on the daemon's session bus; programs
       * started before the bus existed do not appear.
       */
      Accessibility: SubtypeConstructor<typeof grpc.Client, _pincer_v1_AccessibilityClient> & { service: _pincer_v1_AccessibilityDefinition }
      AccessibleNode: MessageTypeDefinition<_pincer_v1_AccessibleNode, _pincer_v1_AccessibleNode__Output>
      Bounds: MessageTypeDefinition<_pincer_v1_Bounds, _pincer_v1_Bounds__Output>
      GetTreeRequest: MessageTypeDefinition<_pincer_v1_GetTreeRequest, _pincer_v1_GetTreeRequest__Output>
      GetTreeResponse: MessageTypeDefinition<_pincer_v1_GetTreeResponse, _pincer_v1_GetTreeResponse__Output>
    }
  }
}

