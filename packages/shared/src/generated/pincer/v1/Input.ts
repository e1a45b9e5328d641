// Original file: pincer/v1/input.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { ButtonDownRequest as _pincer_v1_ButtonDownRequest, ButtonDownRequest__Output as _pincer_v1_ButtonDownRequest__Output } from '../../pincer/v1/ButtonDownRequest.js';
import type { ButtonDownResponse as _pincer_v1_ButtonDownResponse, ButtonDownResponse__Output as _pincer_v1_ButtonDownResponse__Output } from '../../pincer/v1/ButtonDownResponse.js';
import type { ButtonUpRequest as _pincer_v1_ButtonUpRequest, ButtonUpRequest__Output as _pincer_v1_ButtonUpRequest__Output } from '../../pincer/v1/ButtonUpRequest.js';
import type { ButtonUpResponse as _pincer_v1_ButtonUpResponse, ButtonUpResponse__Output as _pincer_v1_ButtonUpResponse__Output } from '../../pincer/v1/ButtonUpResponse.js';
import type { ClickRequest as _pincer_v1_ClickRequest, ClickRequest__Output as _pincer_v1_ClickRequest__Output } from '../../pincer/v1/ClickRequest.js';
import type { ClickResponse as _pincer_v1_ClickResponse, ClickResponse__Output as _pincer_v1_ClickResponse__Output } from '../../pincer/v1/ClickResponse.js';
import type { DragRequest as _pincer_v1_DragRequest, DragRequest__Output as _pincer_v1_DragRequest__Output } from '../../pincer/v1/DragRequest.js';
import type { DragResponse as _pincer_v1_DragResponse, DragResponse__Output as _pincer_v1_DragResponse__Output } from '../../pincer/v1/DragResponse.js';
import type { GetCursorPositionRequest as _pincer_v1_GetCursorPositionRequest, GetCursorPositionRequest__Output as _pincer_v1_GetCursorPositionRequest__Output } from '../../pincer/v1/GetCursorPositionRequest.js';
import type { GetCursorPositionResponse as _pincer_v1_GetCursorPositionResponse, GetCursorPositionResponse__Output as _pincer_v1_GetCursorPositionResponse__Output } from '../../pincer/v1/GetCursorPositionResponse.js';
import type { KeyDownRequest as _pincer_v1_KeyDownRequest, KeyDownRequest__Output as _pincer_v1_KeyDownRequest__Output } from '../../pincer/v1/KeyDownRequest.js';
import type { KeyDownResponse as _pincer_v1_KeyDownResponse, KeyDownResponse__Output as _pincer_v1_KeyDownResponse__Output } from '../../pincer/v1/KeyDownResponse.js';
import type { KeyUpRequest as _pincer_v1_KeyUpRequest, KeyUpRequest__Output as _pincer_v1_KeyUpRequest__Output } from '../../pincer/v1/KeyUpRequest.js';
import type { KeyUpResponse as _pincer_v1_KeyUpResponse, KeyUpResponse__Output as _pincer_v1_KeyUpResponse__Output } from '../../pincer/v1/KeyUpResponse.js';
import type { MoveRequest as _pincer_v1_MoveRequest, MoveRequest__Output as _pincer_v1_MoveRequest__Output } from '../../pincer/v1/MoveRequest.js';
import type { MoveResponse as _pincer_v1_MoveResponse, MoveResponse__Output as _pincer_v1_MoveResponse__Output } from '../../pincer/v1/MoveResponse.js';
import type { PressKeysRequest as _pincer_v1_PressKeysRequest, PressKeysRequest__Output as _pincer_v1_PressKeysRequest__Output } from '../../pincer/v1/PressKeysRequest.js';
import type { PressKeysResponse as _pincer_v1_PressKeysResponse, PressKeysResponse__Output as _pincer_v1_PressKeysResponse__Output } from '../../pincer/v1/PressKeysResponse.js';
import type { ScrollRequest as _pincer_v1_ScrollRequest, ScrollRequest__Output as _pincer_v1_ScrollRequest__Output } from '../../pincer/v1/ScrollRequest.js';
import type { ScrollResponse as _pincer_v1_ScrollResponse, ScrollResponse__Output as _pincer_v1_ScrollResponse__Output } from '../../pincer/v1/ScrollResponse.js';
import type { TypeTextRequest as _pincer_v1_TypeTextRequest, TypeTextRequest__Output as _pincer_v1_TypeTextRequest__Output } from '../../pincer/v1/TypeTextRequest.js';
import type { TypeTextResponse as _pincer_v1_TypeTextResponse, TypeTextResponse__Output as _pincer_v1_TypeTextResponse__Output } from '../../pincer/v1/TypeTextResponse.js';

