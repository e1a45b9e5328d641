/** The `env` layer: the handle actions and evaluators get, its APIs, and its implementations. */
export type { Env } from "./env.js";
export type { CallOptions, MouseButton, Point, Region, Size } from "./types.js";
export type { ButtonOptions, ClickOptions, DragOptions, MouseApi, ScrollOptions } from "./mouse.js";
export type { KeyboardApi, PressOptions, TypeOptions } from "./keyboard.js";
export { screenshotToScreen } from "./screen.js";
export type {
  ImageFormat,
  ScreenApi,
  ScreenFrame,
  Screenshot,
  ScreenshotOptions,
  ScreenWatch,
  SettleOptions,
  SettleResult,
  WatchScreenOptions,
} from "./screen.js";
export type { DriverInfo, SystemApi, SystemInfo } from "./system.js";
export type {
  DownloadOptions,
  FileInfo,
  FilesApi,
  FileType,
  ListOptions,
  ListResult,
  MakeDirOptions,
  MoveOptions,
  ReadOptions,
  RemoveOptions,
  TransferOptions,
  TransferProgress,
  TransferResult,
  UploadOptions,
} from "./files.js";
export type {
  ExecResult,
  LaunchOptions,
  LaunchResult,
  ProcessApi,
  ProcessEvent,
  ProcessExit,
  ProcessHandle,
  ProcessInfo,
  RunOptions,
  StartOptions,
} from "./process.js";
export type { ClipboardApi } from "./clipboard.js";
export type { CloseWindowOptions, ListWindowsOptions, WindowInfo, WindowsApi } from "./windows.js";
export { connect, RemoteEnv } from "./remoteEnv.js";
export type { ConnectOptions, TlsConnectOptions } from "./remoteEnv.js";
export type { RpcCall, RpcCallKind, RpcHandler, RpcInterceptor } from "./interceptors.js";
export { createMemoryEnv } from "./memoryEnv.js";
export type { MemoryEnv, MemoryEnvEvent, MemoryEnvOptions } from "./memoryEnv.js";
export { noMachineEnv } from "./noMachineEnv.js";
export type { AccessibilityApi, AccessibilityTree, AccessibilityTreeOptions, AccessibleNode } from "./accessibility.js";
