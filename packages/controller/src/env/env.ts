import type { AccessibilityApi } from "./accessibility.js";
import type { ClipboardApi } from "./clipboard.js";
import type { FilesApi } from "./files.js";
import type { KeyboardApi } from "./keyboard.js";
import type { MouseApi } from "./mouse.js";
import type { ProcessApi } from "./process.js";
import type { ScreenApi } from "./screen.js";
import type { SystemApi, SystemInfo } from "./system.js";
import type { CallOptions } from "./types.js";
import type { WindowsApi } from "./windows.js";

/**
 * The handle injected into actions and evaluators: one machine, reached through its daemon
 * ({@link connect}), or an in-memory stand-in ({@link createMemoryEnv}).
 */
export interface Env {
  /** "host:port" of the daemon. */
  readonly address: string;
  /** Pointer: move, click, drag, scroll. */
  readonly mouse: MouseApi;
  /** Key chords, single keys and Unicode text. */
  readonly keyboard: KeyboardApi;
  /** Screenshots and the screen's size. */
  readonly screen: ScreenApi;
  /** What the machine is and what its daemon can do. */
  readonly system: SystemApi;
  /** Streamed, verified, atomic file transfers and file-system calls. */
  readonly files: FilesApi;
  /** Commands: run to completion, stream, signal, launch GUI programs. */
  readonly process: ProcessApi;
  /** The X clipboard (CLIPBOARD selection) as text. */
  readonly clipboard: ClipboardApi;
  /** Top-level windows: list, focus, close. */
  readonly windows: WindowsApi;
  /** The desktop's accessibility tree (AT-SPI): widgets with roles, names, states and bounds. */
  readonly accessibility: AccessibilityApi;
  /** Waits until the daemon answers (it may still be starting), then returns its info. */
  waitUntilReady(opts?: CallOptions): Promise<SystemInfo>;
  /** Closes the connection. Calls after close fail with UnavailableError. */
  close(): void;
}