/**
 * Mouse and keyboard input on the machine's display (X11 with XTEST).
 * 
 * Key names follow one vocabulary, documented in docs of @pincer/shared
 * (keys.ts): X keysym names as xdotool accepts them ("Return", "ctrl",
 * "Page_Up", "F5", "a") and the names computer-use models emit ("enter",
 * "esc", "cmd", "ArrowLeft", "PAGEDOWN"). Matching of aliases ignores case.
 */
export interface InputClient extends grpc.Client {
  /**
   * Presses a mouse button without releasing it.
   */
  ButtonDown(argument: _pincer_v1_ButtonDownRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ButtonDownResponse__Output>): grpc.ClientUnaryCall;
  ButtonDown(argument: _pincer_v1_ButtonDownRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_ButtonDownResponse__Output>): grpc.ClientUnaryCall;
  ButtonDown(argument: _pincer_v1_ButtonDownRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ButtonDownResponse__Output>): grpc.ClientUnaryCall;
  ButtonDown(argument: _pincer_v1_ButtonDownRequest, callback: grpc.requestCallback<_pincer_v1_ButtonDownResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Presses a mouse button without releasing it.
   */
  buttonDown(argument: _pincer_v1_ButtonDownRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ButtonDownResponse__Output>): grpc.ClientUnaryCall;
  buttonDown(argument: _pincer_v1_ButtonDownRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_ButtonDownResponse__Output>): grpc.ClientUnaryCall;
  buttonDown(argument: _pincer_v1_ButtonDownRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ButtonDownResponse__Output>): grpc.ClientUnaryCall;
  buttonDown(argument: _pincer_v1_ButtonDownRequest, callback: grpc.requestCallback<_pincer_v1_ButtonDownResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Releases a mouse button.
   */
  ButtonUp(argument: _pincer_v1_ButtonUpRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ButtonUpResponse__Output>): grpc.ClientUnaryCall;
  ButtonUp(argument: _pincer_v1_ButtonUpRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_ButtonUpResponse__Output>): grpc.ClientUnaryCall;
  ButtonUp(argument: _pincer_v1_ButtonUpRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ButtonUpResponse__Output>): grpc.ClientUnaryCall;
  ButtonUp(argument: _pincer_v1_ButtonUpRequest, callback: grpc.requestCallback<_pincer_v1_ButtonUpResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Releases a mouse button.
   */
  buttonUp(argument: _pincer_v1_ButtonUpRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ButtonUpResponse__Output>): grpc.ClientUnaryCall;
  buttonUp(argument: _pincer_v1_ButtonUpRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_ButtonUpResponse__Output>): grpc.ClientUnaryCall;
  buttonUp(argument: _pincer_v1_ButtonUpRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ButtonUpResponse__Output>): grpc.ClientUnaryCall;
  buttonUp(argument: _pincer_v1_ButtonUpRequest, callback: grpc.requestCallback<_pincer_v1_ButtonUpResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Clicks a button 1-3 times, optionally at a point and with modifiers held.
   */
  Click(argument: _pincer_v1_ClickRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ClickResponse__Output>): grpc.ClientUnaryCall;
  Click(argument: _pincer_v1_ClickRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_ClickResponse__Output>): grpc.ClientUnaryCall;
  Click(argument: _pincer_v1_ClickRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ClickResponse__Output>): grpc.ClientUnaryCall;
  Click(argument: _pincer_v1_ClickRequest, callback: grpc.requestCallback<_pincer_v1_ClickResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Clicks a button 1-3 times, optionally at a point and with modifiers held.
   */
  click(argument: _pincer_v1_ClickRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ClickResponse__Output>): grpc.ClientUnaryCall;
  click(argument: _pincer_v1_ClickRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_ClickResponse__Output>): grpc.ClientUnaryCall;
  click(argument: _pincer_v1_ClickRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ClickResponse__Output>): grpc.ClientUnaryCall;
  click(argument: _pincer_v1_ClickRequest, callback: grpc.requestCallback<_pincer_v1_ClickResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Presses a button at the first point, moves along the path, releases at the last.
   */
  Drag(argument: _pincer_v1_DragRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_DragResponse__Output>): grpc.ClientUnaryCall;
  Drag(argument: _pincer_v1_DragRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_DragResponse__Output>): grpc.ClientUnaryCall;
  Drag(argument: _pincer_v1_DragRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_DragResponse__Output>): grpc.ClientUnaryCall;
  Drag(argument: _pincer_v1_DragRequest, callback: grpc.requestCallback<_pincer_v1_DragResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Presses a button at the first point, moves along the path, releases at the last.
   */
  drag(argument: _pincer_v1_DragRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_DragResponse__Output>): grpc.ClientUnaryCall;
  drag(argument: _pincer_v1_DragRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_DragResponse__Output>): grpc.ClientUnaryCall;
  drag(argument: _pincer_v1_DragRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_DragResponse__Output>): grpc.ClientUnaryCall;
  drag(argument: _pincer_v1_DragRequest, callback: grpc.requestCallback<_pincer_v1_DragResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Where the pointer is now.
   */
  GetCursorPosition(argument: _pincer_v1_GetCursorPositionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_GetCursorPositionResponse__Output>): grpc.ClientUnaryCall;
  GetCursorPosition(argument: _pincer_v1_GetCursorPositionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_GetCursorPositionResponse__Output>): grpc.ClientUnaryCall;
  GetCursorPosition(argument: _pincer_v1_GetCursorPositionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_GetCursorPositionResponse__Output>): grpc.ClientUnaryCall;
  GetCursorPosition(argument: _pincer_v1_GetCursorPositionRequest, callback: grpc.requestCallback<_pincer_v1_GetCursorPositionResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Where the pointer is now.
   */
  getCursorPosition(argument: _pincer_v1_GetCursorPositionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_GetCursorPositionResponse__Output>): grpc.ClientUnaryCall;
  getCursorPosition(argument: _pincer_v1_GetCursorPositionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_GetCursorPositionResponse__Output>): grpc.ClientUnaryCall;
  getCursorPosition(argument: _pincer_v1_GetCursorPositionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_GetCursorPositionResponse__Output>): grpc.ClientUnaryCall;
  getCursorPosition(argument: _pincer_v1_GetCursorPositionRequest, callback: grpc.requestCallback<_pincer_v1_GetCursorPositionResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Holds a key down until KeyUp.
   */
  KeyDown(argument: _pincer_v1_KeyDownRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_KeyDownResponse__Output>): grpc.ClientUnaryCall;
  KeyDown(argument: _pincer_v1_KeyDownRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_KeyDownResponse__Output>): grpc.ClientUnaryCall;
  KeyDown(argument: _pincer_v1_KeyDownRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_KeyDownResponse__Output>): grpc.ClientUnaryCall;
  KeyDown(argument: _pincer_v1_KeyDownRequest, callback: grpc.requestCallback<_pincer_v1_KeyDownResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Holds a key down until KeyUp.
   */
  keyDown(argument: _pincer_v1_KeyDownRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_KeyDownResponse__Output>): grpc.ClientUnaryCall;
  keyDown(argument: _pincer_v1_KeyDownRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_KeyDownResponse__Output>): grpc.ClientUnaryCall;
  keyDown(argument: _pincer_v1_KeyDownRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_KeyDownResponse__Output>): grpc.ClientUnaryCall;
  keyDown(argument: _pincer_v1_KeyDownRequest, callback: grpc.requestCallback<_pincer_v1_KeyDownResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Releases a key held with KeyDown.
   */
  KeyUp(argument: _pincer_v1_KeyUpRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_KeyUpResponse__Output>): grpc.ClientUnaryCall;
  KeyUp(argument: _pincer_v1_KeyUpRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_KeyUpResponse__Output>): grpc.ClientUnaryCall;
  KeyUp(argument: _pincer_v1_KeyUpRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_KeyUpResponse__Output>): grpc.ClientUnaryCall;
  KeyUp(argument: _pincer_v1_KeyUpRequest, callback: grpc.requestCallback<_pincer_v1_KeyUpResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Releases a key held with KeyDown.
   */
  keyUp(argument: _pincer_v1_KeyUpRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_KeyUpResponse__Output>): grpc.ClientUnaryCall;
  keyUp(argument: _pincer_v1_KeyUpRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_KeyUpResponse__Output>): grpc.ClientUnaryCall;
  keyUp(argument: _pincer_v1_KeyUpRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_KeyUpResponse__Output>): grpc.ClientUnaryCall;
  keyUp(argument: _pincer_v1_KeyUpRequest, callback: grpc.requestCallback<_pincer_v1_KeyUpResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Moves the pointer to a point.
   */
  Move(argument: _pincer_v1_MoveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_MoveResponse__Output>): grpc.ClientUnaryCall;
  Move(argument: _pincer_v1_MoveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_MoveResponse__Output>): grpc.ClientUnaryCall;
  Move(argument: _pincer_v1_MoveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_MoveResponse__Output>): grpc.ClientUnaryCall;
  Move(argument: _pincer_v1_MoveRequest, callback: grpc.requestCallback<_pincer_v1_MoveResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Moves the pointer to a point.
   */
  move(argument: _pincer_v1_MoveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_MoveResponse__Output>): grpc.ClientUnaryCall;
  move(argument: _pincer_v1_MoveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_MoveResponse__Output>): grpc.ClientUnaryCall;
  move(argument: _pincer_v1_MoveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_MoveResponse__Output>): grpc.ClientUnaryCall;
  move(argument: _pincer_v1_MoveRequest, callback: grpc.requestCallback<_pincer_v1_MoveResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Presses a chord ("ctrl+shift+t"): keys go down in order and up in reverse.
   */
  PressKeys(argument: _pincer_v1_PressKeysRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_PressKeysResponse__Output>): grpc.ClientUnaryCall;
  PressKeys(argument: _pincer_v1_PressKeysRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_PressKeysResponse__Output>): grpc.ClientUnaryCall;
  PressKeys(argument: _pincer_v1_PressKeysRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_PressKeysResponse__Output>): grpc.ClientUnaryCall;
  PressKeys(argument: _pincer_v1_PressKeysRequest, callback: grpc.requestCallback<_pincer_v1_PressKeysResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Presses a chord ("ctrl+shift+t"): keys go down in order and up in reverse.
   */
  pressKeys(argument: _pincer_v1_PressKeysRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_PressKeysResponse__Output>): grpc.ClientUnaryCall;
  pressKeys(argument: _pincer_v1_PressKeysRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_PressKeysResponse__Output>): grpc.ClientUnaryCall;
  pressKeys(argument: _pincer_v1_PressKeysRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_PressKeysResponse__Output>): grpc.ClientUnaryCall;
  pressKeys(argument: _pincer_v1_PressKeysRequest, callback: grpc.requestCallback<_pincer_v1_PressKeysResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Scrolls by whole wheel notches, optionally at a point.
   */
  Scroll(argument: _pincer_v1_ScrollRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ScrollResponse__Output>): grpc.ClientUnaryCall;
  Scroll(argument: _pincer_v1_ScrollRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_ScrollResponse__Output>): grpc.ClientUnaryCall;
  Scroll(argument: _pincer_v1_ScrollRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ScrollResponse__Output>): grpc.ClientUnaryCall;
  Scroll(argument: _pincer_v1_ScrollRequest, callback: grpc.requestCallback<_pincer_v1_ScrollResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Scrolls by whole wheel notches, optionally at a point.
   */
  scroll(argument: _pincer_v1_ScrollRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ScrollResponse__Output>): grpc.ClientUnaryCall;
  scroll(argument: _pincer_v1_ScrollRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_ScrollResponse__Output>): grpc.ClientUnaryCall;
  scroll(argument: _pincer_v1_ScrollRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_ScrollResponse__Output>): grpc.ClientUnaryCall;
  scroll(argument: _pincer_v1_ScrollRequest, callback: grpc.requestCallback<_pincer_v1_ScrollResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Types any Unicode text, whatever the active keyboard layout.
   */
  TypeText(argument: _pincer_v1_TypeTextRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_TypeTextResponse__Output>): grpc.ClientUnaryCall;
  TypeText(argument: _pincer_v1_TypeTextRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_TypeTextResponse__Output>): grpc.ClientUnaryCall;
  TypeText(argument: _pincer_v1_TypeTextRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_TypeTextResponse__Output>): grpc.ClientUnaryCall;
  TypeText(argument: _pincer_v1_TypeTextRequest, callback: grpc.requestCallback<_pincer_v1_TypeTextResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Types any Unicode text, whatever the active keyboard layout.
   */
  typeText(argument: _pincer_v1_TypeTextRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_TypeTextResponse__Output>): grpc.ClientUnaryCall;
  typeText(argument: _pincer_v1_TypeTextRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_pincer_v1_TypeTextResponse__Output>): grpc.ClientUnaryCall;
  typeText(argument: _pincer_v1_TypeTextRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_pincer_v1_TypeTextResponse__Output>): grpc.ClientUnaryCall;
  typeText(argument: _pincer_v1_TypeTextRequest, callback: grpc.requestCallback<_pincer_v1_TypeTextResponse__Output>): grpc.ClientUnaryCall;
  
}

/**
 * Mouse and keyboard input on the machine's display (X11 with XTEST).
 * 
 * Key names follow one vocabulary, documented in docs of @pincer/shared
 * (keys.ts): X keysym names as xdotool accepts them ("Return", "ctrl",
 * "Page_Up", "F5", "a") and the names computer-use models emit ("enter",
 * "esc", "cmd", "ArrowLeft", "PAGEDOWN"). Matching of aliases ignores case.
 */
export interface InputHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Presses a mouse button without releasing it.
   */
  ButtonDown: grpc.handleUnaryCall<_pincer_v1_ButtonDownRequest__Output, _pincer_v1_ButtonDownResponse>;
  
  /**
   * Releases a mouse button.
   */
  ButtonUp: grpc.handleUnaryCall<_pincer_v1_ButtonUpRequest__Output, _pincer_v1_ButtonUpResponse>;
  
  /**
   * Clicks a button 1-3 times, optionally at a point and with modifiers held.
   */
  Click: grpc.handleUnaryCall<_pincer_v1_ClickRequest__Output, _pincer_v1_ClickResponse>;
  
  /**
   * Presses a button at the first point, moves along the path, releases at the last.
   */
  Drag: grpc.handleUnaryCall<_pincer_v1_DragRequest__Output, _pincer_v1_DragResponse>;
  
  /**
   * Where the pointer is now.
   */
  GetCursorPosition: grpc.handleUnaryCall<_pincer_v1_GetCursorPositionRequest__Output, _pincer_v1_GetCursorPositionResponse>;
  
  /**
   * Holds a key down until KeyUp.
   */
  KeyDown: grpc.handleUnaryCall<_pincer_v1_KeyDownRequest__Output, _pincer_v1_KeyDownResponse>;
  
  /**
   * Releases a key held with KeyDown.
   */
  KeyUp: grpc.handleUnaryCall<_pincer_v1_KeyUpRequest__Output, _pincer_v1_KeyUpResponse>;
  
  /**
   * Moves the pointer to a point.
   */
  Move: grpc.handleUnaryCall<_pincer_v1_MoveRequest__Output, _pincer_v1_MoveResponse>;
  
  /**
   * Presses a chord ("ctrl+shift+t"): keys go down in order and up in reverse.
   */
  PressKeys: grpc.handleUnaryCall<_pincer_v1_PressKeysRequest__Output, _pincer_v1_PressKeysResponse>;
  
  /**
   * Scrolls by whole wheel notches, optionally at a point.
   */
  Scroll: grpc.handleUnaryCall<_pincer_v1_ScrollRequest__Output, _pincer_v1_ScrollResponse>;
  
  /**
   * Types any Unicode text, whatever the active keyboard layout.
   */
  TypeText: grpc.handleUnaryCall<_pincer_v1_TypeTextRequest__Output, _pincer_v1_TypeTextResponse>;
  
}

export interface InputDefinition extends grpc.ServiceDefinition {
  ButtonDown: MethodDefinition<_pincer_v1_ButtonDownRequest, _pincer_v1_ButtonDownResponse, _pincer_v1_ButtonDownRequest__Output, _pincer_v1_ButtonDownResponse__Output>
  ButtonUp: MethodDefinition<_pincer_v1_ButtonUpRequest, _pincer_v1_ButtonUpResponse, _pincer_v1_ButtonUpRequest__Output, _pincer_v1_ButtonUpResponse__Output>
  Click: MethodDefinition<_pincer_v1_ClickRequest, _pincer_v1_ClickResponse, _pincer_v1_ClickRequest__Output, _pincer_v1_ClickResponse__Output>
  Drag: MethodDefinition<_pincer_v1_DragRequest, _pincer_v1_DragResponse, _pincer_v1_DragRequest__Output, _pincer_v1_DragResponse__Output>
  GetCursorPosition: MethodDefinition<_pincer_v1_GetCursorPositionRequest, _pincer_v1_GetCursorPositionResponse, _pincer_v1_GetCursorPositionRequest__Output, _pincer_v1_GetCursorPositionResponse__Output>
  KeyDown: MethodDefinition<_pincer_v1_KeyDownRequest, _pincer_v1_KeyDownResponse, _pincer_v1_KeyDownRequest__Output, _pincer_v1_KeyDownResponse__Output>
  KeyUp: MethodDefinition<_pincer_v1_KeyUpRequest, _pincer_v1_KeyUpResponse, _pincer_v1_KeyUpRequest__Output, _pincer_v1_KeyUpResponse__Output>
  Move: MethodDefinition<_pincer_v1_MoveRequest, _pincer_v1_MoveResponse, _pincer_v1_MoveRequest__Output, _pincer_v1_MoveResponse__Output>
  PressKeys: MethodDefinition<_pincer_v1_PressKeysRequest, _pincer_v1_PressKeysResponse, _pincer_v1_PressKeysRequest__Output, _pincer_v1_PressKeysResponse__Output>
  Scroll: MethodDefinition<_pincer_v1_ScrollRequest, _pincer_v1_ScrollResponse, _pincer_v1_ScrollRequest__Output, _pincer_v1_ScrollResponse__Output>
  TypeText: MethodDefinition<_pincer_v1_TypeTextRequest, _pincer_v1_TypeTextResponse, _pincer_v1_TypeTextRequest__Output, _pincer_v1_TypeTextResponse__Output>
}
