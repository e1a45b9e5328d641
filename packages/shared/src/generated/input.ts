import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { ButtonDownRequest as _pincer_v1_ButtonDownRequest, ButtonDownRequest__Output as _pincer_v1_ButtonDownRequest__Output } from './pincer/v1/ButtonDownRequest.js';
import type { ButtonDownResponse as _pincer_v1_ButtonDownResponse, ButtonDownResponse__Output as _pincer_v1_ButtonDownResponse__Output } from './pincer/v1/ButtonDownResponse.js';
import type { ButtonUpRequest as _pincer_v1_ButtonUpRequest, ButtonUpRequest__Output as _pincer_v1_ButtonUpRequest__Output } from './pincer/v1/ButtonUpRequest.js';
import type { ButtonUpResponse as _pincer_v1_ButtonUpResponse, ButtonUpResponse__Output as _pincer_v1_ButtonUpResponse__Output } from './pincer/v1/ButtonUpResponse.js';
import type { ClickRequest as _pincer_v1_ClickRequest, ClickRequest__Output as _pincer_v1_ClickRequest__Output } from './pincer/v1/ClickRequest.js';
import type { ClickResponse as _pincer_v1_ClickResponse, ClickResponse__Output as _pincer_v1_ClickResponse__Output } from './pincer/v1/ClickResponse.js';
import type { DragRequest as _pincer_v1_DragRequest, DragRequest__Output as _pincer_v1_DragRequest__Output } from './pincer/v1/DragRequest.js';
import type { DragResponse as _pincer_v1_DragResponse, DragResponse__Output as _pincer_v1_DragResponse__Output } from './pincer/v1/DragResponse.js';
import type { GetCursorPositionRequest as _pincer_v1_GetCursorPositionRequest, GetCursorPositionRequest__Output as _pincer_v1_GetCursorPositionRequest__Output } from './pincer/v1/GetCursorPositionRequest.js';
import type { GetCursorPositionResponse as _pincer_v1_GetCursorPositionResponse, GetCursorPositionResponse__Output as _pincer_v1_GetCursorPositionResponse__Output } from './pincer/v1/GetCursorPositionResponse.js';
import type { InputClient as _pincer_v1_InputClient, InputDefinition as _pincer_v1_InputDefinition } from './pincer/v1/Input.js';
import type { KeyDownRequest as _pincer_v1_KeyDownRequest, KeyDownRequest__Output as _pincer_v1_KeyDownRequest__Output } from './pincer/v1/KeyDownRequest.js';
import type { KeyDownResponse as _pincer_v1_KeyDownResponse, KeyDownResponse__Output as _pincer_v1_KeyDownResponse__Output } from './pincer/v1/KeyDownResponse.js';
import type { KeyUpRequest as _pincer_v1_KeyUpRequest, KeyUpRequest__Output as _pincer_v1_KeyUpRequest__Output } from './pincer/v1/KeyUpRequest.js';
import type { KeyUpResponse as _pincer_v1_KeyUpResponse, KeyUpResponse__Output as _pincer_v1_KeyUpResponse__Output } from './pincer/v1/KeyUpResponse.js';
import type { MoveRequest as _pincer_v1_MoveRequest, MoveRequest__Output as _pincer_v1_MoveRequest__Output } from './pincer/v1/MoveRequest.js';
import type { MoveResponse as _pincer_v1_MoveResponse, MoveResponse__Output as _pincer_v1_MoveResponse__Output } from './pincer/v1/MoveResponse.js';
import type { Point as _pincer_v1_Point, Point__Output as _pincer_v1_Point__Output } from './pincer/v1/Point.js';
import type { PressKeysRequest as _pincer_v1_PressKeysRequest, PressKeysRequest__Output as _pincer_v1_PressKeysRequest__Output } from './pincer/v1/PressKeysRequest.js';
import type { PressKeysResponse as _pincer_v1_PressKeysResponse, PressKeysResponse__Output as _pincer_v1_PressKeysResponse__Output } from './pincer/v1/PressKeysResponse.js';
import type { Region as _pincer_v1_Region, Region__Output as _pincer_v1_Region__Output } from './pincer/v1/Region.js';
import type { ScrollRequest as _pincer_v1_ScrollRequest, ScrollRequest__Output as _pincer_v1_ScrollRequest__Output } from './pincer/v1/ScrollRequest.js';
import type { ScrollResponse as _pincer_v1_ScrollResponse, ScrollResponse__Output as _pincer_v1_ScrollResponse__Output } from './pincer/v1/ScrollResponse.js';
import type { Size as _pincer_v1_Size, Size__Output as _pincer_v1_Size__Output } from './pincer/v1/Size.js';
import type { TypeTextRequest as _pincer_v1_TypeTextRequest, TypeTextRequest__Output as _pincer_v1_TypeTextRequest__Output } from './pincer/v1/TypeTextRequest.js';
import type { TypeTextResponse as _pincer_v1_TypeTextResponse, TypeTextResponse__Output as _pincer_v1_TypeTextResponse__Output } from './pincer/v1/TypeTextResponse.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  pincer: {
    v1: {
      ButtonDownRequest: MessageTypeDefinition<_pincer_v1_ButtonDownRequest, _pincer_v1_ButtonDownRequest__Output>
      ButtonDownResponse: MessageTypeDefinition<_pincer_v1_ButtonDownResponse, _pincer_v1_ButtonDownResponse__Output>
      ButtonUpRequest: MessageTypeDefinition<_pincer_v1_ButtonUpRequest, _pincer_v1_ButtonUpRequest__Output>
      ButtonUpResponse: MessageTypeDefinition<_pincer_v1_ButtonUpResponse, _pincer_v1_ButtonUpResponse__Output>
      ClickRequest: MessageTypeDefinition<_pincer_v1_ClickRequest, _pincer_v1_ClickRequest__Output>
      ClickResponse: MessageTypeDefinition<_pincer_v1_ClickResponse, _pincer_v1_ClickResponse__Output>
      DragRequest: MessageTypeDefinition<_pincer_v1_DragRequest, _pincer_v1_DragRequest__Output>
      DragResponse: MessageTypeDefinition<_pincer_v1_DragResponse, _pincer_v1_DragResponse__Output>
      GetCursorPositionRequest: MessageTypeDefinition<_pincer_v1_GetCursorPositionRequest, _pincer_v1_GetCursorPositionRequest__Output>
      GetCursorPositionResponse: MessageTypeDefinition<_pincer_v1_GetCursorPositionResponse, _pincer_v1_GetCursorPositionResponse__Output>
      /**
       * Mouse and keyboard input on the machine's display (X11 with XTEST).
       * 
       * Key names follow one vocabulary, documented in docs of @pincer/shared
       * (keys.ts): X keysym names as xdotool accepts them ("Return", "ctrl",
       * "Page_Up", "F5", "a") and the names computer-use models emit ("enter",
       * "esc", "cmd", "ArrowLeft", "PAGEDOWN"). Matching of aliases ignores case.
       */
      Input: SubtypeConstructor<typeof grpc.Client, _pincer_v1_InputClient> & { service: _pincer_v1_InputDefinition }
      KeyDownRequest: MessageTypeDefinition<_pincer_v1_KeyDownRequest, _pincer_v1_KeyDownRequest__Output>
      KeyDownResponse: MessageTypeDefinition<_pincer_v1_KeyDownResponse, _pincer_v1_KeyDownResponse__Output>
      KeyUpRequest: MessageTypeDefinition<_pincer_v1_KeyUpRequest, _pincer_v1_KeyUpRequest__Output>
      KeyUpResponse: MessageTypeDefinition<_pincer_v1_KeyUpResponse, _pincer_v1_KeyUpResponse__Output>
      MouseButton: EnumTypeDefinition
      MoveRequest: MessageTypeDefinition<_pincer_v1_MoveRequest, _pincer_v1_MoveRequest__Output>
      MoveResponse: MessageTypeDefinition<_pincer_v1_MoveResponse, _pincer_v1_MoveResponse__Output>
      Point: MessageTypeDefinition<_pincer_v1_Point, _pincer_v1_Point__Output>
      PressKeysRequest: MessageTypeDefinition<_pincer_v1_PressKeysRequest, _pincer_v1_PressKeysRequest__Output>
      PressKeysResponse: MessageTypeDefinition<_pincer_v1_PressKeysResponse, _pincer_v1_PressKeysResponse__Output>
      Region: MessageTypeDefinition<_pincer_v1_Region, _pincer_v1_Region__Output>
      ScrollRequest: MessageTypeDefinition<_pincer_v1_ScrollRequest, _pincer_v1_ScrollRequest__Output>
      ScrollResponse: MessageTypeDefinition<_pincer_v1_ScrollResponse, _pincer_v1_ScrollResponse__Output>
      Size: MessageTypeDefinition<_pincer_v1_Size, _pincer_v1_Size__Output>
      TypeTextRequest: MessageTypeDefinition<_pincer_v1_TypeTextRequest, _pincer_v1_TypeTextRequest__Output>
      TypeTextResponse: MessageTypeDefinition<_pincer_v1_TypeTextResponse, _pincer_v1_TypeTextResponse__Output>
    }
  }
}

